#!/usr/bin/env bash
# Call GC: the exponentials under the own P.V (kExpUnderPV) at head dim 64 too, after call GA put the
# previous P.V's completion on the consumer's chain; variant of main 9464bc7 (one line in ws_kernel.cuh):
#   scripts/variant-ab.sh build main=HEAD eup=/tmp/var/eup   (eup: kExpUnderPV = !F::kScoreMod)
# O must be bitwise main's (same arithmetic, another order). Results in $OUT/call-gc/.
set -uo pipefail
o=${OUT:-gpu-out}/call-gc
mkdir -p "$o"
timeout 200 scripts/variant-ab.sh run 15 \
  "m192n128w16s4ws f16 4 16 512 64" "m192n128w16s4ws f16 8 16 512 64" "m192n128w16s4ws f16 8 16 512 64 causal" \
  "m128n128w12s4ws f16 4 8 512 64" "m192n128w16s4ws bf16 16 32 1024 64" "m192n128w16s4ws bf16 4 32 4096 64" \
  "m192n128w16s4ws f16 4 32 4096 64" "m192n128w16s4ws bf16 4 32 4096 64 causal" \
  "m128n176w12s2ws bf16 8 16 2048 128" "m192n128w16s4ws bf16 16 32 1024 64 lse" "m192n128w16s4ws f16 2 16 1000 64" \
  > "$o/variant-ab.log" 2>&1
echo "rc=$?" >> "$o/variant-ab.log"
tail -80 "$o/variant-ab.log"
