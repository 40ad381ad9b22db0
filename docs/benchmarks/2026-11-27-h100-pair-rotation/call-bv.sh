#!/usr/bin/env bash
# Call BV: on an H100, the rotate-l2b build (4fa06ad, dist/gpu.txz: each pair's query tiles
# rotated where K/V outgrows L2 and the pair has at most 8 query tiles, in 32-bit arithmetic) against
# I (ae3dad8, dist/ae3dad8-bench.xz) on the seed and long suites, graph replay, 30 samples, four
# alternating pairs: scripts/gpu-run.sh's `ab` step. From the checkout root on the GPU host; results
# in $OUT/call-bv/ (summary.txt, logs.tar.gz with ab-compare-*.txt).
set -uo pipefail
OUT=${OUT:-gpu-out}/call-bv AB_OLD=dist/ae3dad8-bench.xz AB_REPS=4 \
  AB_ARGS='--suite seed,long --modes graph --iters 30' scripts/gpu-run.sh ab
