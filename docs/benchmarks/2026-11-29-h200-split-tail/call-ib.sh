#!/usr/bin/env bash
# Call IB: build of the split-tail branch (dist/gpu.txz) on the lent H200, the change's checks:
#   1. every GPU test (ws_split_tails among them: the head-dim-128 walks that split their tail,
#      each configuration with and without a workspace; and the walk tests of the last session,
#      ws_short_last_tiles, ws_causal_walks, ws_window_walks, refactored since their last run);
#   2. ws_split_tails under memcheck, racecheck and synccheck (FLASHATTN_TEST_SMALL: its first
#      configuration);
#   3. fuzz --walks, 60 cases (the walks with and without the changed schedule code).
# From the checkout root on the GPU host; results in $OUT/call-ib/.
set -uo pipefail
o=${OUT:-gpu-out}/call-ib
mkdir -p "$o"
[ -d dist/gpu/bin ] || tar -xJf dist/gpu.txz -C dist
echo "build $(cat dist/gpu/COMMIT)" > "$o/checks.txt"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader >> "$o/checks.txt"
start=$SECONDS
OUT=$o/tests scripts/gpu-run.sh tests > "$o/tests-run.log" 2>&1
echo "tests: in $((SECONDS - start)) s" >> "$o/checks.txt"
grep -E "^test |configs:|grid:" "$o/tests/summary.txt" >> "$o/checks.txt"
grep -h -E "split tails:|short last tiles:|causal walks:|window walks:" "$o"/tests/*.log 2>/dev/null | head -8 >> "$o/checks.txt"
start=$SECONDS
FLASHATTN_TEST_SMALL=1 OUT=$o/san SANITIZE_TEST=ws_split_tails SANITIZER_LIMIT=90 scripts/gpu-run.sh test-sanitizer > "$o/san-run.log" 2>&1
echo "sanitizers: in $((SECONDS - start)) s" >> "$o/checks.txt"
cp "$o/san/summary.txt" "$o/sanitizer-summary.txt"
grep -E "sanitizer|split tails" "$o/san/summary.txt" >> "$o/checks.txt"
start=$SECONDS
timeout 70 dist/gpu/bin/flashattn-fuzz --walks --cases 60 --seed 1901 > "$o/fuzz-walks.log" 2>&1
echo "walks fuzz (60 cases): rc=$? in $((SECONDS - start)) s; $(grep -E 'cases, [0-9]+ failed' "$o/fuzz-walks.log" | tail -1)" >> "$o/checks.txt"
tar -czf "$o/../ib-logs.tar.gz" -C "$o" . 2>/dev/null && mv "$o/../ib-logs.tar.gz" "$o/logs.tar.gz"
find "$o" -type f ! -name checks.txt ! -name sanitizer-summary.txt ! -name logs.tar.gz -delete
find "$o" -type d -empty -delete
cat "$o/checks.txt"
