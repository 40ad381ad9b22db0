#!/usr/bin/env bash
# Call GA: the timeline probe (scripts/timeline.sh, main 75b2187's kernels) on head-dim-64 shapes,
# for the turn-to-turn cost of a key tile against the tensor cores' share of it. Results in
# $OUT/call-ga/ (the .bin records and each report).
set -uo pipefail
o=${OUT:-gpu-out}/call-ga
mkdir -p "$o"
OUT=$o timeout 300 scripts/timeline.sh run "m192n128w16s4ws bf16 16 32 1024 64" "m192n128w16s4ws f16 8 16 512 64" \
  "m192n128w16s4ws bf16 4 32 4096 64" "m128n128w12s4ws f16 4 8 512 64" > "$o/reports.txt" 2>&1
echo "rc=$?" >> "$o/reports.txt"
rm -f "$o"/*.bin
cat "$o/reports.txt" | head -150
