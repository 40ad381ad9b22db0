#!/usr/bin/env bash
# Call CL: main after the review's mends (dist/gpu.txz, 4df2f54: short_tile_deal takes the
# launcher's tile grid, causal_section takes kv_head_bytes once; host code only, the same values)
# against 5c2e281's bench (dist/main-bench.xz), seed and long suites, one pair; every GPU test,
# 150 fuzz cases, ws_short_last_tiles (both short-tile deals) under memcheck and racecheck. From
# the checkout root on the GPU host; results in $OUT/call-cl/.
set -uo pipefail
OUT=${OUT:-gpu-out}/call-cl AB_OLD=dist/main-bench.xz AB_REPS=1 \
  AB_ARGS='--suite seed,long --modes graph --iters 30' FUZZ_ARGS='--cases 150 --seed 343' \
  SANITIZE_TEST=ws_short_last_tiles SANITIZER_TOOLS='memcheck racecheck' \
  scripts/gpu-run.sh ab tests fuzz test-sanitizer
