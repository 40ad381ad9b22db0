#!/usr/bin/env bash
# Call DH: the landed dispatch (call DG's build, d7bcccb, with the H100 table as landed: its S2048
# rows back on their old tiles, call-dh/dispatch-landed.tsv, as FLASHATTN_DISPATCH) on the seed and
# long suites beside PyTorch's SDPA, graph replay, 50 samples: issue 12's ratios for what main now
# runs. From the checkout root on the GPU host; results in $OUT/call-dh/.
set -uo pipefail
here=docs/benchmarks/2026-11-28-h100-d128-three-consumers/call-dh
OUT=${OUT:-gpu-out}/call-dh FLASHATTN_DISPATCH=$here/dispatch-landed.tsv \
  BENCH_ARGS='run --suite seed,long --modes graph --iters 50' scripts/gpu-run.sh bench
