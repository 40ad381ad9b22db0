#!/usr/bin/env bash
# Call JQ: the pack of branch tile-copier (the cp.async Hopper kernels' TileCopier: each thread's
# swizzled shared-memory offset, global offset and step worked out once per kernel), through one
# scripts/gpu-run.sh run, timing first while the GPU is cool:
# 1. ab: flashattn-bench A/B against eb5dd93's build (seed, long and sweep suites; three pairs pooled);
# 2. bench: the seed and long suites beside PyTorch's SDPA backends;
# 3. fuzz-sanitizer: compute-sanitizer on the fuzzer's small space (memcheck 150, racecheck 60,
#    synccheck 80 cases);
# 4. tests: every GPU test of the pack.
# Here: scripts/gpu-pack.sh (dist/gpu.txz); eb5dd93's flashattn-bench as dist/eb-bench.xz.
# Results in $OUT/call-jq/ (summary.txt, printed last).
OUT=${OUT:-gpu-out}/call-jq AB_OLD=dist/eb-bench.xz AB_REPS=3 AB_ARGS='--suite seed,long,sweep --modes graph --iters 30' \
  BENCH_ARGS='run --suite seed,long --modes graph --iters 50' \
  FUZZ_SANITIZER_ARGS='--small' FUZZ_SANITIZER_CASES='150 60 80' SANITIZER_LIMIT=40 \
  exec scripts/gpu-run.sh ab bench fuzz-sanitizer tests
