#!/usr/bin/env bash
# Call AH: the tuner over the seed suite on the landed build (c211e18: the ws tiles' epilogue is
# shorter now, so the short shapes' best tile may have moved), then the tuned table against the
# dispatcher (embedded H100 table, then the rule), same run, two repetitions. From the checkout
# root on the GPU host; results in $OUT/call-ah/ (summary.txt, dispatch.tsv, logs.tar.gz).
set -uo pipefail
OUT=${OUT:-gpu-out}/call-ah AB_REPS=2 TUNE_ARGS='--suite seed' \
  TUNED_AB_ARGS='--suite seed --modes graph --iters 40' \
  scripts/gpu-run.sh tune tuned-ab
