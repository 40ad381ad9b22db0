#!/usr/bin/env bash
# Call HR: build 07db52f (dist/gpu.txz: the causal walk) on the lent H200: the tuner over the
# causal suite and the seed suite's five causal shapes (every configuration per shape, --iters
# 20; the warp-specialized tiles now walk causal launches), then the table it writes against the
# dispatcher (embedded H200 table, then the rule) on the same shapes, two repetitions.
# From the checkout root on the GPU host; results in $OUT/call-hr/.
set -uo pipefail
o=${OUT:-gpu-out}/call-hr
mkdir -p "$o"
[ -d dist/gpu/bin ] || tar -xJf dist/gpu.txz -C dist
shapes='f16 B1 H8/8 S512x512 D64 causal,f16 B2 H8/8 S512x512 D64 causal,f16 B4 H8/8 S512x512 D64 causal,f16 B4 H16/16 S512x512 D64 causal,f16 B8 H16/16 S512x512 D64 causal'
for d in 64 128; do
  for bs in "16 1024" "8 2048" "4 4096" "2 8192" "1 16384"; do
    set -- $bs; shapes="$shapes,bf16 B$1 H16/16 S$2x$2 D$d causal"
  done
done
start=$SECONDS
OUT=$o/tune TUNE_ARGS='--suite seed,causal --iters 20' TUNE_SHAPES="$shapes" AB_REPS=2 \
  TUNED_AB_ARGS='--suite seed,causal --modes graph --iters 30' scripts/gpu-run.sh tune tuned-ab > "$o/tune-run.log" 2>&1
echo "tune, tuned-ab: rc=$? in $((SECONDS - start)) s" >> "$o/tune/summary.txt"
cat "$o/tune/summary.txt" | cut -c1-220
