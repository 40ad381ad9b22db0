#!/usr/bin/env bash
# Call KE: the variant probe, PROBE_FWD_TILES=1 scripts/variant-ab.sh build main=main work=o-tma-store : main (1abed09,
# the TMA-fed one-tile-per-CTA kernel storing O by every thread's 16-byte stores) and work (branch o-tma-store at
# 5578618: one thread stores O by TMA, kAtoms boxes of kBlockM rows, where O's tensor map encodes), 40 rounds a shape,
# O compared bit for bit; the tiles the H200 table names for the seed shapes, d128 and d256 tiles, awkward lengths.
set -uo pipefail
o=${OUT:-gpu-out}/call-ke
mkdir -p "$o" dist/ke && tar -xJf dist/o-store.txz -C dist/ke
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader > "$o/device.txt"
start=$SECONDS
timeout 400 dist/ke/variant-ab 40 \
  "m64n128w4s2 f16 2 8 512 64" "m64n128w4s3 f16 2 8 512 64 causal" "m64n128w4s2 f16 4 8 512 64 causal" \
  "m128n128w8s2 f16 4 16 512 64" "m64n64w4s3 f16 4 16 512 64 causal" "m64n64w4s2 f16 8 16 512 64 causal" \
  "m64n64w4s2 f16 4 16 512 64" "m128n64w8s2 f16 8 16 512 64" "m64n64w4s2 f16 1 8 512 64" \
  "m128n128w8s2 bf16 16 32 1024 64" "m128n128w8s2 bf16 8 16 2048 128" "m64n64w4s2 bf16 8 16 2048 128 causal" \
  "m64n64w4s2 bf16 1 8 4096 256" "m64n64w4s3 bf16 1 8 4096 256 causal" \
  "m64n64w4s2 f16 3 5 113 64 lse" "m128n64w8s2 bf16 1 7 239 128 causal" "m64n64w4s3 bf16 2 3 1023 256 causal lse" \
  "m128n128w8s2 f16 2 3 7 128" "m64n64w4s2 f16 1 2 300 128 keys=7" "m128n64w8s2 f16 1 3 1 64 keys=1023 causal" \
  "m64n128w4s2 f16 1 1 1 64" \
  > "$o/variant-ab.txt" 2>&1
echo "variant-ab: rc=$? in $((SECONDS - start)) s" >> "$o/variant-ab.txt"
grep -E "^work " "$o/variant-ab.txt" | sed -E 's/ +TFLOP\/s.*ratio/ ratio/; s/ +p50 +/ /' | awk '{$NF=$NF; print}' | cut -c1-120
grep -iE "error|fail" "$o/variant-ab.txt" | head
tail -1 "$o/variant-ab.txt"
