#!/usr/bin/env bash
# Call AW: the tuner over the seed suite on the landed build (38080a5: every launch but the
# persistent one is a programmatic dependent, which the table's seed rows, tuned with plain
# launches, did not see), then the tuned table against the dispatcher (embedded H100 table, then
# the rule), same run, two repetitions. From the checkout root on the GPU host; results in
# $OUT/call-aw/ (summary.txt, dispatch.tsv, logs.tar.gz).
set -uo pipefail
OUT=${OUT:-gpu-out}/call-aw AB_REPS=2 TUNE_ARGS='--suite seed' \
  TUNED_AB_ARGS='--suite seed --modes graph --iters 40' \
  scripts/gpu-run.sh tune tuned-ab
