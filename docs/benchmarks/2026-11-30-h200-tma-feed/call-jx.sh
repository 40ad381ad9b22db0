#!/usr/bin/env bash
# Call JX: the variant probe (PROBE_FWD_TILES=1 scripts/variant-ab.sh build main=HEAD work=.), main (6292ac1) against
# work (the one-warpgroup Hopper tiles fed by TMA: TmaFeed, fwd_feeds.cuh), 30 rounds a shape, O compared bit for bit.
set -uo pipefail
o=${OUT:-gpu-out}/call-jx
mkdir -p "$o" dist/jx && tar -xJf dist/jx.txz -C dist/jx
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader > "$o/device.txt"
start=$SECONDS
timeout 200 dist/jx/variant-ab 30 \
  "m64n64w4s2 f16 4 16 512 64" "m64n64w4s2 f16 4 16 512 64 causal" "m64n64w4s2 f16 8 16 512 64 causal" \
  "m64n128w4s2 f16 2 8 512 64" "m64n128w4s3 f16 2 8 512 64 causal" "m64n128w4s2 f16 4 8 512 64 causal" \
  "m64n64w4s2 f16 8 16 512 64" "m64n128w4s2 f16 4 8 512 64" "m64n64w4s2 f16 1 8 512 64" "m64n128w4s2 f16 1 8 512 64" \
  "m64n64w4s3 f16 4 16 512 64" "m64n128w4s3 f16 4 16 512 64" \
  "m64n64w4s2 bf16 16 16 1024 64 causal" "m64n64w4s2 bf16 2 8 1023 64" "m64n64w4s3 bf16 2 8 1023 64 causal" \
  "m64n64w4s2 f16 3 5 113 64 lse" "m64n128w4s2 bf16 1 7 239 64 causal" "m64n128w4s3 f16 1 7 239 64 lse" \
  "m64n64w4s2 f16 2 3 7 64" "m64n128w4s3 bf16 2 3 1 64 causal" "m64n64w4s2 f16 1 2 300 64 keys=7" \
  "m64n128w4s2 f16 1 2 77 64 keys=1023 causal" \
  "m192n128w16s4ws f16 8 16 512 64" > "$o/variant-ab.txt" 2>&1
echo "variant-ab: rc=$? in $((SECONDS - start)) s" >> "$o/variant-ab.txt"
grep -E "^(main|work) " "$o/variant-ab.txt" | sed -E 's/ +TFLOP\/s.*ratio/ ratio/' | cut -c1-140
grep -iE "differ|error|fail" "$o/variant-ab.txt" | head
tail -1 "$o/variant-ab.txt"
