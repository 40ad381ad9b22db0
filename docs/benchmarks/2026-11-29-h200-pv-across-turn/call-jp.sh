#!/usr/bin/env bash
# Call JP (not run: the device would not start another machine for the session's last 246 s):
# the pack of branch tile-copier (d6fcce4, the cp.async Hopper kernels' TileCopier), most needed
# first:
# 1. flashattn-bench A/B against eb5dd93's build on the seed suite (three pairs, pooled);
# 2. compute-sanitizer on the fuzzer's small space (memcheck 150, racecheck 40, synccheck 80 cases);
# 3. gpu_grid (every compiled configuration on awkward shapes, the grid, masks and score mods);
# 4. the seed suite beside PyTorch's SDPA backends.
# Here: scripts/gpu-pack.sh (dist/gpu.txz); eb5dd93's flashattn-bench as dist/eb-bench.xz.
set -uo pipefail
o=${OUT:-gpu-out}/call-jp
mkdir -p "$o"
[ -d dist/gpu/bin ] || tar -xJf dist/gpu.txz -C dist
echo "build $(cat dist/gpu/COMMIT)" > "$o/checks.txt"
start=$SECONDS
OUT=$o/ab AB_OLD=dist/eb-bench.xz AB_REPS=3 AB_ARGS='--suite seed --modes graph --iters 30' \
  scripts/gpu-run.sh ab > "$o/ab-run.log" 2>&1
echo "ab: rc=$? in $((SECONDS - start)) s" >> "$o/checks.txt"
cp "$o/ab/ab-pooled.txt" "$o/ab-pooled.txt" 2>/dev/null; rm -rf "$o/ab/work"
tail -14 "$o/ab-pooled.txt"
start=$SECONDS
OUT=$o/san FUZZ_SANITIZER_ARGS="--small" FUZZ_SANITIZER_CASES="150 40 80" SANITIZER_LIMIT=30 \
  scripts/gpu-run.sh fuzz-sanitizer > "$o/san-run.log" 2>&1
echo "sanitizers: rc=$? in $((SECONDS - start)) s" >> "$o/checks.txt"
grep -E "^fuzz" "$o/san/summary.txt" >> "$o/checks.txt"
start=$SECONDS
OUT=$o/tests TEST_FILTER='gpu_grid' scripts/gpu-run.sh tests > "$o/tests-run.log" 2>&1
echo "tests: in $((SECONDS - start)) s" >> "$o/checks.txt"
grep -E "^test |configs:|grid:" "$o/tests/summary.txt" >> "$o/checks.txt"
cat "$o/checks.txt"
start=$SECONDS
OUT=$o/bench BENCH_ARGS='run --suite seed --modes graph --iters 50' scripts/gpu-run.sh bench > "$o/bench-run.log" 2>&1
echo "bench: rc=$? in $((SECONDS - start)) s" >> "$o/checks.txt"
cp "$o/bench/summary.txt" "$o/bench-summary.txt" 2>/dev/null
rm -rf "$o/bench/work"; rm -f "$o/bench/bench.json"
tail -14 "$o/bench-summary.txt"
