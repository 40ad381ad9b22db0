#!/usr/bin/env bash
# Call CC: branch deal-on-host (dist/gpu.txz: the short-tile deal decided once per launch on the
# host) against main (4fa06ad's kernels, dist/4fa06ad-bench.xz): seed and long suites, graph
# replay, 30 samples, three alternating pairs (whether f16 B8 H16 S512 gets back the 0.7-2.9% of
# call BV); then power and SM clock beside ours and cuDNN on three long shapes (whether the d128
# launches sit at the power cap); then every GPU test, 150 fuzz cases, and ws_short_last_tiles
# under memcheck and racecheck. From the checkout root on the GPU host; results in $OUT/call-cc/.
set -uo pipefail
OUT=${OUT:-gpu-out}/call-cc AB_OLD=dist/4fa06ad-bench.xz AB_REPS=3 \
  AB_ARGS='--suite seed,long --modes graph --iters 30' \
  POWER_SHAPES='bf16 B8 H16/16 S2048x2048 D128,bf16 B2 H16/16 S8192x8192 D128,bf16 B4 H32/32 S4096x4096 D64' \
  POWER_ITERS=200 FUZZ_ARGS='--cases 150 --seed 319' \
  SANITIZE_TEST=ws_short_last_tiles SANITIZER_TOOLS='memcheck racecheck' \
  scripts/gpu-run.sh ab power tests fuzz test-sanitizer
