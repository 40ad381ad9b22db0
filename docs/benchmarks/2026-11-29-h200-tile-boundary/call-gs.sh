#!/usr/bin/env bash
# Call GS: build 75f9f94 (dist/gpu.txz) on the lent H200, the checks of the hand-over:
#   1. every GPU test (gpu_fuzz among them);
#   2. ws_short_last_tiles under memcheck, racecheck, synccheck;
#   3. fuzz: --walks on the two head-dim-64 walking tiles (two and three consumers, 200 cases),
#      then under memcheck (20) and racecheck (20).
# From the checkout root on the GPU host; results in $OUT/call-gs/.
set -uo pipefail
o=${OUT:-gpu-out}/call-gs
mkdir -p "$o"
[ -d dist/gpu/bin ] || tar -xJf dist/gpu.txz -C dist
echo "build $(cat dist/gpu/COMMIT)" > "$o/checks.txt"
OUT=$o/tests scripts/gpu-run.sh tests > "$o/tests-run.log" 2>&1
grep -E "^test |configs:|grid:" "$o/tests/summary.txt" >> "$o/checks.txt"
OUT=$o/san SANITIZE_TEST=ws_short_last_tiles SANITIZER_LIMIT=90 scripts/gpu-run.sh test-sanitizer > "$o/san-run.log" 2>&1
cp "$o/san/summary.txt" "$o/sanitizer-summary.txt"
grep -E "sanitizer" "$o/san/summary.txt" >> "$o/checks.txt"
walks=sm90_bf16_d64_m128n128w12s4ws,sm90_f16_d64_m128n128w12s4ws,sm90_bf16_d64_m192n128w16s4ws,sm90_f16_d64_m192n128w16s4ws
fz=dist/gpu/bin/flashattn-fuzz
$fz --walks --cases 200 --seed 901 --config "$walks" > "$o/fuzz-walks.log" 2>&1
echo "d64 walks fuzz (200 cases): rc=$?; $(grep -E 'cases, [0-9]+ failed, [0-9.]+ s' "$o/fuzz-walks.log" | tail -1)" >> "$o/checks.txt"
san=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
for spec in "memcheck 20 903" "racecheck 20 905"; do
  set -- $spec
  start=$SECONDS
  timeout 80 "$san" --tool "$1" --error-exitcode 9 $fz --walks --cases "$2" --seed "$3" --config "$walks" \
    > "$o/fuzz-$1.log" 2>&1
  echo "d64 walks fuzz under $1 ($2 cases): rc=$? in $((SECONDS - start)) s; $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$o/fuzz-$1.log" | tail -1); $(grep -E 'cases, [0-9]+ failed' "$o/fuzz-$1.log" | tail -1)" >> "$o/checks.txt"
  grep -m 40 -E "^=========" "$o/fuzz-$1.log" >> "$o/sanitizer-summary.txt"
done
rm -rf "$o/san/work" "$o/tests/work"
tar -czf "$o/../gs-logs.tar.gz" -C "$o" . 2>/dev/null && mv "$o/../gs-logs.tar.gz" "$o/logs.tar.gz"
find "$o" -type f ! -name checks.txt ! -name sanitizer-summary.txt ! -name logs.tar.gz -delete
find "$o" -type d -empty -delete
cat "$o/checks.txt"
