#!/usr/bin/env bash
# Call FN: the split's fourth version (dist/gpu.txz: split-short.patch as of this call, on main
# 8f686c6; the merge's hand-overs by mbarriers, every thread arriving, after call FM's probe):
# ws_short_last_tiles under memcheck, racecheck and synccheck; 300 fuzz cases on the 192-row
# head-dim-64 tile, then 30 under memcheck, 60 under racecheck, 60 under synccheck; flashattn-bench
# A/B against main (dist/main-bench-5468a4c.xz: main's kernels; two alternating pairs pooled, the
# dispatcher choosing) on call FI's shapes. Results in $OUT/call-fn/ (checks.txt, ab-pooled.txt).
set -uo pipefail
o=${OUT:-gpu-out}/call-fn
mkdir -p "$o"
[ -d dist/gpu/bin ] || tar -xJf dist/gpu.txz -C dist
echo "build $(cat dist/gpu/COMMIT)" > "$o/checks.txt"
OUT=$o/san SANITIZE_TEST=ws_short_last_tiles SANITIZER_LIMIT=150 scripts/gpu-run.sh test-sanitizer > "$o/san-run.log" 2>&1
cp "$o/san/summary.txt" "$o/sanitizer-summary.txt"
grep -E "sanitizer" "$o/san/summary.txt" >> "$o/checks.txt"
m192=sm90_bf16_d64_m192n128w16s4ws,sm90_f16_d64_m192n128w16s4ws
fz=dist/gpu/bin/flashattn-fuzz
$fz --cases 300 --seed 611 --config "$m192" --max-seqlen 1100 > "$o/fuzz-m192.log" 2>&1
echo "m192 d64 fuzz (300 cases, <= 1100): rc=$?; $(grep -E 'cases, [0-9]+ failed, [0-9.]+ s' "$o/fuzz-m192.log" | tail -1); $(grep persistent "$o/fuzz-m192.log" | head -1)" >> "$o/checks.txt"
san=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
for spec in "memcheck 30 613" "racecheck 60 615" "synccheck 60 617"; do
  set -- $spec
  start=$SECONDS
  timeout 150 "$san" --tool "$1" --error-exitcode 9 $fz --cases "$2" --seed "$3" --config "$m192" --max-seqlen 1100 \
    > "$o/fuzz-$1.log" 2>&1
  echo "m192 d64 fuzz under $1 ($2 cases): rc=$? in $((SECONDS - start)) s; $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$o/fuzz-$1.log" | tail -1); $(grep -E 'cases, [0-9]+ failed' "$o/fuzz-$1.log" | tail -1)" >> "$o/checks.txt"
  grep -m 40 -E "^=========" "$o/fuzz-$1.log" >> "$o/sanitizer-summary.txt"
done
shapes='bf16 B16 H32/32 S1024x1024 D64,bf16 B4 H32/32 S4096x4096 D64,f16 B4 H32/32 S4096x4096 D64'
shapes+=',f16 B8 H16/16 S512x512 D64,bf16 B2 H16/16 S8192x8192 D128'
for m in softcap30 alibi sinks; do shapes+=",bf16 B16 H32/32 S1024x1024 D64 $m"; done
start=$SECONDS
OUT=$o/ab AB_OLD=dist/main-bench-5468a4c.xz AB_REPS=2 AB_SHAPES="$shapes" \
  AB_ARGS='--suite seed,long,masks --modes graph --iters 30' scripts/gpu-run.sh ab > "$o/ab-run.log" 2>&1
echo "ab: rc=$? in $((SECONDS - start)) s" >> "$o/checks.txt"
cp "$o/ab/ab-pooled.txt" "$o/ab-pooled.txt" 2>/dev/null
rm -rf "$o/san/work" "$o/ab/work"
tar -czf "$o/../fn-logs.tar.gz" -C "$o" . 2>/dev/null && mv "$o/../fn-logs.tar.gz" "$o/logs.tar.gz"
# Few files come back from a lent host: checks, the sanitizer summary, the A/B and the bundle.
find "$o" -type f ! -name checks.txt ! -name sanitizer-summary.txt ! -name ab-pooled.txt ! -name logs.tar.gz -delete
cat "$o/checks.txt" "$o/ab-pooled.txt"
