#!/usr/bin/env bash
# Call GU: build 10419af (dist/gpu.txz: each warp's lane 0 reads the producer's announcement and
# shares it by shuffles, after call GS's racecheck reported the other lanes' reads against the
# producer's rewrite of the slot) on the lent H200, within the session's last device minutes:
#   1. the variant probe (scripts/variant-ab.sh build main=31dbb6f new=HEAD), 5 rounds, O bitwise;
#   2. ws_short_last_tiles under racecheck and memcheck;
#   3. fuzz --walks on the head-dim-64 walking tiles: 100 cases, then 20 under racecheck,
#      10 under memcheck and 10 under synccheck.
# From the checkout root on the GPU host; results in $OUT/call-gu/.
set -uo pipefail
o=${OUT:-gpu-out}/call-gu
mkdir -p "$o"
[ -d dist/gpu/bin ] || tar -xJf dist/gpu.txz -C dist
echo "build $(cat dist/gpu/COMMIT)" > "$o/checks.txt"
timeout 60 dist/variant-ab/variant-ab 5 "m192n128w16s4ws f16 8 16 512 64" "m192n128w16s4ws bf16 16 32 1024 64" \
  "m128n128w12s4ws f16 8 16 512 64" "m128n128w12s4ws f16 2 16 1000 64" > "$o/variant-ab.txt" 2>&1
echo "variant-ab: rc=$?" >> "$o/checks.txt"
OUT=$o/san SANITIZE_TEST=ws_short_last_tiles SANITIZER_TOOLS="racecheck memcheck" SANITIZER_LIMIT=80 \
  scripts/gpu-run.sh test-sanitizer > "$o/san-run.log" 2>&1
grep -E "sanitizer" "$o/san/summary.txt" >> "$o/checks.txt"
cp "$o/san/summary.txt" "$o/sanitizer-summary.txt"
walks=sm90_bf16_d64_m128n128w12s4ws,sm90_f16_d64_m128n128w12s4ws,sm90_bf16_d64_m192n128w16s4ws,sm90_f16_d64_m192n128w16s4ws
fz=dist/gpu/bin/flashattn-fuzz
timeout 70 $fz --walks --cases 100 --seed 911 --config "$walks" > "$o/fuzz-walks.log" 2>&1
echo "d64 walks fuzz (100 cases): rc=$?; $(grep -E 'cases, [0-9]+ failed, [0-9.]+ s' "$o/fuzz-walks.log" | tail -1)" >> "$o/checks.txt"
san=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
for spec in "racecheck 20 913" "memcheck 10 915" "synccheck 10 917"; do
  set -- $spec
  start=$SECONDS
  timeout 40 "$san" --tool "$1" --error-exitcode 9 $fz --walks --cases "$2" --seed "$3" --config "$walks" \
    > "$o/fuzz-$1.log" 2>&1
  echo "d64 walks fuzz under $1 ($2 cases): rc=$? in $((SECONDS - start)) s; $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$o/fuzz-$1.log" | tail -1); $(grep -E 'cases, [0-9]+ failed' "$o/fuzz-$1.log" | tail -1)" >> "$o/checks.txt"
  grep -m 40 -E "^=========" "$o/fuzz-$1.log" >> "$o/sanitizer-summary.txt"
done
rm -rf "$o/san/work"
tar -czf "$o/../gu-logs.tar.gz" -C "$o" . 2>/dev/null && mv "$o/../gu-logs.tar.gz" "$o/logs.tar.gz"
find "$o" -type f ! -name checks.txt ! -name sanitizer-summary.txt ! -name variant-ab.txt ! -name logs.tar.gz -delete
find "$o" -type d -empty -delete
cat "$o/checks.txt"; grep -E "ratio" "$o/variant-ab.txt" | grep -v "^main" | cut -c1-150
