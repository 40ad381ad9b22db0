#!/usr/bin/env bash
# Call FZ: the row sums by the tensor cores (P.V with N = 72 against a tile of ones after V, head dim 64),
# as a variant of the working tree at 75b2187 against main in one process (scripts/variant-ab.sh):
#   scripts/variant-ab.sh build main=HEAD rs=/tmp/var/rs   (rs: cuda-src with kRowSumsByMmaRequested = true)
# O differs from main by design (the sums of the rounded P); NaN would show. Results in $OUT/call-fz/.
set -uo pipefail
o=${OUT:-gpu-out}/call-fz
mkdir -p "$o"
timeout 400 scripts/variant-ab.sh run 15 \
  "m192n128w16s4ws f16 4 16 512 64" "m192n128w16s4ws f16 8 16 512 64" "m192n128w16s4ws f16 8 16 512 64 causal" \
  "m128n128w12s4ws f16 4 8 512 64" "m192n128w16s4ws bf16 16 32 1024 64" "m192n128w16s4ws bf16 4 32 4096 64" \
  "m192n128w16s4ws f16 4 32 4096 64" "m192n128w16s4ws bf16 4 32 4096 64 causal" \
  "m128n176w12s2ws bf16 8 16 2048 128" "m192n128w16s4ws bf16 16 32 1024 64 lse" "m192n128w16s4ws f16 2 16 1000 64" \
  > "$o/variant-ab.log" 2>&1
echo "rc=$?" >> "$o/variant-ab.log"
tail -80 "$o/variant-ab.log"
