#!/usr/bin/env bash
# Call JO: the variant A/B probe with the one-warpgroup tiles (PROBE_FWD_TILES=1
# scripts/variant-ab.sh build main=HEAD work=., dense kernels): `work` copies K, V and Q through a
# TileCopier made once per kernel (each thread's swizzled shared-memory offset and global element
# offset worked out before the key loop, not per copy). 30 rounds, O compared bit for bit. Here:
# the probe packed as dist/jo.txz. From the checkout root on the GPU host; results in $OUT/call-jo/.
set -uo pipefail
o=${OUT:-gpu-out}/call-jo
mkdir -p "$o"
mkdir -p dist/jo && tar -xJf dist/jo.txz -C dist/jo
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader > "$o/device.txt"
start=$SECONDS
timeout 120 dist/jo/variant-ab 30 \
  "m64n64w4s2 f16 4 16 512 64" "m64n64w4s2 f16 4 16 512 64 causal" "m64n64w4s2 f16 8 16 512 64 causal" \
  "m64n128w4s2 f16 2 8 512 64" "m64n128w4s3 f16 2 8 512 64 causal" "m64n128w4s2 f16 4 8 512 64 causal" \
  "m64n64w4s2 bf16 16 16 1024 64 causal" "m64n64w4s2 bf16 2 8 1023 64" "m64n64w4s3 f16 4 16 512 64" \
  "m192n128w16s4ws f16 8 16 512 64" > "$o/variant-ab.txt" 2>&1
echo "variant-ab: rc=$? in $((SECONDS - start)) s" >> "$o/variant-ab.txt"
grep -E "^(main|work) " "$o/variant-ab.txt" | sed -E 's/ +TFLOP\/s.*ratio/ ratio/' | cut -c1-140
tail -1 "$o/variant-ab.txt"
