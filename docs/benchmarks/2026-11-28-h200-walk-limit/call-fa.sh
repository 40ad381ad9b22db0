#!/usr/bin/env bash
# Call FA: main (0b79050, dist/gpu.txz; the variant rule moved to common/features.cuh in 2189fdc,
# CPU CI only until now): every GPU test and 200 fuzz cases over every configuration;
# ws_short_last_tiles under memcheck, racecheck and synccheck; the variant A/B probe
# (dist/variant-ab: main, and the head-dim-128 walk allowed up to 26 and 52 key tiles, built with
# PROBE_EVERY_VARIANT=1, so its score-modifier path runs on a GPU for the first time) on the
# 80-key and 176-key tiles at 2,048-8,192 keys. From the checkout root on the GPU host; results in
# $OUT/call-fa/.
set -uo pipefail
o=${OUT:-gpu-out}/call-fa
mkdir -p "$o"
[ -d dist/gpu/bin ] || tar -xJf dist/gpu.txz -C dist
OUT=$o/tests FUZZ_ARGS='--cases 200 --seed 551' scripts/gpu-run.sh tests fuzz > "$o/tests-run.log" 2>&1
OUT=$o/san SANITIZE_TEST=ws_short_last_tiles SANITIZER_LIMIT=150 scripts/gpu-run.sh test-sanitizer > "$o/san-run.log" 2>&1
dist/variant-ab/variant-ab 11 \
  "m192n80w16s4ws bf16 8 16 2048 128" "m192n80w16s4ws bf16 4 16 4096 128" \
  "m128n176w12s2ws bf16 4 16 4096 128" "m128n176w12s2ws bf16 2 16 8192 128" \
  "m128n128w12s3ws bf16 8 16 2048 128" "m192n80w16s4ws f16 8 16 2048 128" \
  "m192n80w16s4ws bf16 8 16 2048 128 softcap=30" "m192n80w16s4ws bf16 8 16 2048 128 alibi lse" \
  "m192n80w16s4ws bf16 2 16 8192 128" > "$o/variant-ab.txt" 2>&1
echo "variant-ab: rc=$?" >> "$o/variant-ab.txt"
grep -E "^test |configs:|grid:|fuzz|FAIL|panicked" "$o/tests/summary.txt" | head -30
cat "$o/san/summary.txt" "$o/variant-ab.txt"
