#!/usr/bin/env bash
# Call FB: build 5468a4c (dist/gpu.txz; the head-dim-128 walk up to 4,096 keys on every ws tile,
# was 12 key tiles): 300 fuzz cases on the six head-dim-128 ws tiles with sequences up to 4,096,
# 30 of them under memcheck and 8 under racecheck; a same-run A/B against main's flashattn-bench
# (dist/main-bench-0b79050.xz, two alternating pairs pooled) on the shapes the rule moves (S2048
# and S4096 at head dim 128, plain and with score modifiers) and S8192 as a control; the tuner on
# S2048 D128 against the table and rule; the long suite beside PyTorch's SDPA backends (graph
# replay). From the checkout root on the GPU host; results in $OUT/call-fb/.
set -uo pipefail
o=${OUT:-gpu-out}/call-fb
mkdir -p "$o"
[ -d dist/gpu/bin ] || tar -xJf dist/gpu.txz -C dist
ws=sm90_bf16_d128_m128n176w12s2ws,sm90_f16_d128_m128n176w12s2ws,sm90_bf16_d128_m128n128w12s3ws
ws+=,sm90_f16_d128_m128n128w12s3ws,sm90_bf16_d128_m192n80w16s4ws,sm90_f16_d128_m192n80w16s4ws
fz=dist/gpu/bin/flashattn-fuzz
$fz --cases 300 --seed 557 --head-dim 128 --config "$ws" --max-seqlen 4096 --json "$o/fuzz-d128-ws.json" > "$o/fuzz-d128-ws.log" 2>&1
echo "d128 ws fuzz (300 cases, <= 4096): rc=$?" > "$o/checks.txt"
grep -E "cases, [0-9]+ failed, [0-9.]+ s|persistent ws walk|worst" "$o/fuzz-d128-ws.log" | tail -3 >> "$o/checks.txt"
san=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
for spec in "memcheck 30 561" "racecheck 8 563"; do
  set -- $spec
  start=$SECONDS
  timeout 200 "$san" --tool "$1" --error-exitcode 9 $fz --cases "$2" --seed "$3" --head-dim 128 --config "$ws" \
    --max-seqlen 4096 > "$o/fuzz-$1.log" 2>&1
  echo "d128 ws fuzz under $1 ($2 cases): rc=$? in $((SECONDS - start)) s; $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$o/fuzz-$1.log" | tail -1); $(grep -E 'cases, [0-9]+ failed|persistent ws walk' "$o/fuzz-$1.log" | tail -2 | tr '\n' ' ')" >> "$o/checks.txt"
done
shapes='bf16 B8 H16/16 S2048x2048 D128,bf16 B4 H16/16 S4096x4096 D128,bf16 B2 H16/16 S8192x8192 D128'
for m in softcap30 alibi sinks; do shapes+=",bf16 B8 H16/16 S2048x2048 D128 $m"; done
OUT=$o/ab AB_OLD=dist/main-bench-0b79050.xz AB_REPS=2 AB_SHAPES="$shapes" \
  AB_ARGS='--suite sweep,long,masks --modes graph --iters 30' scripts/gpu-run.sh ab > "$o/ab-run.log" 2>&1
OUT=$o/tune TUNE_ARGS='--suite long --iters 20' TUNE_SHAPES='bf16 B8 H16/16 S2048x2048 D128' AB_REPS=2 \
  TUNED_AB_ARGS='--suite long --modes graph --iters 30' scripts/gpu-run.sh tune tuned-ab > "$o/tune-run.log" 2>&1
OUT=$o/bench BENCH_ARGS='run --suite long --modes graph --iters 50' scripts/gpu-run.sh bench > "$o/bench-run.log" 2>&1
cat "$o/checks.txt" "$o/ab/ab-pooled.txt" "$o/tune/summary.txt"
tail -24 "$o/bench/summary.txt"
# The variant A/B probe (dist/variant-ab: this commit's kernels, and the head-dim-64 walks storing O
# from registers, Q released after the key loop (ofr64) or inside it (ofr64q); edits/ofr64.py).
dist/variant-ab/variant-ab 11 "m192n128w16s4ws f16 8 16 512 64" "m192n128w16s4ws bf16 16 32 1024 64" \
  "m192n128w16s4ws bf16 4 32 4096 64" "m128n128w12s4ws f16 4 8 512 64" "m128n128w12s4ws bf16 16 32 1024 64" \
  "m128n176w12s2ws bf16 8 16 2048 128" > "$o/variant-ab.txt" 2>&1
echo "variant-ab: rc=$?" >> "$o/variant-ab.txt"
cat "$o/variant-ab.txt"
