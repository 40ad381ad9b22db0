#!/usr/bin/env bash
# Call KA: the same pack as call JZ (branch tma-feed, 8405ffc), one scripts/gpu-run.sh run, timing:
# 1. ab: flashattn-bench A/B against e415cda's build (main's kernels: the cp.async feed; seed, long and sweep
#    suites; three pairs pooled), the regression gate for the shapes the change does not target;
# 2. bench: the seed and long suites beside PyTorch's SDPA backends (the checkout's H200 table, not retuned).
# Here: e415cda's flashattn-bench (from its dist/gpu.txz) as dist/e415-bench.xz. Results in $OUT/call-ka/.
OUT=${OUT:-gpu-out}/call-ka AB_OLD=dist/e415-bench.xz AB_REPS=3 AB_ARGS='--suite seed,long,sweep --modes graph --iters 30' \
  BENCH_ARGS='run --suite seed,long --modes graph --iters 50' \
  exec scripts/gpu-run.sh ab bench
