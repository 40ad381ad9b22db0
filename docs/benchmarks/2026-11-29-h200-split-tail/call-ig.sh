#!/usr/bin/env bash
# Call IG: the final tree (8547d25; its 61 probe kernels SASS for SASS 9bd5c52's, which calls IB-IF
# tested) on the variant probe (dense kernels) against main f027afb, 8 rounds: the split shapes and
# one the gate leaves whole. Results in $OUT/call-ig/.
set -uo pipefail
o=${OUT:-gpu-out}/call-ig
mkdir -p "$o"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader > "$o/checks.txt"
start=$SECONDS
dist/variant-ab/variant-ab 8 \
  "m192n80w16s4ws bf16 2 16 8192 128 split" \
  "m192n80w16s4ws f16 2 16 8192 128 split" \
  "m192n80w16s4ws bf16 1 16 16384 128 split" \
  "m192n80w16s4ws bf16 4 16 4096 128 split" \
  "m128n128w12s3ws bf16 4 16 4096 128 split" \
  "m192n80w16s4ws bf16 8 16 2048 128 split" \
  > "$o/variant-ab.txt" 2> "$o/variant-ab.err"
echo "probe: rc=$? in $((SECONDS - start)) s" >> "$o/checks.txt"
cat "$o/checks.txt"
sed -e 's/TFLOP\/s.*median ratio/med/' "$o/variant-ab.txt"
