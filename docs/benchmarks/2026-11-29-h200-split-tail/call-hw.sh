#!/usr/bin/env bash
# Call HW: where the split tail's time goes (variant probe built from main f027afb, the split-tail
# working tree `new`, and two patches onto it: nomerge.patch, each piece finishes its own partial
# O with no state written or merged (wrong O, timing only); order.patch, the split tail's order,
# the short tiles first, dealt in whole tiles round robin with no pieces). 6 rounds.
# From the checkout root on the GPU host; results in $OUT/call-hw/.
set -uo pipefail
o=${OUT:-gpu-out}/call-hw
mkdir -p "$o"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader > "$o/checks.txt"
start=$SECONDS
dist/variant-ab/variant-ab 6 \
  "m192n80w16s4ws bf16 16 16 1024 128 split" \
  "m192n80w16s4ws bf16 8 16 2048 128 split" \
  "m192n80w16s4ws bf16 4 16 4096 128 split" \
  "m128n128w12s3ws bf16 8 16 2048 128 split" \
  "m192n80w16s4ws bf16 16 32 1024 128 split" \
  > "$o/variant-ab.txt" 2> "$o/variant-ab.err"
echo "probe: rc=$? in $((SECONDS - start)) s" >> "$o/checks.txt"
cat "$o/checks.txt"
sed -e 's/TFLOP\/s.*median ratio/med/' "$o/variant-ab.txt"
