#!/usr/bin/env bash
# Call GL: build 95a1065 (dist/gpu.txz; every kernel's SASS as in 31dbb6f) on the lent H200. The H200
# table was last tuned before the two-consumer head-dim-64 walk took the next tile's first Q.K^T
# ahead (95a1065): does the tuner now pick that walk anywhere?
#   1. the tuner over the seed and long suites (every configuration per shape), then the tuned
#      table against the dispatcher (embedded table + rule), two alternating repetitions;
#   2. the seed and long suites beside PyTorch's SDPA backends with the tuned table.
# From the checkout root on the GPU host; results in $OUT/call-gl/.
set -uo pipefail
o=${OUT:-gpu-out}/call-gl
mkdir -p "$o"
[ -d dist/gpu/bin ] || tar -xJf dist/gpu.txz -C dist
echo "build $(cat dist/gpu/COMMIT)" > "$o/checks.txt"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader >> "$o/checks.txt"
start=$SECONDS
OUT=$o/tune TUNE_ARGS='--suite seed,long --iters 20' AB_REPS=2 \
  TUNED_AB_ARGS='--suite seed,long --modes graph --iters 30' scripts/gpu-run.sh tune tuned-ab > "$o/tune-run.log" 2>&1
echo "tune + tuned-ab: rc=$? in $((SECONDS - start)) s" >> "$o/checks.txt"
cp "$o/tune/dispatch.tsv" "$o/dispatch-tuned.tsv" 2>/dev/null
cp "$o/tune/summary.txt" "$o/tune-summary.txt" 2>/dev/null
start=$SECONDS
OUT=$o/bench FLASHATTN_DISPATCH=$o/dispatch-tuned.tsv BENCH_ARGS='run --suite seed,long --modes graph --iters 50' \
  scripts/gpu-run.sh bench > "$o/bench-run.log" 2>&1
echo "bench: rc=$? in $((SECONDS - start)) s" >> "$o/checks.txt"
cp "$o/bench/summary.txt" "$o/bench-summary.txt" 2>/dev/null
rm -rf "$o/bench/work"; rm -f "$o/bench/bench.json"
tar -czf "$o/../gl-logs.tar.gz" -C "$o" . 2>/dev/null && mv "$o/../gl-logs.tar.gz" "$o/logs.tar.gz"
find "$o" -type f ! -name checks.txt ! -name bench-summary.txt ! -name tune-summary.txt \
  ! -name dispatch-tuned.tsv ! -name logs.tar.gz -delete
find "$o" -type d -empty -delete
cat "$o/checks.txt"; tail -25 "$o/bench-summary.txt"; grep -v "^ *\(f16\|bf16\).* 1\.00[0-9]$" "$o/tune-summary.txt" | tail -40
