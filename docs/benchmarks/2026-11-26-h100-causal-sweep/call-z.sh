#!/usr/bin/env bash
# Call Z: the varlen suite (its dense comparison shapes, B16 S2048 and B8 S4096 causal d128, fall
# within the nearest-row window of the new H100 causal d128 S2048 row) with the new table against
# the old one, same run, two repetitions. New: the pack of 3450a19 (its head dim 128 kernels and
# every non-persistent one are main's; its table is main's); old: 36f14cf's bench. Results in
# $OUT/call-z/.
set -uo pipefail
OUT=${OUT:-gpu-out}/call-z AB_OLD=dist/old-36f14cf.xz AB_REPS=2 AB_ARGS='--suite varlen --modes graph --iters 30' \
  scripts/gpu-run.sh ab
