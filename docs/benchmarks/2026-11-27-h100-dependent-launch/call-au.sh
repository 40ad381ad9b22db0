#!/usr/bin/env bash
# Call AU: the landed launch order (38080a5: dependents without the early trigger, the persistent
# ws launch plain) against the same build with FLASHATTN_FORWARD_SERIAL_LAUNCH=1 (two ab pairs,
# seed and long suites by graph replay, and host-ab), then against d0ab5a3 (main before this work:
# one ab pair), the seed and long suites beside PyTorch's SDPA backends, and the regression gate
# against the stored baseline. From the checkout root on the GPU host, with dist/gpu.txz,
# dist/d0ab5a3-bench.xz and dist/launch_floor carried; results in $OUT/call-au/vs-serial/ and
# $OUT/call-au/vs-main/ (summary.txt, logs.tar.gz; vs-main also bench.json, bench.md).
set -uo pipefail
printf '#!/bin/sh\nFLASHATTN_FORWARD_SERIAL_LAUNCH=1 exec "$(dirname "$0")/gpu/bin/flashattn-bench" "$@"\n' \
  > dist/serial-bench
chmod +x dist/serial-bench
OUT=${OUT:-gpu-out}/call-au/vs-serial AB_OLD=dist/serial-bench AB_REPS=2 HOST_AB_REPS=2 \
  AB_ARGS='--suite seed,long --modes graph --iters 30' \
  scripts/gpu-run.sh ab host-ab
OUT=${OUT:-gpu-out}/call-au/vs-main AB_OLD=dist/d0ab5a3-bench.xz AB_REPS=1 \
  AB_ARGS='--suite seed,long --modes graph --iters 30' \
  BENCH_ARGS='run --suite seed,long --modes graph --iters 30' \
  scripts/gpu-run.sh ab bench regression
