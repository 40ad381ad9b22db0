#!/usr/bin/env bash
# Call FH: build d41d67b (dist/gpu.txz; short tiles split by keys across the consumers in the
# persistent 192-row head-dim-64 walk): every GPU test (ws_short_last_tiles with a 64-row last
# tile added) and 120 fuzz cases over every configuration; ws_short_last_tiles under memcheck,
# racecheck and synccheck; 300 fuzz cases on the 192-row head-dim-64 tile with sequences up to
# 1,100, 30 of them under memcheck and 10 under racecheck. From the checkout root on the GPU
# host; results in $OUT/call-fh/ (checks.txt first).
set -uo pipefail
o=${OUT:-gpu-out}/call-fh
mkdir -p "$o"
[ -d dist/gpu/bin ] || tar -xJf dist/gpu.txz -C dist
OUT=$o/tests FUZZ_ARGS='--cases 120 --seed 571' scripts/gpu-run.sh tests fuzz > "$o/tests-run.log" 2>&1
grep -E "^test |configs:|grid:|short last|fuzz|FAIL|panicked" "$o/tests/summary.txt" | head -30 > "$o/checks.txt"
OUT=$o/san SANITIZE_TEST=ws_short_last_tiles SANITIZER_LIMIT=150 scripts/gpu-run.sh test-sanitizer > "$o/san-run.log" 2>&1
grep -E "sanitizer" "$o/san/summary.txt" >> "$o/checks.txt"
m192=sm90_bf16_d64_m192n128w16s4ws,sm90_f16_d64_m192n128w16s4ws
fz=dist/gpu/bin/flashattn-fuzz
$fz --cases 300 --seed 573 --config "$m192" --max-seqlen 1100 --json "$o/fuzz-m192.json" > "$o/fuzz-m192.log" 2>&1
echo "m192 d64 fuzz (300 cases, <= 1100): rc=$?; $(grep -E 'cases, [0-9]+ failed, [0-9.]+ s' "$o/fuzz-m192.log" | tail -1)" >> "$o/checks.txt"
grep -E "persistent ws\)|worst error ratio" "$o/fuzz-m192.log" | tail -2 | cut -c1-220 >> "$o/checks.txt"
san=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
for spec in "memcheck 30 577" "racecheck 10 579"; do
  set -- $spec
  start=$SECONDS
  timeout 120 "$san" --tool "$1" --error-exitcode 9 $fz --cases "$2" --seed "$3" --config "$m192" --max-seqlen 1100 \
    > "$o/fuzz-$1.log" 2>&1
  echo "m192 d64 fuzz under $1 ($2 cases): rc=$? in $((SECONDS - start)) s; $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$o/fuzz-$1.log" | tail -1); $(grep -E 'cases, [0-9]+ failed' "$o/fuzz-$1.log" | tail -1)" >> "$o/checks.txt"
done
cat "$o/checks.txt"
