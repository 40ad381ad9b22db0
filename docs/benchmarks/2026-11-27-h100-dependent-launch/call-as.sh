#!/usr/bin/env bash
# Call AS: correctness of the dependent-launch build: the regression gate against the stored
# baseline, every GPU test (the new stream-order test among them), 200 fuzz cases, the grid (small
# shapes) under memcheck and synccheck, the fuzzer with every feature under memcheck, racecheck and
# synccheck (small shapes), each sanitizer run bounded to 150 s. From the checkout root on the GPU
# host; results in $OUT/call-as/ (summary.txt, fuzz.json, logs.tar.gz).
set -uo pipefail
OUT=${OUT:-gpu-out}/call-as \
  FUZZ_ARGS='--cases 200 --seed 101' \
  SANITIZER_TOOLS='memcheck synccheck' SANITIZER_LIMIT=150 \
  FUZZ_SANITIZER_ARGS='--small --features always' FUZZ_SANITIZER_CASES='100 30 60' \
  scripts/gpu-run.sh regression tests fuzz sanitizer fuzz-sanitizer
