#!/usr/bin/env bash
# Call KR: the pack of 4a3e289 (main 74da970's kernels, 0743e1e's, plus the bench's new `short` suite), the short
# suite beside PyTorch SDPA's backends, graph replay: which configuration the dispatcher gives each shape, and the
# first ratios. Results in $OUT/call-kr/ (bench.md, bench.json, summary.txt).
OUT=${OUT:-gpu-out}/call-kr BENCH_ARGS='run --suite short --modes graph --iters 50' exec scripts/gpu-run.sh bench
