#!/usr/bin/env bash
# Call DM: branch walk-d128 (dist/gpu.txz; dist/timeline its probe): the persistent walk at head
# dim 128 with O stored from registers.
# 1. The timeline probe on the walking head-dim-128 tiles (S2048, S8192, S16384).
# 2. Same-run A/B against main's flashattn-bench (dist/main-bench-4f3f006.xz), two alternating
#    pairs, pooled: the non-causal head-dim-128 shapes of the sweep, long and masks suites (the
#    ones that now walk), a causal and a head-dim-64 shape as controls.
# 3. The GPU grid tests (ws_short_last_tiles now walks head dim 128).
# From the checkout root on the GPU host; results in $OUT/call-dm/.
set -uo pipefail
o=${OUT:-gpu-out}/call-dm
mkdir -p "$o"
OUT=$o scripts/timeline.sh run \
  "m128n176w12s2ws bf16 8 16 2048 128" \
  "m128n176w12s2ws bf16 2 16 8192 128" \
  "m128n128w12s3ws bf16 8 16 2048 128" \
  "m192n80w16s4ws bf16 1 16 16384 128" > "$o/timeline.log" 2>&1
shapes='bf16 B8 H16/16 S2048x2048 D128,bf16 B2 H16/16 S8192x8192 D128,bf16 B1 H16/16 S16384x16384 D128,f16 B2 H16/16 S8192x8192 D128'
shapes+=',bf16 B32 H16/16 S512x512 D128,bf16 B16 H16/16 S1024x1024 D128,bf16 B4 H16/16 S4096x4096 D128'
shapes+=',bf16 B8 H16/16 S2048x2048 D128 softcap30,bf16 B2 H16/16 S8192x8192 D128 alibi,bf16 B1 H16/16 S16384x16384 D128 sinks'
shapes+=',bf16 B2 H16/16 S8192x8192 D128 causal,bf16 B16 H32/32 S1024x1024 D64'
OUT=$o AB_OLD=dist/main-bench-4f3f006.xz AB_REPS=2 AB_SHAPES="$shapes" \
  AB_ARGS='--suite sweep,long,masks --modes graph --iters 20' TEST_FILTER=gpu_grid \
  scripts/gpu-run.sh ab tests > "$o/gpu-run.log" 2>&1
grep -h "per launch\|beyond steady\|walk:" "$o"/timeline-*.txt
cat "$o"/ab-pooled*.txt 2>/dev/null | head -40
grep -E "^test |short last|grid:|FAIL|panicked" "$o/summary.txt" | head -20
