#!/usr/bin/env bash
# Call CQ: main's build (a63c88a = 4df2f54's kernels, dist/gpu.txz) against itself
# (dist/main-bench.xz, the same flashattn-bench): seed and long suites, graph replay, 30 samples,
# four pairs in alternating order (scripts/gpu-run.sh ab as of this commit). Every ratio is 1 in
# truth: `flashattn-report ab` over the pairs (run where the reports come back) measures how often
# the pooled verdict calls a side when nothing changed. From the checkout root on the GPU host;
# results in $OUT/call-cq/.
set -uo pipefail
OUT=${OUT:-gpu-out}/call-cq AB_OLD=dist/main-bench.xz AB_REPS=4 AB_ARGS='--suite seed,long --modes graph --iters 30' \
  scripts/gpu-run.sh ab
