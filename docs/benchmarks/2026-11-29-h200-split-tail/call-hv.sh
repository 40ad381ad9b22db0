#!/usr/bin/env bash
# Call HV: the split tail, second deal (the short tiles first, the last full tiles split; light CTAs longer stretches) (variant probe dist/variant-ab/variant-ab, built with
# PROBE_EVERY_VARIANT=1 from main f027afb and the working tree of the split-tail branch):
#   1. the probe on head-dim-128 walks with a workspace (split) and without, 8 rounds;
# From the checkout root on the GPU host; results in $OUT/call-hv/.
set -uo pipefail
o=${OUT:-gpu-out}/call-hv
mkdir -p "$o"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader > "$o/checks.txt"
probe=dist/variant-ab/variant-ab
start=$SECONDS
$probe 8 \
  "m192n80w16s4ws bf16 8 16 2048 128 split" \
  "m192n80w16s4ws bf16 8 16 2048 128" \
  "m192n80w16s4ws f16 8 16 2048 128 split lse" \
  "m192n80w16s4ws bf16 16 16 1024 128 split" \
  "m192n80w16s4ws bf16 4 16 4096 128 split" \
  "m192n80w16s4ws bf16 4 16 4096 128" \
  "m192n80w16s4ws bf16 8 16 2048 128 split softcap=30" \
  "m192n80w16s4ws bf16 8 16 2048 128 split sinks lse" \
  "m192n80w16s4ws bf16 8 16 2048 128 split alibi" \
  "m192n80w16s4ws bf16 8 16 2000 128 split keys=1900" \
  "m128n176w12s2ws bf16 8 16 2048 128 split" \
  "m128n128w12s3ws bf16 8 16 2048 128 split" \
  "m128n128w12s3ws bf16 4 16 4096 128 split" \
  "m192n80w16s4ws bf16 16 32 1024 128 split" \
  "m192n80w16s4ws bf16 2 16 8192 128 split" \
  "m192n80w16s4ws bf16 8 16 2048 128 causal split" \
  "m192n128w16s4ws bf16 16 32 1024 64 split" \
  > "$o/variant-ab.txt" 2> "$o/variant-ab.err"
echo "probe: rc=$? in $((SECONDS - start)) s" >> "$o/checks.txt"
cat "$o/checks.txt"
sed -e 's/TFLOP\/s.*median ratio/med/' "$o/variant-ab.txt"
head -5 "$o/variant-ab.err"
