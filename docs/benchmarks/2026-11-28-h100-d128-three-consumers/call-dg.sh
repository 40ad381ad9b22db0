#!/usr/bin/env bash
# Call DG: the landed build (the 192-row head-dim-128 ws tile on four H100 table rows, the rule's
# row-padding condition; dist/gpu.txz) with main's flashattn-bench beside it (dist/main-bench.xz).
# 1. The regression gate with SDPA's backends timed beside ours (seed and long suites, graph
#    replay, 50 samples): issue 12's ratios.
# 2. Same-run A/B against main, three alternating pairs, pooled, on the head-dim-128 shapes whose
#    tile the change moves or could move (sweep, causal and long suites).
# 3. The GPU grid tests (every configuration, the short-last-tile cases) and 200 fuzz cases over
#    every configuration with features mixed.
# From the checkout root on the GPU host; results in $OUT/call-dg/.
set -uo pipefail
shapes='bf16 B32 H16/16 S512x512 D128,bf16 B16 H16/16 S1024x1024 D128,bf16 B8 H16/16 S2048x2048 D128,bf16 B4 H16/16 S4096x4096 D128,bf16 B1 H16/16 S16384x16384 D128'
shapes+=',bf16 B8 H16/16 S2048x2048 D128 causal,bf16 B4 H16/16 S4096x4096 D128 causal,bf16 B1 H16/16 S16384x16384 D128 causal,bf16 B2 H32/8 S8192x8192 D128 causal'
OUT=${OUT:-gpu-out}/call-dg GATE_SDPA=1 AB_OLD=dist/main-bench.xz AB_REPS=3 AB_SHAPES="$shapes" \
  AB_ARGS='--suite sweep,causal,long --modes graph --iters 20' TEST_FILTER=gpu_grid FUZZ_ARGS='--cases 200 --seed 467' \
  scripts/gpu-run.sh regression ab tests fuzz
