#!/usr/bin/env bash
# Call FF: what the 192-row head-dim-64 tile's short last query tile costs (the variant A/B probe
# of call FD, dist/variant-ab; its two variants run the same kernels here): bf16 B16 H32 D64 at
# 960 query rows and keys (five full 192-row tiles a sequence), 1,024 (five and one of 64 rows, the
# long suite's shape) and 1,152 (six full), and the same at head dim 128 on the 80-key tile
# (B8 H16 at 1,920, 2,048 and 2,112: ten full, ten and one of 128 rows, eleven full).
set -uo pipefail
o=${OUT:-gpu-out}/call-ff
mkdir -p "$o"
dist/variant-ab/variant-ab 11 "m192n128w16s4ws bf16 16 32 960 64" "m192n128w16s4ws bf16 16 32 1024 64" \
  "m192n128w16s4ws bf16 16 32 1152 64" "m192n80w16s4ws bf16 8 16 1920 128" "m192n80w16s4ws bf16 8 16 2048 128" \
  "m192n80w16s4ws bf16 8 16 2112 128" > "$o/variant-ab.txt" 2>&1
echo "variant-ab: rc=$?" >> "$o/variant-ab.txt"
cat "$o/variant-ab.txt"
