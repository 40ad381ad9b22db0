#!/usr/bin/env bash
# Call CE: how much of an A/B's spread is the clock, not the code. The same build (dist/gpu.txz,
# main) against itself: seed and long suites, graph replay, 30 samples, three alternating pairs
# with the default warm-up, then three with --warm-ms 1500 (each shape kept running 1.5 s before
# its samples). Every ratio is 1 in truth; the gate's verdicts are false alarms.
# From the checkout root on the GPU host; results in $OUT/call-ce/.
set -uo pipefail
base=${OUT:-gpu-out}/call-ce
OUT=$base/plain AB_OLD=dist/gpu/bin/flashattn-bench AB_REPS=3 AB_ARGS='--suite seed,long --modes graph --iters 30' \
  scripts/gpu-run.sh ab
OUT=$base/warm AB_OLD=dist/gpu/bin/flashattn-bench AB_REPS=3 \
  AB_ARGS='--suite seed,long --modes graph --iters 30 --warm-ms 1500' scripts/gpu-run.sh ab
