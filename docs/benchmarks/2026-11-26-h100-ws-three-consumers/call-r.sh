#!/usr/bin/env bash
# Call R: main's build (the 192-row tile and the updated H100 table; kernels as in f7117a9) through
# every GPU test executable and the grid under compute-sanitizer's memcheck, racecheck and
# synccheck (every configuration on awkward shapes, masks and score modifiers included). From the
# checkout root on the GPU host; results in $OUT/call-r/ (summary.txt, logs.tar.gz).
set -uo pipefail
OUT=${OUT:-gpu-out}/call-r SANITIZER_TOOLS='memcheck racecheck synccheck' scripts/gpu-run.sh tests sanitizer
