#!/usr/bin/env bash
# Call EE: build 77c7394 (dist/gpu.txz; the head-dim-128 walk with Q released after the key loop,
# up to 12 key tiles): every GPU test, 200 fuzz cases over every configuration with features
# mixed and 300 on the six head-dim-128 ws tiles with sequences up to 2048 (walks of up to 12 key
# tiles), a same-run A/B against main's flashattn-bench (dist/main-bench-d30b9b4.xz; two
# alternating pairs, pooled) on the walked head-dim-128 shapes (plain and with score modifiers)
# and S8192 as a control. From the checkout root on the GPU host; results in $OUT/call-ee/.
set -uo pipefail
o=${OUT:-gpu-out}/call-ee
mkdir -p "$o"
[ -d dist/gpu/bin ] || tar -xJf dist/gpu.txz -C dist
shapes='bf16 B32 H16/16 S512x512 D128,bf16 B16 H16/16 S1024x1024 D128,bf16 B8 H16/16 S2048x2048 D128'
shapes+=',bf16 B2 H16/16 S8192x8192 D128'
for m in softcap30 alibi sinks; do shapes+=",bf16 B8 H16/16 S2048x2048 D128 $m"; done
OUT=$o/run FUZZ_ARGS='--cases 200 --seed 521' AB_OLD=dist/main-bench-d30b9b4.xz AB_REPS=2 AB_SHAPES="$shapes" \
  AB_ARGS='--suite sweep,long,masks --modes graph --iters 30' \
  scripts/gpu-run.sh tests fuzz ab > "$o/gpu-run.log" 2>&1
ws=sm90_bf16_d128_m128n176w12s2ws,sm90_f16_d128_m128n176w12s2ws,sm90_bf16_d128_m128n128w12s3ws
ws+=,sm90_f16_d128_m128n128w12s3ws,sm90_bf16_d128_m192n80w16s4ws,sm90_f16_d128_m192n80w16s4ws
dist/gpu/bin/flashattn-fuzz --cases 300 --seed 523 --head-dim 128 --config "$ws" --max-seqlen 2048 \
  --json "$o/fuzz-d128-ws.json" > "$o/fuzz-d128-ws.log" 2>&1
echo "d128 ws fuzz: rc=$?" > "$o/fuzz-d128-ws.txt"
grep -E "persistent|cases, [0-9]+ failed|worst error ratio|all .* cases passed" "$o/fuzz-d128-ws.log" | head -6 >> "$o/fuzz-d128-ws.txt"
grep -E "^test |configs:|grid:|fuzz|FAIL|panicked|short last" "$o/run/summary.txt" | head -30
cat "$o/fuzz-d128-ws.txt" "$o/run/ab-pooled.txt"
