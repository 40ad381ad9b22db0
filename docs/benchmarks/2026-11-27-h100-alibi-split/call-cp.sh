#!/usr/bin/env bash
# Call CP: branch q-prefetch (dist/gpu.txz: the ws kernel's producer, one CTA per tile, prefetches
# into L2 the Q tile of the CTA an SM count ahead in dispatch order) against main (a63c88a's
# kernels, dist/main-bench.xz): long and causal suites, graph replay, 30 samples, four
# alternating pairs. From the checkout root on the GPU host; results in $OUT/call-cp/.
set -uo pipefail
OUT=${OUT:-gpu-out}/call-cp AB_OLD=dist/main-bench.xz AB_REPS=4 AB_ARGS='--suite long,causal --modes graph --iters 30' \
  scripts/gpu-run.sh ab
