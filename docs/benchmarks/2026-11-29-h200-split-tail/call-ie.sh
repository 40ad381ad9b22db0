#!/usr/bin/env bash
# Call IE: can the merges' burst be spread? Variant probe (dense kernels) of main f027afb against
# the split tail with the gate's piece cost at 2 key tiles (cost2.patch: every shape here splits)
# and the same with every other CTA taking its stretch's last piece first (parity.patch: half the
# tiles then complete early, at times that vary with the cuts, the other half at the stretches'
# end), 8 rounds. Results in $OUT/call-ie/.
set -uo pipefail
o=${OUT:-gpu-out}/call-ie
mkdir -p "$o"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader > "$o/checks.txt"
start=$SECONDS
dist/variant-ab/variant-ab 8 \
  "m192n80w16s4ws bf16 8 16 2048 128 split" \
  "m192n80w16s4ws bf16 16 16 1024 128 split" \
  "m192n80w16s4ws bf16 16 32 1024 128 split" \
  "m192n80w16s4ws bf16 4 16 4096 128 split" \
  "m128n176w12s2ws bf16 8 16 2048 128 split" \
  "m128n128w12s3ws bf16 8 16 2048 128 split" \
  "m192n80w16s4ws bf16 2 16 8192 128 split" \
  > "$o/variant-ab.txt" 2> "$o/variant-ab.err"
echo "probe: rc=$? in $((SECONDS - start)) s" >> "$o/checks.txt"
cat "$o/checks.txt"
sed -e 's/TFLOP\/s.*median ratio/med/' "$o/variant-ab.txt"
