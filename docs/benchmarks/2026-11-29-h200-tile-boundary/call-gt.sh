#!/usr/bin/env bash
# Call GT: the walk's end announced like a tile (variant sent, sent.patch: after its last tile the
# producer writes a slot saying so and completes that Q buffer's barrier without a copy; a
# consumer waits for the next announcement instead of stepping the schedule, whose launch-wide
# tile count came from the parameters), against main before the hand-over (31dbb6f) and with it
# (hand, a8c6ab1). 1. the variant probe, 15 rounds, under a timeout (a lost announcement hangs);
# 2. the timeline probe of sent on two shapes (main's and hand's are calls GQ's).
# Here: scripts/variant-ab.sh build main=31dbb6f hand=HEAD sent=/tmp/var/sent, dist/timeline-sent.
set -uo pipefail
o=${OUT:-gpu-out}/call-gt
mkdir -p "$o"
timeout 240 scripts/variant-ab.sh run 15 \
  "m192n128w16s4ws f16 8 16 512 64" "m192n128w16s4ws f16 4 16 512 64" \
  "m192n128w16s4ws bf16 16 32 960 64" "m192n128w16s4ws bf16 16 32 1024 64" \
  "m192n128w16s4ws bf16 4 32 4096 64" "m192n128w16s4ws f16 2 16 1000 64" \
  "m128n128w12s4ws f16 8 16 512 64" "m128n128w12s4ws bf16 16 32 1024 64" \
  "m128n128w12s4ws f16 4 16 512 64" "m128n128w12s4ws f16 2 16 1000 64" \
  "m192n128w16s4ws bf16 16 32 1024 64 lse" > "$o/variant-ab.log" 2>&1
echo "variant-ab rc=$?" >> "$o/variant-ab.log"
for shape in "m192n128w16s4ws f16 8 16 512 64" "m192n128w16s4ws bf16 16 32 960 64"; do
  name="sent-$(echo $shape | tr ' ' '-')"
  timeout 60 dist/timeline-sent "$o/$name.bin" $shape > "$o/$name.txt" 2>&1
  python3 scripts/timeline-report.py "$o/$name.bin" >> "$o/$name.txt" 2>&1
  rm -f "$o/$name.bin"
done
grep -E "ratio|rc=" "$o/variant-ab.log" | cut -c1-150
for f in "$o"/*f16-8-16-512*.txt; do echo "== $f"; sed -n '3,40p' "$f"; done
for f in "$o"/*bf16-16-32-960*.txt; do echo "== $f"; grep -E "^m192|steady|walk:|beyond|span|O staged|last P.V" "$f"; done
