#!/usr/bin/env bash
# Call GQ: the hand-over as it will land (variant hand: this checkout, dense walks only) and with
# a second Q buffer in the three-consumer walk (hq2, hq2.patch): with the consumers no longer
# working out the next tile, call GP's timeline left about 980 cycles between consumer 0's store
# of O and its next Q, which one buffer loads only after the tile's last Q.K^T. Against main
# (31dbb6f): 1. the variant probe, 15 rounds; 2. the timeline probe of the three.
# Here: scripts/variant-ab.sh build main=HEAD hand=. hq2=/tmp/var/hq2, dist/timeline-{main,hand,hq2}.
set -uo pipefail
o=${OUT:-gpu-out}/call-gq
mkdir -p "$o"
scripts/variant-ab.sh run 15 \
  "m192n128w16s4ws f16 8 16 512 64" "m192n128w16s4ws f16 4 16 512 64" \
  "m192n128w16s4ws bf16 16 32 960 64" "m192n128w16s4ws bf16 16 32 1024 64" \
  "m192n128w16s4ws bf16 4 32 4096 64" "m192n128w16s4ws f16 2 16 1000 64" \
  "m128n128w12s4ws f16 8 16 512 64" "m128n128w12s4ws bf16 16 32 1024 64" \
  "m192n80w16s4ws bf16 8 16 2048 128" "m128n176w12s2ws bf16 8 16 2048 128" \
  "m192n80w16s4ws bf16 16 16 1024 128" \
  "m192n80w16s4ws bf16 2 16 8192 128" "m192n128w16s4ws f16 8 16 512 64 causal" > "$o/variant-ab.log" 2>&1
echo "variant-ab rc=$?" >> "$o/variant-ab.log"
for v in main hand hq2; do
  for shape in "m192n128w16s4ws f16 8 16 512 64" "m192n128w16s4ws bf16 16 32 960 64"; do
    name="$v-$(echo $shape | tr ' ' '-')"
    dist/timeline-$v "$o/$name.bin" $shape > "$o/$name.txt" 2>&1
    python3 scripts/timeline-report.py "$o/$name.bin" >> "$o/$name.txt" 2>&1
    rm -f "$o/$name.bin"
  done
done
grep -E "ratio|rc=" "$o/variant-ab.log" | cut -c1-150
for f in "$o"/*f16-8-16-512*.txt; do echo "== $f"; sed -n '3,40p' "$f"; done
for f in "$o"/*bf16-16-32-960*.txt; do echo "== $f"; grep -E "^m192|steady|walk:|beyond|span|O staged|last P.V" "$f"; done
