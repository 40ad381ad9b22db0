#!/usr/bin/env bash
# Call FV: a share of the softmax's exponentials on the FMA pipes (sm80::poly_exp2, used by the
# sm90 WarpgroupTile::exponentiate for one n8 tile of S in kPolyExpPeriod), as variants of the
# working tree at b8eb63d timed against main in one process (scripts/variant-ab.sh):
#   scripts/variant-ab.sh build main=HEAD p8=/tmp/var/p8 p4=/tmp/var/p4 p3=/tmp/var/p3
# (pN: the working tree's cuda-src with kPolyExpPeriod = N; main: b8eb63d, whose kernels are
# 4aa9223's). O differs from main's by design (another exp2), so the bitwise check reports the
# elements that differ; their size is for the fuzzer to judge. Results in $OUT/call-fv/.
set -uo pipefail
o=${OUT:-gpu-out}/call-fv
mkdir -p "$o"
timeout 400 scripts/variant-ab.sh run 15 \
  "m192n128w16s4ws f16 4 16 512 64" "m192n128w16s4ws f16 8 16 512 64" "m192n128w16s4ws f16 8 16 512 64 causal" \
  "m128n128w12s4ws f16 4 8 512 64" "m192n128w16s4ws bf16 16 32 1024 64" "m192n128w16s4ws bf16 4 32 4096 64" \
  "m192n128w16s4ws f16 4 32 4096 64" "m192n128w16s4ws bf16 4 32 4096 64 causal" \
  "m128n176w12s2ws bf16 8 16 2048 128" "m128n176w12s2ws bf16 2 16 8192 128" "m128n176w12s2ws f16 2 16 8192 128" \
  > "$o/variant-ab.log" 2>&1
echo "rc=$?" >> "$o/variant-ab.log"
tail -80 "$o/variant-ab.log"
