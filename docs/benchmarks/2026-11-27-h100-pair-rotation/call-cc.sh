#!/usr/bin/env bash
# Call CC (not yet run: next session's first call): branch deal-on-host (its one commit on main, dist/gpu.txz:
# the short-tile deal decided once per launch on the host) against main (4fa06ad's kernels,
# dist/4fa06ad-bench.xz): seed and long suites, graph replay, 30 samples, four alternating pairs
# (whether f16 B8 H16 S512 gets back the 0.7-2.9% of call BV), then every GPU test, 150 fuzz
# cases, and ws_short_last_tiles under memcheck and racecheck (scripts/gpu-run.sh's ab, tests,
# fuzz and test-sanitizer steps). From the checkout root on the GPU host; results in $OUT/call-cc/.
set -uo pipefail
OUT=${OUT:-gpu-out}/call-cc AB_OLD=dist/4fa06ad-bench.xz AB_REPS=4 \
  AB_ARGS='--suite seed,long --modes graph --iters 30' FUZZ_ARGS='--cases 150 --seed 319' \
  SANITIZE_TEST=ws_short_last_tiles SANITIZER_TOOLS='memcheck racecheck' \
  scripts/gpu-run.sh ab tests fuzz test-sanitizer
