#!/usr/bin/env bash
# Call HP: build 07db52f (dist/gpu.txz: the causal walk) on the lent H200:
#   1. flashattn-bench A/B against main's kernels (dist/main-bench-6a7c8b9.xz: the bench of the
#      6a7c8b9 pack, main 8114570's kernels): seed, long, sweep and causal suites, two pairs
#      pooled (the causal suite is the change's target; the rest is the regression gate);
#   2. the seed, long and causal suites beside PyTorch's SDPA backends, with the checkout's H200
#      table (the choices a build of the checkout makes).
# From the checkout root on the GPU host; results in $OUT/call-hp/.
set -uo pipefail
o=${OUT:-gpu-out}/call-hp
mkdir -p "$o"
[ -d dist/gpu/bin ] || tar -xJf dist/gpu.txz -C dist
echo "build $(cat dist/gpu/COMMIT)" > "$o/checks.txt"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader >> "$o/checks.txt"
start=$SECONDS
OUT=$o/ab AB_OLD=dist/main-bench-6a7c8b9.xz AB_REPS=2 AB_ARGS='--suite seed,long,sweep,causal --modes graph --iters 30' \
  scripts/gpu-run.sh ab > "$o/ab-run.log" 2>&1
echo "ab: rc=$? in $((SECONDS - start)) s" >> "$o/checks.txt"
cp "$o/ab/ab-pooled.txt" "$o/ab-pooled.txt" 2>/dev/null
start=$SECONDS
OUT=$o/bench FLASHATTN_DISPATCH=crates/flashattn/dispatch/nvidia-h200.tsv BENCH_ARGS='run --suite seed,long,causal --modes graph --iters 40' scripts/gpu-run.sh bench > "$o/bench-run.log" 2>&1
echo "bench: rc=$? in $((SECONDS - start)) s" >> "$o/checks.txt"
cp "$o/bench/summary.txt" "$o/bench-summary.txt" 2>/dev/null
rm -rf "$o/ab/work" "$o/bench/work"; rm -f "$o/bench/bench.json.bak"
tar -czf "$o/../hp-logs.tar.gz" -C "$o" . 2>/dev/null && mv "$o/../hp-logs.tar.gz" "$o/logs.tar.gz"
find "$o" -type f ! -name checks.txt ! -name ab-pooled.txt ! -name bench-summary.txt ! -name logs.tar.gz -delete
find "$o" -type d -empty -delete
cat "$o/checks.txt"; cat "$o/ab-pooled.txt"; tail -34 "$o/bench-summary.txt"
