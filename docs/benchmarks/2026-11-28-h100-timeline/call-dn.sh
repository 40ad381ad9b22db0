#!/usr/bin/env bash
# Call DN: build eb780b2 (dist/gpu.txz; dist/timeline its probe): the head-dim-128 walk only
# where a tile has at most 8 key tiles, and a dense tile's prologue ahead of the wait for the
# grid before (all three forward kernels).
# 1. Same-run A/B against main's flashattn-bench (dist/main-bench-4f3f006.xz), three alternating
#    pairs, pooled: the seed and long suites (the prologue) and the sweep's head-dim-128 S512 and
#    S1024 (the walk), a softcap and a causal shape.
# 2. The timeline probe on the seed-sized ws launches and the walking S1024 tile.
# From the checkout root on the GPU host; results in $OUT/call-dn/.
set -uo pipefail
o=${OUT:-gpu-out}/call-dn
mkdir -p "$o"
shapes='f16 B1 H8/8 S512x512 D64,f16 B1 H8/8 S512x512 D64 causal,f16 B2 H8/8 S512x512 D64,f16 B2 H8/8 S512x512 D64 causal'
shapes+=',f16 B4 H8/8 S512x512 D64,f16 B4 H8/8 S512x512 D64 causal,f16 B4 H16/16 S512x512 D64,f16 B4 H16/16 S512x512 D64 causal'
shapes+=',f16 B8 H16/16 S512x512 D64,f16 B8 H16/16 S512x512 D64 causal'
shapes+=',bf16 B16 H32/32 S1024x1024 D64,bf16 B4 H32/32 S4096x4096 D64,bf16 B8 H16/16 S2048x2048 D128,bf16 B2 H16/16 S8192x8192 D128'
shapes+=',bf16 B2 H16/16 S8192x8192 D128 causal,bf16 B1 H16/16 S16384x16384 D128,bf16 B2 H8/8 S8192x8192 D256'
shapes+=',f16 B4 H32/32 S4096x4096 D64,f16 B2 H16/16 S8192x8192 D128,bf16 B2 H32/8 S8192x8192 D128 causal'
shapes+=',bf16 B32 H16/16 S512x512 D128,bf16 B16 H16/16 S1024x1024 D128,bf16 B8 H16/16 S2048x2048 D128 softcap30'
OUT=$o AB_OLD=dist/main-bench-4f3f006.xz AB_REPS=3 AB_SHAPES="$shapes" \
  AB_ARGS='--suite seed,long,sweep,masks --modes graph --iters 30' scripts/gpu-run.sh ab > "$o/gpu-run.log" 2>&1
OUT=$o scripts/timeline.sh run \
  "m128n128w12s3ws bf16 16 16 1024 128" \
  "m128n176w12s2ws bf16 16 16 1024 128" \
  "m192n128w16s4ws f16 8 16 512 64" > "$o/timeline.log" 2>&1
grep -h "per launch\|beyond steady\|entry ->\|barriers ->\|grid wait ->" "$o"/timeline-*.txt
cat "$o"/ab-pooled.txt
