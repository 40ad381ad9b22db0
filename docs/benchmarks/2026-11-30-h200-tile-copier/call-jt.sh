#!/usr/bin/env bash
# Call JT: the variant probe (scripts/variant-ab.sh, PROBE_FWD_TILES=1), main (2678892, the copier)
# against work (the cp.async Hopper kernel's epilogue storing O straight from registers with
# WarpgroupTile::finish_to_global, no staging through the Q buffer and no barriers), 30 rounds per
# shape, O compared bit for bit; the warp-specialized shape last is the control (same code in both).
# Here: PROBE_FWD_TILES=1 scripts/variant-ab.sh build main=HEAD work=. ;
# (cd dist/variant-ab && tar -cf - variant-ab | xz -T2 -6 > ../jt.txz)
set -uo pipefail
o=${OUT:-gpu-out}/call-jt
mkdir -p "$o"
mkdir -p dist/jt && tar -xJf dist/jt.txz -C dist/jt
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader > "$o/device.txt"
start=$SECONDS
timeout 150 dist/jt/variant-ab 30 \
  "m64n64w4s2 f16 4 16 512 64" "m64n64w4s2 f16 4 16 512 64 causal" "m64n64w4s2 f16 8 16 512 64 causal" \
  "m64n128w4s2 f16 2 8 512 64" "m64n128w4s3 f16 2 8 512 64 causal" "m64n128w4s2 f16 4 8 512 64 causal" \
  "m64n64w4s2 bf16 16 16 1024 64 causal" "m64n64w4s2 bf16 2 8 1023 64" "m64n64w4s3 f16 4 16 512 64" \
  "m64n64w4s2 f16 3 5 113 64 lse" "m64n128w4s2 bf16 1 7 239 64 causal" \
  "m192n128w16s4ws f16 8 16 512 64" > "$o/variant-ab.txt" 2>&1
echo "variant-ab: rc=$? in $((SECONDS - start)) s" >> "$o/variant-ab.txt"
grep -E "^(main|work) " "$o/variant-ab.txt" | sed -E 's/ +TFLOP\/s.*ratio/ ratio/' | cut -c1-140
tail -1 "$o/variant-ab.txt"
