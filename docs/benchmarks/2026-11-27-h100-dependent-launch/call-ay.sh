#!/usr/bin/env bash
# Call AY: the grid's two tests (small shapes) under racecheck on the landed build (d91890e: every
# forward kernel waits at its entry, the decode split kernel too), each run bounded to 420 s.
# From the checkout root on the GPU host; results in $OUT/call-ay/ (summary.txt, logs.tar.gz).
set -uo pipefail
OUT=${OUT:-gpu-out}/call-ay SANITIZER_TOOLS='racecheck' SANITIZER_LIMIT=420 \
  scripts/gpu-run.sh sanitizer
