#!/usr/bin/env bash
# Call HM: the variant A/B probe with the one-warpgroup tiles (PROBE_FWD_TILES=1 scripts/variant-ab.sh
# build main=HEAD plain3=HEAD+plain3.patch plain3b=HEAD+plain3.patch+plain3b.patch, dense kernels):
# `plain3b` is `plain3` launched without the 1 KB by which the one-warpgroup tiles' shared memory
# is rounded up for its alignment (the kernel traps where the base is not 1024-aligned), so that
# the three-buffer 64-key tile takes 56 KB and four CTAs fit an SM. 15 rounds.
# From the checkout root on the GPU host; results in $OUT/call-hm/.
set -uo pipefail
o=${OUT:-gpu-out}/call-hm
mkdir -p "$o"
start=$SECONDS
timeout 300 scripts/variant-ab.sh run 15 \
  "m64n64w4s2 f16 4 16 512 64" "m64n64w4s3 f16 4 16 512 64" "m64n64w4s2 f16 4 16 512 64 causal" \
  "m64n64w4s3 f16 4 16 512 64 causal" "m64n64w4s2 f16 8 16 512 64 causal" "m64n64w4s3 f16 8 16 512 64 causal" \
  "m64n64w4s2 f16 8 16 512 64" "m64n64w4s3 f16 8 16 512 64" "m64n128w4s2 f16 2 8 512 64" \
  "m192n128w16s4ws f16 8 16 512 64" > "$o/variant-ab.txt" 2>&1
echo "variant-ab: rc=$? in $((SECONDS - start)) s" >> "$o/variant-ab.txt"
grep -E "^(main|plain3|plain3b) " "$o/variant-ab.txt" | sed -E 's/ +TFLOP\/s.*ratio/ ratio/' | cut -c1-140
tail -1 "$o/variant-ab.txt"
