#!/usr/bin/env bash
# Call CJ: main's kernels with the new grid test (dist/gpu.txz: branch drift-test, 5c2e281 plus
# Inputs::Drift and rising_row_maxima). The grid tests (rising_row_maxima among them); the small
# fuzz space that failed one case of the lazy-rescale build in call CH (seed 7, 60 cases) on
# main's kernels, then 400 cases of it on both builds (dist/lazy-fuzz.xz: lazy-rescale's
# flashattn-fuzz), to count how often the lazy reference breaks the rule; the regression gate with
# SDPA timed beside ours (GATE_SDPA=1, its first run on a GPU). From the checkout root on the GPU
# host; results in $OUT/call-cj/.
set -uo pipefail
base=${OUT:-gpu-out}/call-cj
OUT=$base TEST_FILTER='gpu_grid' FUZZ_ARGS='--small --max-seqlen 400 --cases 60 --seed 7' GATE_SDPA=1 \
  scripts/gpu-run.sh tests fuzz regression
mkdir -p "$base/small-fuzz"
xz -dc dist/lazy-fuzz.xz > "$base/small-fuzz/lazy-fuzz" && chmod +x "$base/small-fuzz/lazy-fuzz"
for build in main lazy; do
  exe=dist/gpu/bin/flashattn-fuzz; [ $build = lazy ] && exe=$base/small-fuzz/lazy-fuzz
  "$exe" --small --max-seqlen 400 --cases 400 --seed 11 > "$base/small-fuzz/$build.log" 2>&1
  echo "$build: rc=$? $(grep -E '^[0-9]+ cases, ' "$base/small-fuzz/$build.log" | tail -1)"
done | tee "$base/small-fuzz/summary.txt"
rm -f "$base/small-fuzz/lazy-fuzz"
