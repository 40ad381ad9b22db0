#!/usr/bin/env bash
# Call BU (run first this session, 2026-11-27): on an H100 (call BT ran on an H200), the
# rotate-l2 build (dist/gpu.txz) against I (ae3dad8, dist/ae3dad8-bench.xz) on the seed and long
# suites, graph replay, 30 samples, three alternating pairs: scripts/gpu-run.sh's `ab` step. From
# the checkout root on the GPU host; results in $OUT/call-bu/ (summary.txt, logs.tar.gz with
# ab-compare-*.txt).
set -uo pipefail
OUT=${OUT:-gpu-out}/call-bu AB_OLD=dist/ae3dad8-bench.xz AB_REPS=3 \
  AB_ARGS='--suite seed,long --modes graph --iters 30' scripts/gpu-run.sh ab
