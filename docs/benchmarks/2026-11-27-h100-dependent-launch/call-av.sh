#!/usr/bin/env bash
# Call AV: correctness of the landed launch order (38080a5): every GPU test (the stream-order test
# among them), 200 fuzz cases, the grid (small shapes) under memcheck and synccheck, and the fuzzer
# with every feature under memcheck, racecheck and synccheck (small shapes), each sanitizer run
# bounded to 150 s. From the checkout root on the GPU host; results in $OUT/call-av/ (summary.txt,
# fuzz.json, logs.tar.gz).
set -uo pipefail
OUT=${OUT:-gpu-out}/call-av \
  FUZZ_ARGS='--cases 200 --seed 101' \
  SANITIZER_TOOLS='memcheck synccheck' SANITIZER_LIMIT=150 \
  FUZZ_SANITIZER_ARGS='--small --features always' FUZZ_SANITIZER_CASES='100 30 60' \
  scripts/gpu-run.sh tests fuzz sanitizer fuzz-sanitizer
