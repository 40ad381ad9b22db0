#!/usr/bin/env bash
# Call BZ: main (4fa06ad's kernels = a39090c) (dist/gpu.txz) beside PyTorch's SDPA backends on the seed and long
# suites (graph replay, 30 samples), and the regression gate against the stored H100 baseline.
# From the checkout root on the GPU host; results in $OUT/call-bz/.
set -uo pipefail
OUT=${OUT:-gpu-out}/call-bz BENCH_ARGS='run --suite seed,long --modes graph --iters 30' \
  scripts/gpu-run.sh bench regression
