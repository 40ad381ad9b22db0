#!/usr/bin/env bash
# Call JI: the variant A/B probe with the one-warpgroup tiles (PROBE_FWD_TILES=1
# scripts/variant-ab.sh build main=HEAD work=., dense kernels): `work` leaves the 64-key
# head-dim-64 plain-schedule tile's P.V in flight into the next turn (a third V buffer).
# 30 rounds, O compared bit for bit. Here: the probe packed as dist/ji.txz. From the checkout
# root on the GPU host; results in $OUT/call-ji/.
set -uo pipefail
o=${OUT:-gpu-out}/call-ji
mkdir -p "$o"
mkdir -p dist/ji && tar -xJf dist/ji.txz -C dist/ji
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader > "$o/device.txt"
start=$SECONDS
timeout 400 dist/ji/variant-ab 30 \
  "m64n64w4s2 f16 4 16 512 64" "m64n64w4s2 f16 4 16 512 64 causal" "m64n64w4s2 f16 8 16 512 64 causal" \
  "m64n64w4s2 f16 8 16 512 64" "m64n64w4s2 bf16 16 16 1024 64 causal" "m64n64w4s2 f16 2 8 512 64" \
  "m64n64w4s2 f16 1 8 512 64" "m64n64w4s2 bf16 2 8 1023 64" "m64n64w4s2 f16 3 7 113 64" \
  "m64n64w4s2 bf16 2 4 239 64 causal" "m64n128w4s2 f16 2 8 512 64" > "$o/variant-ab.txt" 2>&1
echo "variant-ab: rc=$? in $((SECONDS - start)) s" >> "$o/variant-ab.txt"
grep -E "^(main|work) " "$o/variant-ab.txt" | sed -E 's/ +TFLOP\/s.*ratio/ ratio/' | cut -c1-140
tail -1 "$o/variant-ab.txt"
