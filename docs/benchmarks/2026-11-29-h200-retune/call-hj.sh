#!/usr/bin/env bash
# Call HJ: build aeb45f4 (dist/gpu.txz: the light order of the last deal, compiled into the
# three-consumer head-dim-64 walks only) on the lent H200:
#   1. flashattn-bench A/B against main's kernels (dist/main-bench-21c9623.xz: the bench of the
#      21c9623 pack, whose kernels are main 9873d0e's, SASS for SASS): seed, long and sweep
#      suites, two pairs pooled (the regression gate on the shapes the change does not target);
#   2. the seed and long suites beside PyTorch's SDPA backends, with the checkout's H200 table as
#      FLASHATTN_DISPATCH (the build's embedded one and call HE's two causal seed rows: the
#      choices a build of the checkout makes).
# From the checkout root on the GPU host; results in $OUT/call-hj/.
set -uo pipefail
o=${OUT:-gpu-out}/call-hj
mkdir -p "$o"
[ -d dist/gpu/bin ] || tar -xJf dist/gpu.txz -C dist
echo "build $(cat dist/gpu/COMMIT)" > "$o/checks.txt"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader >> "$o/checks.txt"
start=$SECONDS
OUT=$o/ab AB_OLD=dist/main-bench-21c9623.xz AB_REPS=2 AB_ARGS='--suite seed,long,sweep --modes graph --iters 30' \
  scripts/gpu-run.sh ab > "$o/ab-run.log" 2>&1
echo "ab: rc=$? in $((SECONDS - start)) s" >> "$o/checks.txt"
cp "$o/ab/ab-pooled.txt" "$o/ab-pooled.txt" 2>/dev/null
start=$SECONDS
OUT=$o/bench FLASHATTN_DISPATCH=crates/flashattn/dispatch/nvidia-h200.tsv BENCH_ARGS='run --suite seed,long --modes graph --iters 50' scripts/gpu-run.sh bench > "$o/bench-run.log" 2>&1
echo "bench: rc=$? in $((SECONDS - start)) s" >> "$o/checks.txt"
cp "$o/bench/summary.txt" "$o/bench-summary.txt" 2>/dev/null
rm -rf "$o/ab/work" "$o/bench/work"; rm -f "$o/bench/bench.json"
tar -czf "$o/../hj-logs.tar.gz" -C "$o" . 2>/dev/null && mv "$o/../hj-logs.tar.gz" "$o/logs.tar.gz"
find "$o" -type f ! -name checks.txt ! -name ab-pooled.txt ! -name bench-summary.txt ! -name logs.tar.gz -delete
find "$o" -type d -empty -delete
cat "$o/checks.txt"; cat "$o/ab-pooled.txt"; tail -24 "$o/bench-summary.txt"
