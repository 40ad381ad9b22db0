#!/usr/bin/env bash
# Call EG: build 77c7394 (dist/gpu.txz) on the lent H200: the tuner over the long suite (every
# configuration per shape, --iters 20) and the table it writes against the dispatcher (embedded
# H200 table, then the rule), two repetitions; the variant A/B probe (dist/variant-ab) on
# semantically equal rewrites of the ws key loop walking at every length (scripts/variant-ab.sh
# build work=. workall=... tunroll=... tkafter=... tring=..., each 77c7394's cuda-src with edits/:
# workall walk.py; tunroll walk.py unroll1.py; tkafter walk.py kafter.py; tring walk.py ring.py).
# From the checkout root on the GPU host; results in $OUT/call-eg/.
set -uo pipefail
o=${OUT:-gpu-out}/call-eg
mkdir -p "$o"
[ -d dist/gpu/bin ] || tar -xJf dist/gpu.txz -C dist
dist/variant-ab/variant-ab 11 "m128n176w12s2ws bf16 8 16 2048 128" "m128n176w12s2ws bf16 2 16 8192 128" \
  "m128n176w12s2ws f16 2 16 8192 128" "m192n80w16s4ws bf16 1 16 16384 128" "m192n128w16s4ws bf16 16 32 1024 64" \
  > "$o/variant-ab.txt" 2>&1
echo "variant-ab: rc=$?" >> "$o/variant-ab.txt"
OUT=$o/tune TUNE_ARGS='--suite long --iters 20' AB_REPS=2 TUNED_AB_ARGS='--suite long --modes graph --iters 30' \
  scripts/gpu-run.sh tune tuned-ab > "$o/tune-run.log" 2>&1
cat "$o/variant-ab.txt"
cat "$o/tune/summary.txt"
