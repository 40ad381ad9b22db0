#!/usr/bin/env bash
# Call JP (not run: the device would not start another machine for the session's last 246 s):
# the pack of branch tile-copier (the cp.async Hopper kernels' TileCopier), through one
# scripts/gpu-run.sh run, timing first while the GPU is cool:
# 1. ab: flashattn-bench A/B against eb5dd93's build on the seed suite (three pairs, pooled);
# 2. bench: the seed suite beside PyTorch's SDPA backends;
# 3. fuzz-sanitizer: compute-sanitizer on the fuzzer's small space (memcheck 150, racecheck 40,
#    synccheck 80 cases, 30 s a tool at most);
# 4. tests: gpu_grid (every compiled configuration on awkward shapes, the grid, masks and score mods).
# Here: scripts/gpu-pack.sh (dist/gpu.txz); eb5dd93's flashattn-bench as dist/eb-bench.xz.
# Results in $OUT/call-jp/ (summary.txt, printed last).
OUT=${OUT:-gpu-out}/call-jp AB_OLD=dist/eb-bench.xz AB_REPS=3 AB_ARGS='--suite seed --modes graph --iters 30' \
  BENCH_ARGS='run --suite seed --modes graph --iters 50' \
  FUZZ_SANITIZER_ARGS='--small' FUZZ_SANITIZER_CASES='150 40 80' SANITIZER_LIMIT=30 TEST_FILTER='gpu_grid' \
  exec scripts/gpu-run.sh ab bench fuzz-sanitizer tests
