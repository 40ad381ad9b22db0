#!/usr/bin/env bash
# Call AN: call AM's tests again (its summary and test logs were among the files that did not come
# back): the landed build (30d1f81) through the GPU grid, varlen, validation and flashattn-sys
# tests, 300 fuzz cases, then the grid's two tests (small shapes) under racecheck, each run bounded
# to 420 s: the masks test's racecheck had not run to its end on the kernels of e49eb93, whose
# SASS this build's is. From the checkout root on the GPU host; results in $OUT/call-an/
# (summary.txt, logs.tar.gz, fuzz.json).
set -uo pipefail
OUT=${OUT:-gpu-out}/call-an \
  TEST_FILTER='gpu_grid|gpu_varlen|validation|flashattn_sys' \
  FUZZ_ARGS='--cases 300 --seed 98' \
  SANITIZER_TOOLS='racecheck' SANITIZER_LIMIT=420 \
  scripts/gpu-run.sh tests fuzz sanitizer
