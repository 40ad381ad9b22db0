#!/usr/bin/env bash
# Call AZ: the build after the review (4194a31: the tensor-map key holds the encoder's extents and
# strides, host code only; the stream-order test's helpers shared): the seed and long suites beside
# PyTorch's SDPA backends, every GPU test, 150 fuzz cases, the grid (small shapes) under memcheck,
# and the fuzzer with every feature under memcheck, racecheck and synccheck (small shapes). From the
# checkout root on the GPU host; results in $OUT/call-az/ (summary.txt, bench.json, bench.md,
# fuzz.json, logs.tar.gz).
set -uo pipefail
OUT=${OUT:-gpu-out}/call-az \
  BENCH_ARGS='run --suite seed,long --modes graph --iters 30' \
  FUZZ_ARGS='--cases 150 --seed 102' \
  SANITIZER_TOOLS='memcheck' SANITIZER_LIMIT=150 \
  FUZZ_SANITIZER_ARGS='--small --features always' FUZZ_SANITIZER_CASES='100 30 30' \
  scripts/gpu-run.sh bench tests fuzz sanitizer fuzz-sanitizer
