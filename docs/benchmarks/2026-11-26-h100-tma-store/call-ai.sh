#!/usr/bin/env bash
# Call AI: the build after the review's kernel mend (e49eb93: O's tensor map encoded after the
# fallback check, one epilogue barrier for both store paths) beside PyTorch's SDPA backends on the
# seed and long suites, the GPU tests, 200 fuzz cases, and the grid (small shapes) under memcheck
# and racecheck, each sanitizer run bounded to 100 s. From the checkout root on the GPU host;
# results in $OUT/call-ai/ (summary.txt, bench.json, logs.tar.gz).
set -uo pipefail
OUT=${OUT:-gpu-out}/call-ai \
  BENCH_ARGS='run --suite seed,long --modes graph --iters 30' \
  TEST_FILTER='gpu_grid|gpu_varlen|validation|flashattn_sys' \
  FUZZ_ARGS='--cases 200 --seed 96' \
  SANITIZER_TOOLS='memcheck racecheck' SANITIZER_LIMIT=100 \
  scripts/gpu-run.sh bench tests fuzz sanitizer
