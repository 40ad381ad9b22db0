#!/usr/bin/env bash
# Call GE: build 644804a (dist/gpu.txz: the four-consumer head-dim-64 tile, m256n96w20s4ws, and the
# two-consumer tiles' exponentials under their own P.V) on the lent H200:
#   1. flashattn-bench A/B against main's kernels (dist/main-bench-d7637fa.xz), seed and long
#      suites, two alternating pairs pooled: the embedded tables, so every shape runs main's choice
#      of tile (the new tile is in no table and not in the built-in rule);
#   2. the tuner over the seed suite (every configuration per shape, the new tile among them);
#   3. the seed suite beside PyTorch's SDPA backends with that tuned table (FLASHATTN_DISPATCH);
#   4. the tuned table against the dispatcher, same run.
# From the checkout root on the GPU host; results in $OUT/call-ge/.
set -uo pipefail
o=${OUT:-gpu-out}/call-ge
mkdir -p "$o"
[ -d dist/gpu/bin ] || tar -xJf dist/gpu.txz -C dist
echo "build $(cat dist/gpu/COMMIT)" > "$o/checks.txt"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >> "$o/checks.txt"
start=$SECONDS
OUT=$o/ab AB_OLD=dist/main-bench-d7637fa.xz AB_REPS=2 AB_ARGS='--suite seed,long --modes graph --iters 30' \
  scripts/gpu-run.sh ab > "$o/ab-run.log" 2>&1
echo "ab: rc=$? in $((SECONDS - start)) s" >> "$o/checks.txt"
cp "$o/ab/ab-pooled.txt" "$o/ab-pooled.txt" 2>/dev/null
start=$SECONDS
OUT=$o/tune TUNE_ARGS='--suite seed --iters 30' scripts/gpu-run.sh tune > "$o/tune-run.log" 2>&1
echo "tune: rc=$? in $((SECONDS - start)) s" >> "$o/checks.txt"
cp "$o/tune/dispatch.tsv" "$o/dispatch-seed.tsv" 2>/dev/null
start=$SECONDS
OUT=$o/bench FLASHATTN_DISPATCH=$o/dispatch-seed.tsv BENCH_ARGS='run --suite seed --modes graph --iters 50' \
  scripts/gpu-run.sh bench > "$o/bench-run.log" 2>&1
echo "bench: rc=$? in $((SECONDS - start)) s" >> "$o/checks.txt"
cp "$o/bench/summary.txt" "$o/bench-summary.txt" 2>/dev/null
start=$SECONDS
mkdir -p "$o/tune/work" && cp "$o/dispatch-seed.tsv" "$o/tune/work/dispatch.tsv"
KEEP_WORK=1 OUT=$o/tune AB_REPS=2 TUNED_AB_ARGS='--suite seed --modes graph --iters 30' scripts/gpu-run.sh tuned-ab > "$o/tuned-ab-run.log" 2>&1
echo "tuned-ab: rc=$? in $((SECONDS - start)) s" >> "$o/checks.txt"
cp "$o/tune/summary.txt" "$o/tune-summary.txt" 2>/dev/null
rm -rf "$o/ab/work" "$o/bench/work" "$o/tune/work"; rm -f "$o/bench/bench.json"
tar -czf "$o/../ge-logs.tar.gz" -C "$o" . 2>/dev/null && mv "$o/../ge-logs.tar.gz" "$o/logs.tar.gz"
find "$o" -type f ! -name checks.txt ! -name ab-pooled.txt ! -name bench-summary.txt ! -name tune-summary.txt \
  ! -name dispatch-seed.tsv ! -name logs.tar.gz -delete
cat "$o/checks.txt" "$o/ab-pooled.txt"; tail -16 "$o/bench-summary.txt"; tail -30 "$o/tune-summary.txt"
