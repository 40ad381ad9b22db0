#!/usr/bin/env bash
# Call GJ: the variant A/B probe, main (7896845) against `fused` (call-gj/fused.patch): ahead2q with
# the next tile's first Q.K^T issued inside the turn of this tile's last P.V (one turn fewer a tile): the persistent
# head-dim-64 walk takes each tile's first turn and Q.K^T right after the previous tile's last P.V
# and stages the previous tile's O under it. Built here:
#   scripts/variant-ab.sh build main=HEAD fused=/tmp/var/rot3
set -u
mkdir -p "$OUT"
scripts/variant-ab.sh run 15 \
  "m192n128w16s4ws f16 8 16 512 64" \
  "m192n128w16s4ws bf16 16 32 1024 64" \
  "m192n128w16s4ws bf16 16 32 1024 64 lse" \
  "m192n128w16s4ws bf16 4 32 4096 64" \
  "m192n128w16s4ws f16 4 32 4096 64" \
  "m192n128w16s4ws f16 2 16 1000 64" \
  "m192n128w16s4ws f16 4 16 512 64" \
  "m128n128w12s4ws f16 8 16 512 64" \
  "m128n128w12s4ws f16 4 16 512 64" \
  "m128n128w12s4ws bf16 16 32 1024 64" \
  "m192n128w16s4ws f16 8 16 512 64 causal" \
  "m128n128w12s4ws f16 4 8 512 64" \
  "m192n80w16s4ws bf16 8 16 2048 128" \
  2>&1 | tee "$OUT/variant-ab.log"
