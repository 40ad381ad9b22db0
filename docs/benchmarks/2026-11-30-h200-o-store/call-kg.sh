#!/usr/bin/env bash
# Call KG: the same pack as call KF (97ac5ad), one scripts/gpu-run.sh run, timing:
# 1. ab: flashattn-bench A/B against 7ce79e7's build (main's kernels: 1abed09 is the same machine code; O by every
#    thread's stores; seed, long and sweep suites, three pairs pooled), the regression gate;
# 2. host-ab: host cost per launch against the same build (seed suite; the O map is encoded on launches of more CTAs
#    than SMs);
# 3. bench: the seed and long suites beside PyTorch's SDPA backends.
# Here: 7ce79e7's flashattn-bench (from its dist/gpu.txz) as dist/old-7ce79e7-bench.xz. Results in $OUT/call-kg/.
OUT=${OUT:-gpu-out}/call-kg AB_OLD=dist/old-7ce79e7-bench.xz AB_REPS=3 AB_ARGS='--suite seed,long,sweep --modes graph --iters 30' \
  HOST_AB_REPS=3 BENCH_ARGS='run --suite seed,long --modes graph --iters 50' \
  exec scripts/gpu-run.sh ab host-ab bench
