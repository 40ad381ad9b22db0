#!/usr/bin/env bash
# Call GN: the three-consumer head-dim-64 walk with a second Q buffer (variant q2: the next tile's
# Q loaded a tile early, tiles otherwise as main's; short tiles still split) and with the look-ahead
# (a3, as in call GM) against main (31dbb6f). Call GM's timeline put the next tile's Q landing
# 3,450 cycles after a tile's last turn at f16 B8 H16 S512, its first S 666 cycles later.
# 1. the variant probe, 15 rounds; 2. the timeline probe of each on two shapes (records kept, xz).
# Here: scripts/variant-ab.sh build main=HEAD q2=/tmp/var/q2 a3=/tmp/var/a3 (patches q2.patch,
# a3.patch), and dist/timeline-{main,q2,a3} (scripts/timeline.sh build's nvcc line, -I the tree).
set -uo pipefail
o=${OUT:-gpu-out}/call-gn
mkdir -p "$o"
scripts/variant-ab.sh run 15 \
  "m192n128w16s4ws f16 8 16 512 64" "m192n128w16s4ws f16 4 16 512 64" \
  "m192n128w16s4ws bf16 16 32 960 64" "m192n128w16s4ws bf16 16 32 1024 64" \
  "m192n128w16s4ws bf16 4 32 4096 64" "m192n128w16s4ws f16 2 16 1000 64" \
  "m192n128w16s4ws bf16 16 32 1024 64 lse" "m128n128w12s4ws f16 8 16 512 64" > "$o/variant-ab.log" 2>&1
echo "variant-ab rc=$?" >> "$o/variant-ab.log"
for v in main q2 a3; do
  for shape in "m192n128w16s4ws f16 8 16 512 64" "m192n128w16s4ws bf16 16 32 960 64"; do
    name="$v-$(echo $shape | tr ' ' '-')"
    dist/timeline-$v "$o/$name.bin" $shape > "$o/$name.txt" 2>&1
    python3 scripts/timeline-report.py "$o/$name.bin" >> "$o/$name.txt" 2>&1
    xz -T4 "$o/$name.bin"
  done
done
grep -E "ratio|rc=" "$o/variant-ab.log" | cut -c1-150
for f in "$o"/*f16-8-16-512*.txt; do echo "== $f"; sed -n '3,40p' "$f"; done
for f in "$o"/*bf16-16-32-960*.txt; do echo "== $f"; grep -E "^m192|steady|walk:|beyond|span" "$f"; done
