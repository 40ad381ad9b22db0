#!/usr/bin/env bash
# Prepared for the next session (not run yet): why f16 B2 H8 S512 (128 CTAs, 16-byte O stores) read 1.026x slower
# after 97ac5ad (call KG). The variant probe, 40 rounds a shape, O compared bit for bit:
#   main   = 1abed09 (no O map in the kernel's argument)
#   store  = 97ac5ad's kernels (the map, two uniform branches on o_by_tma, TMA stores above the SM count)
#   params = store with param-only.patch (the map in the argument, no branch, 16-byte stores always)
# params ~ store slower than main: the larger parameter block; params ~ main: the branches.
# Here: PROBE_FWD_TILES=1 scripts/variant-ab.sh build main=1abed09 store=HEAD \
#         params=HEAD+docs/benchmarks/2026-11-30-h200-o-store/param-only.patch, packed as dist/b2h8.txz.
set -uo pipefail
o=${OUT:-gpu-out}/probe-b2h8
mkdir -p "$o" dist/b2h8 && tar -xJf dist/b2h8.txz -C dist/b2h8
timeout 300 dist/b2h8/variant-ab 40 \
  "m64n128w4s2 f16 2 8 512 64" "m64n128w4s3 f16 2 8 512 64 causal" "m64n64w4s2 f16 1 8 512 64" \
  "m64n128w4s2 f16 4 8 512 64 causal" "m128n128w8s2 f16 4 16 512 64" "m64n64w4s2 f16 8 16 512 64 causal" \
  > "$o/variant-ab.txt" 2>&1
echo "variant-ab: rc=$?" >> "$o/variant-ab.txt"
grep -E "^(store|params) " "$o/variant-ab.txt" | sed -E 's/ +TFLOP\/s.*ratio/ ratio/; s/ +p50 +/ /' | awk '{$NF=$NF; print}' | cut -c1-120
