#!/usr/bin/env bash
# Call CS: the ws kernel's exponentials under its own P.V (branch exp-under-pv, 0ec8061, dist/gpu.txz)
# against main (4df2f54's kernels, dist/main-bench.xz): seed and long suites, graph replay, 30
# samples, four pairs in alternating order, pooled by `flashattn-report ab`; then the tuner over
# the seed suite on the new build (which configuration is fastest per seed shape now). From the
# checkout root on the GPU host; results in $OUT/call-cs/.
set -uo pipefail
OUT=${OUT:-gpu-out}/call-cs AB_OLD=dist/main-bench.xz AB_REPS=4 AB_ARGS='--suite seed,long --modes graph --iters 30' \
  TUNE_ARGS='--suite seed' scripts/gpu-run.sh ab tune
