#!/usr/bin/env bash
# Call FD: the variant A/B probe only (dist/variant-ab, PROBE_EVERY_VARIANT=1): this commit's
# kernels (main) against the same kernels with short query tiles dealt by rotation up to 16 query
# tiles a sequence (rot16, edits/rotate16.py; host code only, the kernels' SASS is main's) on the
# 80-key 192-row tile at 2,048 keys (11 query tiles, the last of 128 rows: main deals the short
# ones after all full tiles), with score modifiers, at 2,800 keys (15 query tiles), and at 1,024
# keys (6 query tiles: rotated in both, a control). From the checkout root on the GPU host;
# results in $OUT/call-fd/.
set -uo pipefail
o=${OUT:-gpu-out}/call-fd
mkdir -p "$o"
dist/variant-ab/variant-ab 11 "m192n80w16s4ws bf16 8 16 2048 128" "m192n80w16s4ws f16 8 16 2048 128" \
  "m192n80w16s4ws bf16 8 16 2048 128 softcap=30" "m192n80w16s4ws bf16 8 16 2048 128 sinks" \
  "m192n80w16s4ws bf16 6 16 2800 128" "m192n80w16s4ws bf16 16 16 1024 128" > "$o/variant-ab.txt" 2>&1
echo "variant-ab: rc=$?" >> "$o/variant-ab.txt"
cat "$o/variant-ab.txt"
