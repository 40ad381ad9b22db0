#!/usr/bin/env bash
# Call HE: build 21c9623 (dist/gpu.txz; its kernels SASS for SASS main 9873d0e's) on the lent H200:
# the tuner over the seed and long suites (every configuration per shape, --iters 30), the table it
# writes against the dispatcher (embedded H200 table, then the rule) in two repetitions, then the
# seed suite beside PyTorch's SDPA backends with the tuned table. The seed rows date from the
# eighteenth session, the long rows from build 77c7394: the walks, their announcements and Q's
# parts came since.
# From the checkout root on the GPU host; results in $OUT/call-he/.
set -uo pipefail
o=${OUT:-gpu-out}/call-he
mkdir -p "$o"
[ -d dist/gpu/bin ] || tar -xJf dist/gpu.txz -C dist
start=$SECONDS
OUT=$o/tune TUNE_ARGS='--suite seed,long --iters 30' AB_REPS=2 TUNED_AB_ARGS='--suite seed,long --modes graph --iters 30' \
  BENCH_ARGS='run --suite seed --modes graph --iters 50' scripts/gpu-run.sh tune tuned-ab bench > "$o/tune-run.log" 2>&1
echo "tune, tuned-ab, bench: rc=$? in $((SECONDS - start)) s" >> "$o/tune/summary.txt"
cat "$o/tune/summary.txt" | cut -c1-200
