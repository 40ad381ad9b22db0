#!/usr/bin/env bash
# Call JY: the variant probe, PROBE_FWD_TILES=1 scripts/variant-ab.sh build main=HEAD tma1=DIR work=. : main (6292ac1,
# cp.async), tma1 (TmaFeed waiting for tile j's K and V together, call JX's build) and work (TmaFeed waiting for V just
# before its P.V), 30 rounds a shape, O compared bit for bit; fwd_kernel.cuh's tiles beside the table's ws tiles.
set -uo pipefail
o=${OUT:-gpu-out}/call-jy
mkdir -p "$o" dist/jy && tar -xJf dist/jy.txz -C dist/jy
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader > "$o/device.txt"
start=$SECONDS
timeout 300 dist/jy/variant-ab 30 \
  "m64n64w4s2 f16 1 8 512 64" "m64n128w4s2 f16 1 8 512 64" "m64n128w4s3 f16 1 8 512 64" \
  "m64n128w4s2 f16 2 8 512 64" "m64n128w4s3 f16 2 8 512 64 causal" "m64n64w4s2 f16 2 8 512 64 causal" \
  "m64n128w4s2 f16 4 8 512 64" "m128n128w8s2 f16 4 8 512 64" "m128n128w12s4ws f16 4 8 512 64" \
  "m64n128w4s2 f16 4 8 512 64 causal" "m64n64w4s2 f16 4 8 512 64 causal" \
  "m64n64w4s2 f16 4 16 512 64" "m64n64w4s3 f16 4 16 512 64" "m64n64w4s2 f16 4 16 512 64 causal" \
  "m64n64w4s2 f16 8 16 512 64" "m128n64w8s2 f16 8 16 512 64" "m192n128w16s4ws f16 8 16 512 64" \
  "m64n64w4s2 f16 8 16 512 64 causal" \
  "m64n64w4s2 bf16 16 32 1024 64" "m128n128w8s2 bf16 16 32 1024 64" "m192n128w16s4ws bf16 16 32 1024 64" \
  "m64n64w4s2 bf16 8 16 2048 128" "m128n128w8s2 bf16 8 16 2048 128" "m192n80w16s4ws bf16 8 16 2048 128" \
  "m64n64w4s2 bf16 1 8 4096 256" "m64n64w4s3 bf16 1 8 4096 256 causal" \
  "m64n64w4s2 f16 3 5 113 64 lse" "m128n64w8s2 bf16 1 7 239 128 causal" "m64n64w4s3 bf16 2 3 1023 256 causal lse" \
  "m128n128w8s2 f16 2 3 7 128" "m64n64w4s2 f16 1 2 300 128 keys=7" "m128n64w8s2 f16 1 3 1 64 keys=1023 causal" \
  > "$o/variant-ab.txt" 2>&1
echo "variant-ab: rc=$? in $((SECONDS - start)) s" >> "$o/variant-ab.txt"
grep -E "^(main|tma1|work) " "$o/variant-ab.txt" | head -99 | sed -E 's/ +TFLOP\/s.*ratio/ ratio/; s/ +p50 +/ /' | awk '{$NF=$NF; print}' | cut -c1-120
grep -iE "error|fail" "$o/variant-ab.txt" | head
tail -1 "$o/variant-ab.txt"
