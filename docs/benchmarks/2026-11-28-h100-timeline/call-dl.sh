#!/usr/bin/env bash
# Call DL: the timeline probe (scripts/timeline.sh; kernels of main's HEAD plus the marks) on the
# head-dim-128 tiles at S2048 and S8192 and the head-dim-64 tiles at S1024 and on the seed
# shapes, then main's flashattn-bench (dist/gpu.txz, 4f3f006's build) on the same shapes by CUDA
# events, for what the marks cost. From the checkout root on the GPU host; results in
# $OUT/call-dl/.
set -uo pipefail
o=${OUT:-gpu-out}/call-dl
mkdir -p "$o"
OUT=$o scripts/timeline.sh run \
  "m128n176w12s2ws bf16 8 16 2048 128" \
  "m128n176w12s2ws bf16 2 16 8192 128" \
  "m128n128w12s3ws bf16 8 16 2048 128" \
  "m192n80w16s4ws bf16 8 16 2048 128" \
  "m192n80w16s4ws bf16 1 16 16384 128" \
  "m192n128w16s4ws bf16 16 32 1024 64" \
  "m128n128w12s4ws bf16 16 32 1024 64" \
  "m192n128w16s4ws bf16 4 32 4096 64" \
  "m192n128w16s4ws f16 8 16 512 64" \
  "m128n128w12s4ws f16 4 16 512 64" > "$o/timeline.log" 2>&1
tar -xJf dist/gpu.txz -C dist
bench() {  # bench CONFIG SHAPES
  dist/gpu/bin/flashattn-bench run --suite seed,long --shapes "$2" --modes events --iters 30 --baseline none \
    --kernel "$1" --out "$o/bench-$1.json" >> "$o/bench.log" 2>&1
}
bench sm90_bf16_d128_m128n176w12s2ws 'bf16 B8 H16/16 S2048x2048 D128,bf16 B2 H16/16 S8192x8192 D128'
bench sm90_bf16_d128_m192n80w16s4ws 'bf16 B8 H16/16 S2048x2048 D128,bf16 B1 H16/16 S16384x16384 D128'
bench sm90_bf16_d64_m192n128w16s4ws 'bf16 B16 H32/32 S1024x1024 D64,bf16 B4 H32/32 S4096x4096 D64'
bench sm90_f16_d64_m192n128w16s4ws 'f16 B8 H16/16 S512x512 D64'
grep -h "per launch" "$o"/timeline-*.txt
grep -h "events" "$o/bench.log"
