#!/usr/bin/env bash
# Call AQ: the memo searched in full (d0ab5a3) against the direct-mapped one (753581e's build,
# carried as dist/753581e-bench.xz): gpu-run.sh's host-ab step, two alternating runs, the
# launch-floor probe before and after; then the GPU grid, varlen, validation and flashattn-sys
# tests and 100 fuzz cases on the new build. From the checkout root on the GPU host; results in
# $OUT/call-aq/ (summary.txt, logs.tar.gz, fuzz.json).
set -uo pipefail
OUT=${OUT:-gpu-out}/call-aq AB_OLD=dist/753581e-bench.xz HOST_AB_REPS=2 \
  TEST_FILTER='gpu_grid|gpu_varlen|validation|flashattn_sys' \
  FUZZ_ARGS='--cases 100 --seed 99' \
  scripts/gpu-run.sh host-ab tests fuzz
