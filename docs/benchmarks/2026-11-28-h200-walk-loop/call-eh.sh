#!/usr/bin/env bash
# Call EH: build 77c7394 (dist/gpu.txz) on the lent H200 with the retuned H200 table (call EG's long
# rows, dispatch-h200.tsv, as FLASHATTN_DISPATCH: consulted before the build's embedded tables, the
# same choices as the landed table): the long suite beside PyTorch's SDPA backends, graph replay.
# From the checkout root on the GPU host; results in $OUT/call-eh/.
set -uo pipefail
here=docs/benchmarks/2026-11-28-h200-walk-loop
OUT=${OUT:-gpu-out}/call-eh FLASHATTN_DISPATCH=$here/dispatch-h200.tsv \
  BENCH_ARGS='run --suite long --modes graph --iters 50' scripts/gpu-run.sh bench
