#!/usr/bin/env bash
# Call HY: timelines of the split tail (dist/timeline built from the split-tail working tree, the
# HX deal): each shape with the whole-tile deal (kLast) and with TIMELINE_SPLIT=1. Raw records
# and reports in $OUT/call-hy/.
set -uo pipefail
o=${OUT:-gpu-out}/call-hy
mkdir -p "$o"
for spec in "m192n80w16s4ws bf16 8 16 2048 128" "m192n80w16s4ws bf16 16 16 1024 128" "m128n128w12s3ws bf16 8 16 2048 128"; do
  OUT=$o/whole scripts/timeline.sh run "$spec" > /dev/null 2>&1
  TIMELINE_SPLIT=1 OUT=$o/split scripts/timeline.sh run "$spec" > /dev/null 2>&1
done
head -1 $o/whole/*.txt $o/split/*.txt
