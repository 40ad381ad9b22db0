#!/usr/bin/env bash
# Call T: after the review's mend of the decode combine (707fabe: the groups' states folded
# straight from shared memory), the decode and merge tests and the decode fuzzer under memcheck
# and racecheck; plus the forward grid and a fuzz run, the whole build being new. From the
# checkout root on the GPU host; results in $OUT/call-t/ (summary.txt, logs.tar.gz).
set -uo pipefail
OUT=${OUT:-gpu-out}/call-t TEST_FILTER='gpu_decode|gpu_merge|gpu_grid|validation' FLASHATTN_DECODE_CASES=400 \
  DECODE_SANITIZER_CASES=40 SANITIZER_TOOLS='memcheck racecheck' FUZZ_ARGS='--cases 200 --seed 61' \
  scripts/gpu-run.sh tests decode-sanitizer fuzz
