#!/usr/bin/env bash
# Call BL: build D (d8ac193) with the H100 table's bf16 B16 H32 S1024 row on the 192-row ws tile (the
# table as committed, given at run time through FLASHATTN_DISPATCH so the carried build need not
# change), beside PyTorch's SDPA backends on the seed and long suites (graph replay, 30 samples),
# and the regression gate against the stored H100 baseline. From the checkout root on the GPU host
# with dist/gpu.txz; results in $OUT/call-bl/ (summary.txt, bench.json, bench.md, gate).
set -uo pipefail
export FLASHATTN_DISPATCH=$PWD/crates/flashattn/dispatch/nvidia-h100-80gb-hbm3.tsv
OUT=${OUT:-gpu-out}/call-bl BENCH_ARGS='run --suite seed,long --modes graph --iters 30' \
  scripts/gpu-run.sh bench regression
