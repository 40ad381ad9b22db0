#!/usr/bin/env bash
# Call HA: the one-tile-per-CTA kernels after the change (GZ's A/B had f16 B4 H8 S512, 64 tiles of
# the 128-row tile, 1.012 [1.010, 1.016] against main, drift about 1.004): the variant probe of
# call GY (main=fffe18d, rel, new=65b7dc1), 21 rounds, on launches with fewer tiles than SMs or
# more keys than the walk takes.
set -uo pipefail
o=${OUT:-gpu-out}/call-ha
mkdir -p "$o"
timeout 200 dist/variant-ab/variant-ab 21 "m128n128w12s4ws f16 4 8 512 64" "m128n128w12s4ws f16 2 8 512 64" \
  "m192n128w16s4ws f16 4 8 512 64" "m192n80w16s4ws f16 2 16 8192 128" "m192n80w16s4ws bf16 2 16 8192 128" \
  "m128n176w12s2ws bf16 2 16 8192 128" "m128n128w12s4ws f16 8 16 512 64" > "$o/variant-ab.txt" 2>&1
echo "variant-ab: rc=$?" >> "$o/variant-ab.txt"
grep -E "ratio|rc=" "$o/variant-ab.txt" | cut -c1-150
