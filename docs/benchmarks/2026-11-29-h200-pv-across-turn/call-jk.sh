#!/usr/bin/env bash
# Call JK: the pack of eb5dd93 (the producer's K and V copies through one step; every other
# kernel as d662048's):
# 1. every GPU test of the pack;
# 2. flashattn-bench A/B against d662048's build (seed, long and sweep suites, two pairs pooled,
#    the gate's rule);
# 3. the seed and long suites beside PyTorch's SDPA backends.
# Here: scripts/gpu-pack.sh (dist/gpu.txz); d662048's flashattn-bench as dist/old-bench.xz.
set -uo pipefail
o=${OUT:-gpu-out}/call-jk
mkdir -p "$o"
[ -d dist/gpu/bin ] || tar -xJf dist/gpu.txz -C dist
echo "build $(cat dist/gpu/COMMIT)" > "$o/checks.txt"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader >> "$o/checks.txt"
start=$SECONDS
OUT=$o/tests scripts/gpu-run.sh tests > "$o/tests-run.log" 2>&1
echo "tests: in $((SECONDS - start)) s" >> "$o/checks.txt"
grep -E "^test |configs:|grid:" "$o/tests/summary.txt" >> "$o/checks.txt"
start=$SECONDS
OUT=$o/ab AB_OLD=dist/old-bench.xz AB_REPS=2 AB_ARGS='--suite seed,long,sweep --modes graph --iters 30' \
  scripts/gpu-run.sh ab > "$o/ab-run.log" 2>&1
echo "ab: rc=$? in $((SECONDS - start)) s" >> "$o/checks.txt"
cp "$o/ab/ab-pooled.txt" "$o/ab-pooled.txt" 2>/dev/null
start=$SECONDS
OUT=$o/bench BENCH_ARGS='run --suite seed,long --modes graph --iters 50' scripts/gpu-run.sh bench > "$o/bench-run.log" 2>&1
echo "bench: rc=$? in $((SECONDS - start)) s" >> "$o/checks.txt"
cp "$o/bench/summary.txt" "$o/bench-summary.txt" 2>/dev/null
rm -rf "$o/ab/work" "$o/bench/work"; rm -f "$o/bench/bench.json"
cp "$o/tests/summary.txt" "$o/tests-summary.txt" 2>/dev/null
tar -czf "$o/../jk-logs.tar.gz" -C "$o" . 2>/dev/null && mv "$o/../jk-logs.tar.gz" "$o/logs.tar.gz"
find "$o" -type f ! -name checks.txt ! -name ab-pooled.txt ! -name bench-summary.txt ! -name tests-summary.txt ! -name logs.tar.gz -delete
find "$o" -type d -empty -delete
cat "$o/checks.txt"; tail -32 "$o/ab-pooled.txt"; tail -24 "$o/bench-summary.txt"
