#!/usr/bin/env bash
# Call IA: the split tail with its cost gate (kSplitTailPieceCost 9 key tiles) and walking past
# the head-dim-128 key limit where it splits (S8192, S16384). Variant probe built with
# PROBE_EVERY_VARIANT=1 from main f027afb and the split-tail working tree, 8 rounds.
# Results in $OUT/call-ia/.
set -uo pipefail
o=${OUT:-gpu-out}/call-ia
mkdir -p "$o"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader > "$o/checks.txt"
start=$SECONDS
dist/variant-ab/variant-ab 8 \
  "m192n80w16s4ws bf16 2 16 8192 128 split" \
  "m192n80w16s4ws f16 2 16 8192 128 split" \
  "m192n80w16s4ws bf16 1 16 16384 128 split" \
  "m192n80w16s4ws bf16 4 16 4096 128 split" \
  "m128n128w12s3ws bf16 4 16 4096 128 split" \
  "m192n80w16s4ws bf16 2 16 8192 128 split softcap=30" \
  "m192n80w16s4ws bf16 2 16 8192 128 split sinks lse" \
  "m192n80w16s4ws bf16 2 16 8192 128 split alibi" \
  "m192n80w16s4ws bf16 8 16 2048 128 split" \
  "m192n80w16s4ws bf16 2 16 8192 128" \
  > "$o/variant-ab.txt" 2> "$o/variant-ab.err"
echo "probe: rc=$? in $((SECONDS - start)) s" >> "$o/checks.txt"
cat "$o/checks.txt"
sed -e 's/TFLOP\/s.*median ratio/med/' "$o/variant-ab.txt"
