#!/usr/bin/env bash
# Call DO: build 9a7b251 (dist/gpu.txz; the head-dim-128 walk up to 8 key tiles, O from
# registers; the prologue change of call DN reverted): every GPU test (the grid's
# ws_short_last_tiles walks head dim 128 now), 200 fuzz cases over every configuration with
# features mixed, a same-run A/B against main's flashattn-bench (dist/main-bench-4f3f006.xz; two
# alternating pairs, pooled) on the walked and the head-dim-128 long shapes, the small fuzz
# cases under memcheck, racecheck and synccheck, and ws_short_last_tiles under memcheck and
# racecheck. From the checkout root on the GPU host; results in $OUT/call-do/.
set -uo pipefail
o=${OUT:-gpu-out}/call-do
mkdir -p "$o"
shapes='bf16 B32 H16/16 S512x512 D128,bf16 B16 H16/16 S1024x1024 D128,bf16 B8 H16/16 S2048x2048 D128'
shapes+=',bf16 B2 H16/16 S8192x8192 D128,bf16 B1 H16/16 S16384x16384 D128,f16 B2 H16/16 S8192x8192 D128'
shapes+=',bf16 B16 H16/16 S1024x1024 D128 causal,bf16 B16 H32/32 S1024x1024 D64'
OUT=$o FUZZ_ARGS='--cases 200 --seed 499' AB_OLD=dist/main-bench-4f3f006.xz AB_REPS=2 AB_SHAPES="$shapes" \
  AB_ARGS='--suite sweep,long,causal --modes graph --iters 30' FUZZ_SANITIZER_CASES='60 30 30' SANITIZER_LIMIT=60 \
  scripts/gpu-run.sh tests fuzz ab fuzz-sanitizer > "$o/gpu-run.log" 2>&1
# (This loop repeats what `SANITIZE_TEST=ws_short_last_tiles SANITIZER_TOOLS='memcheck racecheck'
# scripts/gpu-run.sh test-sanitizer` does; written by hand because that step did not yet note the
# test's cases line. Kept as the record of what ran; later calls use the step: call DR.)
san=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
for tool in memcheck racecheck; do
  start=$SECONDS
  timeout 100 "$san" --tool $tool --error-exitcode 9 dist/gpu/bin/fuzz--gpu_grid --include-ignored --exact ws_short_last_tiles \
    --nocapture > "$o/short-tiles-$tool.log" 2>&1
  echo "ws_short_last_tiles under $tool: rc=$? in $((SECONDS - start)) s; $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$o/short-tiles-$tool.log" | tail -1); $(grep -E 'short last tiles' "$o/short-tiles-$tool.log")" >> "$o/sanitizer.txt"
done
grep -E "^test |grid:|fuzz|FAIL|panicked|ab pooled" "$o/summary.txt" | head -30
cat "$o/ab-pooled.txt" "$o/sanitizer.txt"
