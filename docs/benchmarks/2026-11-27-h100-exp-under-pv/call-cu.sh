#!/usr/bin/env bash
# Call CU: branch exp-under-pv at 6c11d11 against main (4df2f54's kernels): the masks and causal
# suites, two alternating pairs, pooled (the shapes call CT's A/B does not cover); 600 fuzz
# cases; small fuzz cases (features on) under memcheck, racecheck and synccheck. From the checkout
# root on the GPU host; results in $OUT/call-cu/.
set -uo pipefail
OUT=${OUT:-gpu-out}/call-cu AB_OLD=dist/main-bench.xz AB_REPS=2 AB_ARGS='--suite masks,causal --modes graph --iters 30' \
  FUZZ_ARGS='--cases 600 --seed 402' \
  FUZZ_SANITIZER_ARGS='--small --features always' FUZZ_SANITIZER_CASES='60 30 30' SANITIZER_LIMIT=150 \
  scripts/gpu-run.sh ab fuzz fuzz-sanitizer
