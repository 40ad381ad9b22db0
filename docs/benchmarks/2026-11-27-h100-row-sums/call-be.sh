#!/usr/bin/env bash
# Call BE: the row-sum build (14e3a74) checked: the GPU grid (each configuration now with and
# without LSE) and 300 fuzz cases on head dim 64. From the checkout root on the GPU host with
# dist/gpu.txz; results in $OUT/call-be/.
set -uo pipefail
OUT=${OUT:-gpu-out}/call-be TEST_FILTER='gpu_grid' FUZZ_ARGS='--cases 300 --seed 106 --head-dim 64' \
  scripts/gpu-run.sh tests fuzz
