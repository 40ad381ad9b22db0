#!/usr/bin/env bash
# Call AP: the probe probe/busy_launch.cu (built here with
# `nvcc -arch=sm_90a -O2 -o dist/busy_launch probe/busy_launch.cu`), twice: host cost per launch
# of kernels shaped like our launches, empty and spinning 8 or 26 us. Results in $OUT/call-ap/.
set -uo pipefail
o=${OUT:-gpu-out}/call-ap; mkdir -p "$o"
for r in 1 2; do dist/busy_launch > "$o/busy-$r.txt" 2>&1; echo "run $r: rc=$?" >> "$o/summary.txt"; done
cat "$o/summary.txt" "$o"/busy-*.txt
