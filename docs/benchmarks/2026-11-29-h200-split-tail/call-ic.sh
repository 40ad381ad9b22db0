#!/usr/bin/env bash
# Call IC: build of the split-tail branch (dist/gpu.txz) on the lent H200:
#   1. flashattn-bench A/B against main's kernels (dist/main-bench-4abec91.xz: the bench of the
#      4abec91 pack, main f027afb's kernels, which passes no workspace): seed, long, sweep and
#      masks suites, two pairs pooled (the new bench gives its forward calls a workspace: the long
#      suite's S8192 and S16384 head-dim-128 shapes and the sweep's S4096 and S8192 ones split);
#   2. the long suite beside PyTorch's SDPA backends, with the checkout's H200 table.
# From the checkout root on the GPU host; results in $OUT/call-ic/.
set -uo pipefail
o=${OUT:-gpu-out}/call-ic
mkdir -p "$o"
[ -d dist/gpu/bin ] || tar -xJf dist/gpu.txz -C dist
echo "build $(cat dist/gpu/COMMIT)" > "$o/checks.txt"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader >> "$o/checks.txt"
start=$SECONDS
OUT=$o/ab AB_OLD=dist/main-bench-4abec91.xz AB_REPS=2 AB_ARGS='--suite seed,long,sweep,masks --modes graph --iters 30' \
  scripts/gpu-run.sh ab > "$o/ab-run.log" 2>&1
echo "ab: rc=$? in $((SECONDS - start)) s" >> "$o/checks.txt"
cp "$o/ab/ab-pooled.txt" "$o/ab-pooled.txt" 2>/dev/null
start=$SECONDS
OUT=$o/bench FLASHATTN_DISPATCH=crates/flashattn/dispatch/nvidia-h200.tsv BENCH_ARGS='run --suite long --modes graph --iters 40' scripts/gpu-run.sh bench > "$o/bench-run.log" 2>&1
echo "bench: rc=$? in $((SECONDS - start)) s" >> "$o/checks.txt"
cp "$o/bench/summary.txt" "$o/bench-summary.txt" 2>/dev/null
rm -rf "$o/ab/work" "$o/bench/work"; rm -f "$o/bench/bench.json.bak"
tar -czf "$o/../ic-logs.tar.gz" -C "$o" . 2>/dev/null && mv "$o/../ic-logs.tar.gz" "$o/logs.tar.gz"
find "$o" -type f ! -name checks.txt ! -name ab-pooled.txt ! -name bench-summary.txt ! -name logs.tar.gz -delete
find "$o" -type d -empty -delete
cat "$o/checks.txt"; cat "$o/ab-pooled.txt"; tail -24 "$o/bench-summary.txt"
