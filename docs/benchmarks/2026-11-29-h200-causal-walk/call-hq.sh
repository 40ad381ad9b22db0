#!/usr/bin/env bash
# Call HQ: build 07db52f (dist/gpu.txz: the causal walk) on the lent H200, the change's checks:
#   1. every GPU test (ws_causal_walks among them: causal launches that walk on every
#      warp-specialized tile at head dims 64 and 128);
#   2. ws_causal_walks under memcheck, racecheck and synccheck;
#   3. fuzz --walks, 60 cases (about half causal, of which most walk).
# From the checkout root on the GPU host; results in $OUT/call-hq/.
set -uo pipefail
o=${OUT:-gpu-out}/call-hq
mkdir -p "$o"
[ -d dist/gpu/bin ] || tar -xJf dist/gpu.txz -C dist
echo "build $(cat dist/gpu/COMMIT)" > "$o/checks.txt"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader >> "$o/checks.txt"
start=$SECONDS
OUT=$o/tests scripts/gpu-run.sh tests > "$o/tests-run.log" 2>&1
echo "tests: in $((SECONDS - start)) s" >> "$o/checks.txt"
grep -E "^test |configs:|grid:|causal walks:" "$o/tests/summary.txt" >> "$o/checks.txt"
grep -h "causal walks:" "$o"/tests/*.log 2>/dev/null | head -2 >> "$o/checks.txt"
start=$SECONDS
OUT=$o/san SANITIZE_TEST=ws_causal_walks SANITIZER_LIMIT=75 scripts/gpu-run.sh test-sanitizer > "$o/san-run.log" 2>&1
echo "sanitizers: in $((SECONDS - start)) s" >> "$o/checks.txt"
cp "$o/san/summary.txt" "$o/sanitizer-summary.txt"
grep -E "sanitizer|causal walks" "$o/san/summary.txt" >> "$o/checks.txt"
start=$SECONDS
timeout 70 dist/gpu/bin/flashattn-fuzz --walks --cases 60 --seed 1601 > "$o/fuzz-walks.log" 2>&1
echo "walks fuzz (60 cases): rc=$? in $((SECONDS - start)) s; $(grep -E 'cases, [0-9]+ failed' "$o/fuzz-walks.log" | tail -1)" >> "$o/checks.txt"
grep -E "causal walk|persistent" "$o/fuzz-walks.log" | head -4 >> "$o/checks.txt"
tar -czf "$o/../hq-logs.tar.gz" -C "$o" . 2>/dev/null && mv "$o/../hq-logs.tar.gz" "$o/logs.tar.gz"
find "$o" -type f ! -name checks.txt ! -name sanitizer-summary.txt ! -name logs.tar.gz -delete
find "$o" -type d -empty -delete
cat "$o/checks.txt"
