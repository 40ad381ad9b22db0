#!/usr/bin/env bash
# Call KL: the pack of branch tma-varlen at 36c1573 (packed varlen calls on the TMA feed of the one-tile-per-CTA
# Hopper kernel, with the register trim 5779d67), carried as dist/gpu.txz, against main's kernels (97ac5ad's build =
# 4bfe07a's machine code, carried as dist/old-97ac5ad-bench.xz). Timing first, while the GPU is cool:
# 1. ab under the dispatcher, seed and varlen suites, three pairs (the dense TMA variants' machine code moved a little:
#    prologue scheduling, same instruction counts);
# 2. ab forced onto the one-tile tiles whose general and score-modifier variants changed (the dispatcher runs the masks
#    suite on warp-specialized tiles, unchanged): masks and varlen suites on bf16 d128 m128n128w8s2 (dense calls run
#    its general kernel too), d64 m64n128w4s2 and d256 m128n64w8s2, two pairs each (shapes of the other head dims
#    fail fast and are left out of the comparison);
# 3. tests: gpu_varlen (Hopper kernels must report TMA), validation, gpu_grid.
# Results in $OUT/call-kl/{auto,TILE,tests}.
set -u
base=${OUT:-gpu-out}/call-kl
rm -rf dist/gpu
old=dist/old-97ac5ad-bench.xz
OUT=$base/auto AB_OLD=$old AB_REPS=3 AB_ARGS='--suite seed,varlen --modes graph --iters 50' scripts/gpu-run.sh ab
for k in sm90_bf16_d128_m128n128w8s2 sm90_bf16_d64_m64n128w4s2 sm90_bf16_d256_m128n64w8s2; do
  OUT=$base/$k AB_OLD=$old AB_REPS=2 AB_ARGS="--suite masks,varlen --modes graph --iters 20 --kernel $k" scripts/gpu-run.sh ab
done
OUT=$base/tests TEST_FILTER='gpu_varlen|validation|gpu_grid' scripts/gpu-run.sh tests
for s in auto sm90_bf16_d128_m128n128w8s2 sm90_bf16_d64_m64n128w4s2 sm90_bf16_d256_m128n64w8s2 tests; do
  echo "== $s"; grep -vE '^    (f16|bf16) ' "$base/$s/summary.txt" | cut -c1-160
done
