#!/usr/bin/env bash
# Call GD: the variant A/B probe, main against two kernel variants (see the page):
#   c4n96  the head-dim-64 192-row tile replaced by 256 rows: four consumers, 96 keys, P.V reading P
#          from shared memory (stmatrix), one tile per CTA;
#   exp2c  the two-consumer tiles take the exponentials under their own P.V (one line).
# Built here: scripts/variant-ab.sh build main=HEAD c4n96=/tmp/var/c4n96 exp2c=/tmp/var/exp2c
set -u
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > "$OUT/gpu.txt" 2>&1
scripts/variant-ab.sh run 15 \
  "m192n128w16s4ws f16 4 16 512 64" \
  "m192n128w16s4ws f16 8 16 512 64" \
  "m192n128w16s4ws f16 8 16 512 64 causal" \
  "m192n128w16s4ws f16 4 8 512 64" \
  "m192n128w16s4ws f16 2 16 1000 64" \
  "m192n128w16s4ws bf16 16 32 1024 64" \
  "m192n128w16s4ws bf16 4 32 4096 64" \
  "m192n128w16s4ws f16 4 32 4096 64" \
  "m192n128w16s4ws bf16 4 32 4096 64 causal" \
  "m128n128w12s4ws f16 4 8 512 64" \
  "m128n128w12s4ws f16 2 8 512 64" \
  "m128n128w12s4ws f16 4 16 512 64" \
  "m128n128w12s4ws f16 8 16 512 64" \
  "m128n128w12s4ws bf16 16 32 1024 64" \
  "m128n128w12s4ws bf16 4 32 4096 64" \
  2>&1 | tee "$OUT/variant-ab.log"
