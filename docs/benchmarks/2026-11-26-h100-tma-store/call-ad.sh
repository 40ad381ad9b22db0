#!/usr/bin/env bash
# Call AD: the final build of the session (TMA store of O, persistent ws kernel at every head dim)
# beside PyTorch's SDPA backends on the seed and long suites (graph replay), the regression gate
# against the stored baseline, the GPU tests (grid, varlen, validation, flashattn-sys) and 300 fuzz
# cases over every configuration and feature. From the checkout root on the GPU host; results in
# $OUT/call-ad/ (summary.txt, bench.json, logs.tar.gz).
set -uo pipefail
OUT=${OUT:-gpu-out}/call-ad \
  BENCH_ARGS='run --suite seed,long --modes graph --iters 30' \
  TEST_FILTER='gpu_grid|gpu_varlen|validation|flashattn_sys' \
  FUZZ_ARGS='--cases 300 --seed 95' \
  scripts/gpu-run.sh bench regression tests fuzz
