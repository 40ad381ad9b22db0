#!/usr/bin/env bash
# Call GM: the three-consumer head-dim-64 walk with the next tile's first Q.K^T in the last turn
# (the two-consumer walk's look-ahead, 95a1065; variant a3: WsTraits::kPersistentQBuffers = 2 at
# head dim 64, short tiles not split) against main (31dbb6f), where last session's version (call GJ)
# was 2-15% slower. 1. the variant probe, 15 rounds; 2. the timeline probe of both on two shapes:
# which phase of a tile grows.
# Here: scripts/variant-ab.sh build main=HEAD a3=/tmp/var/a3 (patch a3.patch), and the timeline
# probe of each tree (scripts/timeline.sh build's nvcc line, -I the tree) as dist/timeline-{main,a3}.
set -uo pipefail
o=${OUT:-gpu-out}/call-gm
mkdir -p "$o"
scripts/variant-ab.sh run 15 \
  "m192n128w16s4ws f16 8 16 512 64" "m192n128w16s4ws f16 4 16 512 64" \
  "m192n128w16s4ws bf16 16 32 960 64" "m192n128w16s4ws bf16 16 32 1024 64" \
  "m192n128w16s4ws bf16 4 32 4096 64" > "$o/variant-ab.log" 2>&1
echo "variant-ab rc=$?" >> "$o/variant-ab.log"
for v in main a3; do
  for shape in "m192n128w16s4ws f16 8 16 512 64" "m192n128w16s4ws bf16 16 32 960 64"; do
    name="$v-$(echo $shape | tr ' ' '-')"
    dist/timeline-$v "$o/$name.bin" $shape > "$o/$name.txt" 2>&1
    python3 scripts/timeline-report.py "$o/$name.bin" >> "$o/$name.txt" 2>&1
    rm -f "$o/$name.bin"
  done
done
grep -E "ratio|rc=" "$o/variant-ab.log"
for f in "$o"/*.txt; do echo "== $f"; head -40 "$f"; done
