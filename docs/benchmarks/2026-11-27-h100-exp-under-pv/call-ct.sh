#!/usr/bin/env bash
# Call CT: branch exp-under-pv at 6c11d11 (the exponentials under the warpgroup's own P.V from head
# dim 128 only; dist/gpu.txz) against main (4df2f54's kernels, dist/main-bench.xz): seed and long
# suites, graph replay, 30 samples, four pairs in alternating order, pooled; then the regression
# gate with SDPA's backends timed beside ours (seed and long, 50 samples: ours / cuDNN in the same
# run), then every GPU test (the grid over every configuration). From the checkout root on the GPU
# host; results in $OUT/call-ct/.
set -uo pipefail
OUT=${OUT:-gpu-out}/call-ct AB_OLD=dist/main-bench.xz AB_REPS=4 AB_ARGS='--suite seed,long --modes graph --iters 30' \
  GATE_SDPA=1 scripts/gpu-run.sh ab regression tests
