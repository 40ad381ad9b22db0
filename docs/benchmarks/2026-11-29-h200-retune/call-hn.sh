#!/usr/bin/env bash
# Call HN: the variant A/B probe with the one-warpgroup tiles (PROBE_FWD_TILES=1 scripts/variant-ab.sh
# build main=HEAD p16=... p8=..., dense kernels): the thirty-sixth session's poly-exp2.patch
# (docs/benchmarks/2026-11-28-h200-poly-exp/) with one n8 column tile of S in 16 (p16; none at 64
# keys, where S has 8) or in 8 (p8) taking its exponentials on the FMA pipes, measured then on the
# warp-specialized tiles only (slower on all), now on the one-warpgroup tiles the seed shapes run,
# four CTAs an SM. 15 rounds. From the checkout root on the GPU host; results in $OUT/call-hn/.
set -uo pipefail
o=${OUT:-gpu-out}/call-hn
mkdir -p "$o"
start=$SECONDS
timeout 300 scripts/variant-ab.sh run 15 \
  "m64n64w4s2 f16 4 16 512 64" "m64n64w4s2 f16 4 16 512 64 causal" "m64n64w4s2 f16 8 16 512 64 causal" \
  "m64n128w4s2 f16 2 8 512 64" "m64n128w4s2 f16 4 8 512 64 causal" > "$o/variant-ab.txt" 2>&1
echo "variant-ab: rc=$? in $((SECONDS - start)) s" >> "$o/variant-ab.txt"
grep -E "^(main|p16|p8) " "$o/variant-ab.txt" | sed -E 's/ +TFLOP\/s.*ratio/ ratio/' | cut -c1-140
tail -1 "$o/variant-ab.txt"
