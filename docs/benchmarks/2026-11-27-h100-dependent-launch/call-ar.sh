#!/usr/bin/env bash
# Call AR: forward kernels launched as programmatic dependents (this build) against the same build
# with FLASHATTN_FORWARD_SERIAL_LAUNCH=1 (plain launches), same binary, alternating: the ab step
# over the seed and long suites (graph replay, two pairs), then the seed and long suites beside
# PyTorch's SDPA backends, then host cost per launch (host-ab, two pairs). From the checkout root
# on the GPU host; results in $OUT/call-ar/ (summary.txt, bench.json, bench.md, logs.tar.gz).
set -uo pipefail
# The "old" side of ab and host-ab: this build's bench with dependent launch turned off.
printf '#!/bin/sh\nFLASHATTN_FORWARD_SERIAL_LAUNCH=1 exec "$(dirname "$0")/gpu/bin/flashattn-bench" "$@"\n' \
  > dist/serial-bench
chmod +x dist/serial-bench
OUT=${OUT:-gpu-out}/call-ar AB_OLD=dist/serial-bench AB_REPS=2 \
  AB_ARGS='--suite seed,long --modes graph --iters 30' \
  BENCH_ARGS='run --suite seed,long --modes graph --iters 30' \
  HOST_AB_REPS=2 \
  scripts/gpu-run.sh ab bench host-ab
