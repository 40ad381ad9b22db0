#!/usr/bin/env bash
# Call HK: build aeb45f4 (dist/gpu.txz) on the lent H200, the change's checks:
#   1. every GPU test (gpu_fuzz and the grid among them; ws_short_last_tiles has three shapes
#      per head-dim-64 tile whose walk takes the light order on the 192-row tile);
#   2. ws_short_last_tiles under memcheck, racecheck, synccheck;
#   3. fuzz --walks on the ten walking tiles, 60 cases, then on the two 192-row head-dim-64 walks
#      (the kernels that changed) 10 under racecheck and 10 under memcheck.
# From the checkout root on the GPU host; results in $OUT/call-hk/.
set -uo pipefail
o=${OUT:-gpu-out}/call-hk
mkdir -p "$o"
[ -d dist/gpu/bin ] || tar -xJf dist/gpu.txz -C dist
echo "build $(cat dist/gpu/COMMIT)" > "$o/checks.txt"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader >> "$o/checks.txt"
start=$SECONDS
OUT=$o/tests scripts/gpu-run.sh tests > "$o/tests-run.log" 2>&1
echo "tests: in $((SECONDS - start)) s" >> "$o/checks.txt"
grep -E "^test |configs:|grid:" "$o/tests/summary.txt" >> "$o/checks.txt"
start=$SECONDS
OUT=$o/san SANITIZE_TEST=ws_short_last_tiles SANITIZER_LIMIT=80 scripts/gpu-run.sh test-sanitizer > "$o/san-run.log" 2>&1
echo "sanitizers: in $((SECONDS - start)) s" >> "$o/checks.txt"
cp "$o/san/summary.txt" "$o/sanitizer-summary.txt"
grep -E "sanitizer" "$o/san/summary.txt" >> "$o/checks.txt"
walks=""
for t in sm90_bf16_d64_m128n128w12s4ws sm90_f16_d64_m128n128w12s4ws sm90_bf16_d64_m192n128w16s4ws \
  sm90_f16_d64_m192n128w16s4ws sm90_bf16_d128_m192n80w16s4ws sm90_f16_d128_m192n80w16s4ws \
  sm90_bf16_d128_m128n176w12s2ws sm90_f16_d128_m128n176w12s2ws sm90_bf16_d128_m128n128w12s3ws \
  sm90_f16_d128_m128n128w12s3ws; do walks="$walks${walks:+,}$t"; done
fz=dist/gpu/bin/flashattn-fuzz
timeout 60 $fz --walks --cases 60 --seed 1401 --config "$walks" > "$o/fuzz-walks.log" 2>&1
echo "walks fuzz (60 cases): rc=$?; $(grep -E 'cases, [0-9]+ failed, [0-9.]+ s' "$o/fuzz-walks.log" | tail -1)" >> "$o/checks.txt"
san=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
for spec in "racecheck 10 1403" "memcheck 10 1405"; do
  set -- $spec
  start=$SECONDS
  timeout 50 "$san" --tool "$1" --error-exitcode 9 $fz --walks --cases "$2" --seed "$3" \
    --config sm90_bf16_d64_m192n128w16s4ws,sm90_f16_d64_m192n128w16s4ws > "$o/fuzz-$1.log" 2>&1
  echo "walks fuzz under $1 ($2 cases): rc=$? in $((SECONDS - start)) s; $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$o/fuzz-$1.log" | tail -1); $(grep -E 'cases, [0-9]+ failed' "$o/fuzz-$1.log" | tail -1)" >> "$o/checks.txt"
  grep -m 40 -E "^=========" "$o/fuzz-$1.log" >> "$o/sanitizer-summary.txt"
done
rm -rf "$o/san/work" "$o/tests/work"
tar -czf "$o/../hk-logs.tar.gz" -C "$o" . 2>/dev/null && mv "$o/../hk-logs.tar.gz" "$o/logs.tar.gz"
find "$o" -type f ! -name checks.txt ! -name sanitizer-summary.txt ! -name logs.tar.gz -delete
find "$o" -type d -empty -delete
cat "$o/checks.txt" | cut -c1-260
