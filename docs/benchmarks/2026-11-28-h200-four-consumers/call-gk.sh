#!/usr/bin/env bash
# Call GK: build 95a1065 (dist/gpu.txz: the two-consumer head-dim-64 walk takes each tile's first
# Q.K^T in the turn of the previous tile's last P.V, two Q buffers) on the lent H200:
#   1. the variant probe, 7896845 (main before) against 95a1065, on the two-consumer tile;
#   2. flashattn-bench A/B against main's kernels (dist/main-bench-d7637fa.xz; the same kernels as
#      7896845's): seed, long and sweep suites (the sweep's head-dim-64 shapes without a table row
#      walk on the two-consumer tile by the built-in rule), two pairs pooled;
#   3. every GPU test (gpu_fuzz among them);
#   4. ws_short_last_tiles under memcheck, racecheck, synccheck;
#   5. fuzz: --walks on the two-consumer head-dim-64 tile (200 cases), then under memcheck (20) and
#      racecheck (20).
# From the checkout root on the GPU host; results in $OUT/call-gk/.
set -uo pipefail
o=${OUT:-gpu-out}/call-gk
mkdir -p "$o"
[ -d dist/gpu/bin ] || tar -xJf dist/gpu.txz -C dist
echo "build $(cat dist/gpu/COMMIT)" > "$o/checks.txt"
dist/variant-ab/variant-ab 15 "m128n128w12s4ws f16 8 16 512 64" "m128n128w12s4ws f16 4 16 512 64" \
  "m128n128w12s4ws bf16 16 32 1024 64" "m128n128w12s4ws bf16 16 32 1024 64 lse" "m128n128w12s4ws bf16 4 32 4096 64" \
  "m128n128w12s4ws f16 2 16 1000 64" "m128n128w12s4ws f16 4 8 512 64" "m192n128w16s4ws bf16 16 32 1024 64" \
  > "$o/variant-ab.txt" 2>&1
echo "variant-ab: rc=$?" >> "$o/checks.txt"
start=$SECONDS
OUT=$o/ab AB_OLD=dist/main-bench-d7637fa.xz AB_REPS=2 AB_ARGS='--suite seed,long,sweep --modes graph --iters 30' \
  scripts/gpu-run.sh ab > "$o/ab-run.log" 2>&1
echo "ab: rc=$? in $((SECONDS - start)) s" >> "$o/checks.txt"
cp "$o/ab/ab-pooled.txt" "$o/ab-pooled.txt" 2>/dev/null
OUT=$o/tests scripts/gpu-run.sh tests > "$o/tests-run.log" 2>&1
grep -E "^test |configs:|grid:" "$o/tests/summary.txt" >> "$o/checks.txt"
OUT=$o/san SANITIZE_TEST=ws_short_last_tiles SANITIZER_LIMIT=90 scripts/gpu-run.sh test-sanitizer > "$o/san-run.log" 2>&1
cp "$o/san/summary.txt" "$o/sanitizer-summary.txt"
grep -E "sanitizer" "$o/san/summary.txt" >> "$o/checks.txt"
c2=sm90_bf16_d64_m128n128w12s4ws,sm90_f16_d64_m128n128w12s4ws
fz=dist/gpu/bin/flashattn-fuzz
$fz --walks --cases 200 --seed 801 --config "$c2" > "$o/fuzz-walks.log" 2>&1
echo "m128 d64 walks fuzz (200 cases): rc=$?; $(grep -E 'cases, [0-9]+ failed, [0-9.]+ s' "$o/fuzz-walks.log" | tail -1)" >> "$o/checks.txt"
san=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
for spec in "memcheck 20 803" "racecheck 20 805"; do
  set -- $spec
  start=$SECONDS
  timeout 70 "$san" --tool "$1" --error-exitcode 9 $fz --walks --cases "$2" --seed "$3" --config "$c2" \
    > "$o/fuzz-$1.log" 2>&1
  echo "m128 d64 walks fuzz under $1 ($2 cases): rc=$? in $((SECONDS - start)) s; $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$o/fuzz-$1.log" | tail -1); $(grep -E 'cases, [0-9]+ failed' "$o/fuzz-$1.log" | tail -1)" >> "$o/checks.txt"
  grep -m 40 -E "^=========" "$o/fuzz-$1.log" >> "$o/sanitizer-summary.txt"
done
rm -rf "$o/ab/work" "$o/san/work" "$o/tests/work"
tar -czf "$o/../gk-logs.tar.gz" -C "$o" . 2>/dev/null && mv "$o/../gk-logs.tar.gz" "$o/logs.tar.gz"
find "$o" -type f ! -name checks.txt ! -name sanitizer-summary.txt ! -name ab-pooled.txt ! -name variant-ab.txt \
  ! -name logs.tar.gz -delete
cat "$o/checks.txt" "$o/variant-ab.txt" "$o/ab-pooled.txt"
