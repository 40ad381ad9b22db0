#!/usr/bin/env bash
# Call HZ: the split tail as in HX, each stretch taking its last piece first (the tile-completing
# merges spread over time, not in one burst at the end). Variant probe built (dense kernels) from
# main f027afb and the split-tail working tree, 8 rounds; then timelines of two split shapes
# (dist/timeline, TIMELINE_SPLIT=1). Results in $OUT/call-hz/.
set -uo pipefail
o=${OUT:-gpu-out}/call-hz
mkdir -p "$o"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader > "$o/checks.txt"
start=$SECONDS
dist/variant-ab/variant-ab 8 \
  "m192n80w16s4ws bf16 16 16 1024 128 split" \
  "m192n80w16s4ws bf16 8 16 2048 128 split" \
  "m192n80w16s4ws f16 8 16 2048 128 split" \
  "m192n80w16s4ws bf16 8 16 2048 128" \
  "m192n80w16s4ws bf16 4 16 4096 128 split" \
  "m128n128w12s3ws bf16 8 16 2048 128 split" \
  "m128n128w12s3ws bf16 4 16 4096 128 split" \
  "m128n176w12s2ws bf16 8 16 2048 128 split" \
  "m192n80w16s4ws bf16 16 32 1024 128 split" \
  "m192n80w16s4ws bf16 8 16 2000 128 split keys=1900" \
  > "$o/variant-ab.txt" 2> "$o/variant-ab.err"
echo "probe: rc=$? in $((SECONDS - start)) s" >> "$o/checks.txt"
cat "$o/checks.txt"
sed -e 's/TFLOP\/s.*median ratio/med/' "$o/variant-ab.txt"
TIMELINE_SPLIT=1 OUT=$o/timeline scripts/timeline.sh run "m192n80w16s4ws bf16 16 16 1024 128" "m192n80w16s4ws bf16 8 16 2048 128" > /dev/null 2>&1
head -1 $o/timeline/*.txt
