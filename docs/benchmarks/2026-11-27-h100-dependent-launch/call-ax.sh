#!/usr/bin/env bash
# Call AX: the decode split kernel as a programmatic dependent (b9cf7b4) against the same build with
# FLASHATTN_DECODE_SERIAL_LAUNCH=1 (plain split launches; the combine stays a dependent of the split
# kernel on both sides): the decode suite by graph replay, two ab pairs; then the decode and
# stream-order tests and the decode fuzzer under memcheck, racecheck and synccheck (60 cases each,
# bounded to 150 s). From the checkout root on the GPU host; results in $OUT/call-ax/ (summary.txt,
# logs.tar.gz).
set -uo pipefail
printf '#!/bin/sh\nFLASHATTN_DECODE_SERIAL_LAUNCH=1 exec "$(dirname "$0")/gpu/bin/flashattn-bench" "$@"\n' \
  > dist/serial-decode-bench
chmod +x dist/serial-decode-bench
OUT=${OUT:-gpu-out}/call-ax AB_OLD=dist/serial-decode-bench AB_REPS=2 \
  AB_ARGS='--suite decode --modes graph --iters 30' \
  TEST_FILTER='gpu_decode|gpu_stream_order' \
  SANITIZER_TOOLS='memcheck racecheck synccheck' SANITIZER_LIMIT=150 DECODE_SANITIZER_CASES=60 \
  scripts/gpu-run.sh ab tests decode-sanitizer
