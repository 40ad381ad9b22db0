#!/usr/bin/env bash
# Call FJ: the split patch's third version (split-short.patch on main 8f686c6, dist/gpu.txz; every
# merge step one bar.sync of all consumers at one place): ws_short_last_tiles under memcheck,
# racecheck and synccheck (findings grouped into the summary if any); 300 fuzz cases on the 192-row
# head-dim-64 tile, then 30 under memcheck, 60 under racecheck and 60 under synccheck; every GPU
# test. From the checkout root on the GPU host; results in $OUT/call-fj/ (checks.txt first).
set -uo pipefail
o=${OUT:-gpu-out}/call-fj
mkdir -p "$o"
[ -d dist/gpu/bin ] || tar -xJf dist/gpu.txz -C dist
echo "build $(cat dist/gpu/COMMIT)" > "$o/checks.txt"
OUT=$o/san SANITIZE_TEST=ws_short_last_tiles SANITIZER_LIMIT=150 scripts/gpu-run.sh test-sanitizer > "$o/san-run.log" 2>&1
cp "$o/san/summary.txt" "$o/sanitizer-summary.txt"
grep -E "sanitizer" "$o/san/summary.txt" >> "$o/checks.txt"
m192=sm90_bf16_d64_m192n128w16s4ws,sm90_f16_d64_m192n128w16s4ws
fz=dist/gpu/bin/flashattn-fuzz
$fz --cases 300 --seed 601 --config "$m192" --max-seqlen 1100 > "$o/fuzz-m192.log" 2>&1
echo "m192 d64 fuzz (300 cases, <= 1100): rc=$?; $(grep -E 'cases, [0-9]+ failed, [0-9.]+ s' "$o/fuzz-m192.log" | tail -1); $(grep persistent "$o/fuzz-m192.log" | head -1)" >> "$o/checks.txt"
san=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
for spec in "memcheck 30 603" "racecheck 60 605" "synccheck 60 607"; do
  set -- $spec
  start=$SECONDS
  timeout 150 "$san" --tool "$1" --error-exitcode 9 $fz --cases "$2" --seed "$3" --config "$m192" --max-seqlen 1100 \
    > "$o/fuzz-$1.log" 2>&1
  echo "m192 d64 fuzz under $1 ($2 cases): rc=$? in $((SECONDS - start)) s; $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$o/fuzz-$1.log" | tail -1); $(grep -E 'cases, [0-9]+ failed' "$o/fuzz-$1.log" | tail -1)" >> "$o/checks.txt"
  grep -m 40 -E "^=========" "$o/fuzz-$1.log" >> "$o/sanitizer-summary.txt"
done
OUT=$o/tests scripts/gpu-run.sh tests > "$o/tests-run.log" 2>&1
grep -E "^test |configs:|grid:" "$o/tests/summary.txt" >> "$o/checks.txt"
rm -rf "$o/san/work" "$o/tests/work"
tar -czf "$o/../fj-logs.tar.gz" -C "$o" . 2>/dev/null && mv "$o/../fj-logs.tar.gz" "$o/logs.tar.gz"
# Few files come back from a lent host: checks.txt, the sanitizer summary and the bundle.
find "$o" -type f ! -name checks.txt ! -name sanitizer-summary.txt ! -name logs.tar.gz -delete
cat "$o/checks.txt"
