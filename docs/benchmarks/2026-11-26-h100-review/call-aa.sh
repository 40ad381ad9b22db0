#!/usr/bin/env bash
# Call AA: the session's final build (main after the review's mends; kernels as 36f14cf, the H100
# and H200 tables with this session's rows): every GPU test executable, the fuzzer, the grid
# under memcheck and racecheck (small shapes), and the fuzzer under memcheck and racecheck.
# From the checkout root on the GPU host; results in $OUT/call-aa/.
set -uo pipefail
OUT=${OUT:-gpu-out}/call-aa SANITIZER_TOOLS='memcheck racecheck' FUZZ_ARGS='--cases 300 --seed 101' \
  FUZZ_SANITIZER_CASES='60 20 0' scripts/gpu-run.sh tests fuzz sanitizer fuzz-sanitizer
