#!/usr/bin/env bash
# Call CR: main (a63c88a's kernels = 4df2f54's, dist/gpu.txz) for issue 14's correctness
# criteria: every GPU test (the grid over every configuration), 1,000 fuzz cases in which every
# case carries a mask or score modifier, the accuracy table (ours, naive and SDPA with the
# equivalent explicit mask against the f64 reference, per feature), and small fuzz cases with
# features under memcheck, racecheck and synccheck. From the checkout root on the GPU host;
# results in $OUT/call-cr/.
set -uo pipefail
OUT=${OUT:-gpu-out}/call-cr \
  FUZZ_ARGS='--cases 1000 --seed 401 --features always' \
  FUZZ_SANITIZER_ARGS='--small --features always' FUZZ_SANITIZER_CASES='100 40 40' SANITIZER_LIMIT=150 \
  scripts/gpu-run.sh tests fuzz accuracy fuzz-sanitizer
