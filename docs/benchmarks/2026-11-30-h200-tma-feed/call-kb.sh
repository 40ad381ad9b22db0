#!/usr/bin/env bash
# Call KB: the same pack as calls JZ and KA (branch tma-feed, 8405ffc), one scripts/gpu-run.sh run:
# 1. profile: Nsight Compute on f16 B4 H16 S512's kernel (sm90_f16_d64_m64n64w4s2, now fwd_tma_kernel), against
#    call JS's numbers for the cp.async kernel;
# 2. bench: the seed suite beside PyTorch's SDPA backends (the second run of two);
# 3. tune: flashattn-bench tune over the seed and long suites (30 iterations), now that fwd_kernel.cuh's tiles are
#    fed by TMA; tuned-ab: the tuned table against the checkout's, same run, two repetitions.
# Results in $OUT/call-kb/.
OUT=${OUT:-gpu-out}/call-kb PROFILE_SHAPES='f16 B4 H16/16 S512x512 D64' PROFILE_SUITES=seed \
  BENCH_ARGS='run --suite seed --modes graph --iters 50' \
  TUNE_ARGS='--suite seed,long --iters 30' AB_REPS=2 TUNED_AB_ARGS='--suite seed,long --modes graph --iters 30' \
  exec scripts/gpu-run.sh profile bench tune tuned-ab
