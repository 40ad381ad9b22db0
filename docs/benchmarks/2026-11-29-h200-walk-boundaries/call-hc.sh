#!/usr/bin/env bash
# Call HC: whether the head-dim-128 walk now pays beyond 4,096 keys (WsTraits::kWalkMaxKeys: before
# the announcements 8,192 and 16,384 keys walked 0.5-1.4% slower than one tile per CTA). Variant
# wl16k = 21c9623 with kWalkMaxKeys = 16384, against cur (21c9623), 11 rounds.
# Here: scripts/variant-ab.sh build cur=. wl16k=/tmp/var/wl16k.
set -uo pipefail
o=${OUT:-gpu-out}/call-hc
mkdir -p "$o"
timeout 200 scripts/variant-ab.sh run 11 "m192n80w16s4ws bf16 2 16 8192 128" "m192n80w16s4ws f16 2 16 8192 128" \
  "m192n80w16s4ws bf16 1 16 16384 128" "m128n176w12s2ws bf16 2 16 8192 128" "m128n128w12s3ws bf16 2 16 8192 128" \
  "m192n80w16s4ws bf16 4 16 4096 128" > "$o/variant-ab.txt" 2>&1
echo "variant-ab: rc=$?" >> "$o/variant-ab.txt"
grep -E "ratio|rc=" "$o/variant-ab.txt" | cut -c1-150
