#!/usr/bin/env bash
# Call GG: the variant A/B probe, main (86a6657) against `early` (call-gg/early.patch): a consumer
# rescales O and waits for V's arrival before it takes its turn at the tensor cores, so the turn
# holds only the two issues (Q.K^T of key tile j, P.V of j - 1). Built here:
#   scripts/variant-ab.sh build main=HEAD early=/tmp/var/early
set -u
mkdir -p "$OUT"
scripts/variant-ab.sh run 15 \
  "m192n128w16s4ws f16 8 16 512 64" \
  "m192n128w16s4ws f16 8 16 512 64 causal" \
  "m192n128w16s4ws bf16 16 32 1024 64" \
  "m192n128w16s4ws bf16 4 32 4096 64" \
  "m192n128w16s4ws f16 4 32 4096 64" \
  "m128n128w12s4ws f16 4 8 512 64" \
  "m192n80w16s4ws bf16 8 16 2048 128" \
  "m192n80w16s4ws bf16 1 16 16384 128" \
  "m192n80w16s4ws bf16 4 16 4096 128 causal" \
  "m128n176w12s2ws bf16 2 16 8192 128" \
  "m128n176w12s2ws f16 2 16 8192 128" \
  2>&1 | tee "$OUT/variant-ab.log"
