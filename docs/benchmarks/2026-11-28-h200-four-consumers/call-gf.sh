#!/usr/bin/env bash
# Call GF: build 644804a (dist/gpu.txz) on the lent H200: ws_short_last_tiles under memcheck,
# racecheck and synccheck; 300 fuzz cases on the four-consumer tile, then 30 under memcheck, 60 under
# racecheck, 60 under synccheck; 300 fuzz cases on the two-consumer head-dim-64 tile (its exponentials
# moved); 400 default fuzz cases; every GPU test. Results in $OUT/call-gf/.
set -uo pipefail
o=${OUT:-gpu-out}/call-gf
mkdir -p "$o"
[ -d dist/gpu/bin ] || tar -xJf dist/gpu.txz -C dist
echo "build $(cat dist/gpu/COMMIT)" > "$o/checks.txt"
OUT=$o/san SANITIZE_TEST=ws_short_last_tiles SANITIZER_LIMIT=120 scripts/gpu-run.sh test-sanitizer > "$o/san-run.log" 2>&1
cp "$o/san/summary.txt" "$o/sanitizer-summary.txt"
grep -E "sanitizer" "$o/san/summary.txt" >> "$o/checks.txt"
c4=sm90_bf16_d64_m256n96w20s4ws,sm90_f16_d64_m256n96w20s4ws
c2=sm90_bf16_d64_m128n128w12s4ws,sm90_f16_d64_m128n128w12s4ws
fz=dist/gpu/bin/flashattn-fuzz
$fz --cases 300 --seed 701 --config "$c4" --max-seqlen 1100 > "$o/fuzz-c4.log" 2>&1
echo "m256 d64 fuzz (300 cases, <= 1100): rc=$?; $(grep -E 'cases, [0-9]+ failed, [0-9.]+ s' "$o/fuzz-c4.log" | tail -1)" >> "$o/checks.txt"
$fz --cases 300 --seed 703 --config "$c2" --max-seqlen 1100 > "$o/fuzz-c2.log" 2>&1
echo "m128 d64 fuzz (300 cases, <= 1100): rc=$?; $(grep -E 'cases, [0-9]+ failed, [0-9.]+ s' "$o/fuzz-c2.log" | tail -1)" >> "$o/checks.txt"
$fz --cases 400 --seed 705 > "$o/fuzz-all.log" 2>&1
echo "fuzz (400 cases, every configuration): rc=$?; $(grep -E 'cases, [0-9]+ failed, [0-9.]+ s' "$o/fuzz-all.log" | tail -1)" >> "$o/checks.txt"
san=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
for spec in "memcheck 30 707" "racecheck 60 709" "synccheck 60 711"; do
  set -- $spec
  start=$SECONDS
  timeout 120 "$san" --tool "$1" --error-exitcode 9 $fz --cases "$2" --seed "$3" --config "$c4" --max-seqlen 600 \
    > "$o/fuzz-$1.log" 2>&1
  echo "m256 d64 fuzz under $1 ($2 cases): rc=$? in $((SECONDS - start)) s; $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$o/fuzz-$1.log" | tail -1); $(grep -E 'cases, [0-9]+ failed' "$o/fuzz-$1.log" | tail -1)" >> "$o/checks.txt"
  grep -m 40 -E "^=========" "$o/fuzz-$1.log" >> "$o/sanitizer-summary.txt"
done
OUT=$o/tests scripts/gpu-run.sh tests > "$o/tests-run.log" 2>&1
grep -E "^test |configs:|grid:" "$o/tests/summary.txt" >> "$o/checks.txt"
rm -rf "$o/san/work" "$o/tests/work"
tar -czf "$o/../gf-logs.tar.gz" -C "$o" . 2>/dev/null && mv "$o/../gf-logs.tar.gz" "$o/logs.tar.gz"
find "$o" -type f ! -name checks.txt ! -name sanitizer-summary.txt ! -name logs.tar.gz -delete
cat "$o/checks.txt"
