#!/usr/bin/env bash
# Call HD: a tile's first Q.K^T outside the consumers' ring of turns (variant ring: each consumer
# issues it as soon as its Q and K have landed, and the ring resumes at the tile's second key
# tile; in a walk the last consumer's finish then no longer delays the first consumer's next
# turn), against cur (c560c49), 11 rounds. (The two-consumer head-dim-64 walk, whose first Q.K^T
# goes with the previous tile's last turn, changes only in its one-tile-per-CTA kernel.)
# Here: scripts/variant-ab.sh build cur=. ring=/tmp/var/ring (ring.patch).
set -uo pipefail
o=${OUT:-gpu-out}/call-hd
mkdir -p "$o"
timeout 200 scripts/variant-ab.sh run 11 "m192n128w16s4ws f16 8 16 512 64" "m192n128w16s4ws f16 4 16 512 64" \
  "m192n128w16s4ws bf16 16 32 1024 64" "m192n128w16s4ws bf16 4 32 4096 64" \
  "m192n80w16s4ws bf16 8 16 2048 128" "m192n80w16s4ws bf16 16 16 1024 128" "m128n176w12s2ws bf16 8 16 2048 128" \
  "m192n80w16s4ws bf16 2 16 8192 128" "m192n80w16s4ws bf16 2 16 8192 128 causal" \
  "m128n128w12s4ws f16 4 8 512 64" "m128n128w12s4ws f16 8 16 512 64" "m192n128w16s4ws f16 8 16 512 64 causal" \
  > "$o/variant-ab.txt" 2>&1
echo "variant-ab: rc=$?" >> "$o/variant-ab.txt"
grep -E "ratio|rc=" "$o/variant-ab.txt" | cut -c1-150
