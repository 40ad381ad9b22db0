#!/usr/bin/env bash
# Call HX: the split tail, third deal (kLast's order: full tiles in rounds, the last full tiles'
# keys split into one stretch a CTA, shorter where the CTA takes a short tile more, then the short
# tiles whole), merged with acquire/release atomics instead of __threadfence and a symmetric merge
# that keeps the completing piece's own state in registers. Variant probe built (dense kernels) from
# main f027afb and the split-tail working tree, 8 rounds. Results in $OUT/call-hx/.
set -uo pipefail
o=${OUT:-gpu-out}/call-hx
mkdir -p "$o"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader > "$o/checks.txt"
start=$SECONDS
dist/variant-ab/variant-ab 8 \
  "m192n80w16s4ws bf16 16 16 1024 128 split" \
  "m192n80w16s4ws bf16 8 16 2048 128 split" \
  "m192n80w16s4ws f16 8 16 2048 128 split" \
  "m192n80w16s4ws bf16 8 16 2048 128" \
  "m192n80w16s4ws bf16 4 16 4096 128 split" \
  "m128n128w12s3ws bf16 8 16 2048 128 split" \
  "m128n128w12s3ws bf16 4 16 4096 128 split" \
  "m128n176w12s2ws bf16 8 16 2048 128 split" \
  "m192n80w16s4ws bf16 16 32 1024 128 split" \
  "m192n80w16s4ws bf16 8 16 2000 128 split keys=1900" \
  > "$o/variant-ab.txt" 2> "$o/variant-ab.err"
echo "probe: rc=$? in $((SECONDS - start)) s" >> "$o/checks.txt"
cat "$o/checks.txt"
sed -e 's/TFLOP\/s.*median ratio/med/' "$o/variant-ab.txt"
