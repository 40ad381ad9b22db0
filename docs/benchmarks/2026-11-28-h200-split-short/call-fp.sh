#!/usr/bin/env bash
# Call FP: the split's fourth version as landed (dist/gpu.txz; call FN's build plus consumer 0's
# wait for its own warps' reads before its finish): ws_short_last_tiles under memcheck, racecheck
# and synccheck; 300 fuzz cases on the 192-row head-dim-64 tile, then 30 under memcheck, 60 under
# racecheck, 60 under synccheck; flashattn-bench A/B against main (dist/main-bench-5468a4c.xz,
# two alternating pairs pooled) on call FI's shapes; the long suite beside PyTorch's SDPA
# backends; every GPU test. Results in $OUT/call-fp/ (checks.txt, ab-pooled.txt, bench-summary.txt).
set -uo pipefail
o=${OUT:-gpu-out}/call-fp
mkdir -p "$o"
[ -d dist/gpu/bin ] || tar -xJf dist/gpu.txz -C dist
echo "build $(cat dist/gpu/COMMIT)" > "$o/checks.txt"
OUT=$o/san SANITIZE_TEST=ws_short_last_tiles SANITIZER_LIMIT=150 scripts/gpu-run.sh test-sanitizer > "$o/san-run.log" 2>&1
cp "$o/san/summary.txt" "$o/sanitizer-summary.txt"
grep -E "sanitizer" "$o/san/summary.txt" >> "$o/checks.txt"
m192=sm90_bf16_d64_m192n128w16s4ws,sm90_f16_d64_m192n128w16s4ws
fz=dist/gpu/bin/flashattn-fuzz
$fz --cases 300 --seed 621 --config "$m192" --max-seqlen 1100 > "$o/fuzz-m192.log" 2>&1
echo "m192 d64 fuzz (300 cases, <= 1100): rc=$?; $(grep -E 'cases, [0-9]+ failed, [0-9.]+ s' "$o/fuzz-m192.log" | tail -1); $(grep persistent "$o/fuzz-m192.log" | head -1)" >> "$o/checks.txt"
san=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
for spec in "memcheck 30 623" "racecheck 60 625" "synccheck 60 627"; do
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
start=$SECONDS
OUT=$o/bench BENCH_ARGS='run --suite long --modes graph --iters 50' scripts/gpu-run.sh bench > "$o/bench-run.log" 2>&1
echo "bench: rc=$? in $((SECONDS - start)) s" >> "$o/checks.txt"
cp "$o/bench/summary.txt" "$o/bench-summary.txt" 2>/dev/null
OUT=$o/tests scripts/gpu-run.sh tests > "$o/tests-run.log" 2>&1
grep -E "^test |configs:|grid:" "$o/tests/summary.txt" >> "$o/checks.txt"
rm -rf "$o/san/work" "$o/ab/work" "$o/bench/work" "$o/tests/work"; rm -f "$o/bench/bench.json"
tar -czf "$o/../fp-logs.tar.gz" -C "$o" . 2>/dev/null && mv "$o/../fp-logs.tar.gz" "$o/logs.tar.gz"
# Few files come back from a lent host: checks, the sanitizer summary, the A/B, the bench and the bundle.
find "$o" -type f ! -name checks.txt ! -name sanitizer-summary.txt ! -name ab-pooled.txt ! -name bench-summary.txt \
  ! -name logs.tar.gz -delete
cat "$o/checks.txt" "$o/ab-pooled.txt"; tail -16 "$o/bench-summary.txt"
