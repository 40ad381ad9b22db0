#!/usr/bin/env bash
# Call CH: branch lazy-rescale (dist/gpu.txz: a row's exponent reference moves up only when its
# scores rise more than 2^8 above it, so O is rescaled only then) against main (5c2e281's kernels,
# dist/main-bench.xz): seed and long suites, graph replay, 30 samples, three alternating pairs;
# then every GPU test, 300 fuzz cases (features mixed, hostile inputs included), and a short fuzz
# under memcheck, racecheck and synccheck. From the checkout root on the GPU host; results in $OUT/call-ch/.
set -uo pipefail
OUT=${OUT:-gpu-out}/call-ch AB_OLD=dist/main-bench.xz AB_REPS=3 \
  AB_ARGS='--suite seed,long --modes graph --iters 30' \
  FUZZ_ARGS='--cases 300 --seed 331' \
  FUZZ_SANITIZER_ARGS='--small --max-seqlen 400' FUZZ_SANITIZER_CASES='60 30 20' SANITIZER_LIMIT=150 \
  scripts/gpu-run.sh ab tests fuzz fuzz-sanitizer
