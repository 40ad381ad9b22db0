#!/usr/bin/env bash
# Call HL: the variant A/B probe with the one-warpgroup tiles of fwd_kernel.cuh (PROBE_FWD_TILES=1
# scripts/variant-ab.sh build main=HEAD plain3=HEAD+plain3.patch, dense kernels; the probe files of
# the checkout, which can now compile those tiles): `plain3` runs the three-buffer 64-key tile on
# the plain schedule (each key tile's Q.K^T, softmax and P.V in turn, two tiles' copies ahead)
# instead of the overlapped one, whose second S accumulator takes it to 161 registers and three
# CTAs an SM; the plain one needs about 98, four CTAs an SM, as the two-buffer tile the H200 table
# gives B4 H16. Same-process times of m64n64w4s2 (unchanged: the run's noise) and m64n64w4s3 in both.
# 15 rounds. From the checkout root on the GPU host; results in $OUT/call-hl/.
set -uo pipefail
o=${OUT:-gpu-out}/call-hl
mkdir -p "$o"
start=$SECONDS
timeout 300 scripts/variant-ab.sh run 15 \
  "m64n64w4s2 f16 4 16 512 64" "m64n64w4s3 f16 4 16 512 64" "m64n64w4s2 f16 4 16 512 64 causal" \
  "m64n64w4s3 f16 4 16 512 64 causal" "m64n64w4s2 f16 8 16 512 64 causal" "m64n64w4s3 f16 8 16 512 64 causal" \
  "m64n64w4s2 f16 8 16 512 64" "m64n64w4s3 f16 8 16 512 64" "m64n128w4s2 f16 2 8 512 64" \
  "m192n128w16s4ws f16 8 16 512 64" > "$o/variant-ab.txt" 2>&1
echo "variant-ab: rc=$? in $((SECONDS - start)) s" >> "$o/variant-ab.txt"
grep -E "^(main|plain3) " "$o/variant-ab.txt" | sed -E 's/ +TFLOP\/s.*ratio/ ratio/' | cut -c1-140
tail -1 "$o/variant-ab.txt"
