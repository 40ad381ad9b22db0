#!/usr/bin/env bash
# Call IH: build e6ef130 (each launch reports its schedule; the walk tests assert theirs; the
# fuzzer's workspace draws and --splits preset; every kernel's SASS that of 39c45e9) on the lent
# H200:
#   1. every GPU test (scripts/gpu-run.sh tests): the walk tests now fail where a shape picked to
#      walk, fold or split runs another schedule;
#   2. flashattn-fuzz --splits (head dim 128, warp-specialized tiles, every case with a
#      workspace) for 150 s, with its summary by schedule.
# Call II (call-ii.sh) runs the rest.
# From the checkout root on the GPU host; results in $OUT/call-ih/.
set -uo pipefail
o=${OUT:-gpu-out}/call-ih
mkdir -p "$o"
[ -d dist/gpu/bin ] || tar -xJf dist/gpu.txz -C dist
bin=dist/gpu/bin
echo "build $(cat dist/gpu/COMMIT)" > "$o/checks.txt"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader >> "$o/checks.txt"
start=$SECONDS
OUT=$o/tests scripts/gpu-run.sh tests > "$o/tests-run.log" 2>&1
echo "tests: in $((SECONDS - start)) s" >> "$o/checks.txt"
grep -E "^test |configs:|grid:" "$o/tests/summary.txt" >> "$o/checks.txt"
mkdir -p "$o/tests/x" && tar -xzf "$o/tests/logs.tar.gz" -C "$o/tests/x" 2>/dev/null
grep -rh -E "split tails:|short last tiles:|causal walks:|window walks:|ran as|panicked" "$o/tests/x" 2>/dev/null | head -20 >> "$o/checks.txt"
fuzz() {  # NAME SECONDS ARGS...
  local name=$1 secs=$2; shift 2; local s=$SECONDS
  timeout $((secs + 60)) "$bin/flashattn-fuzz" --seconds "$secs" --json "$o/fuzz-$name.json" "$@" > "$o/fuzz-$name.log" 2>&1
  echo "fuzz $name: rc=$? in $((SECONDS - s)) s; $(grep -E 'cases, [0-9]+ failed' "$o/fuzz-$name.log" | tail -1)" >> "$o/checks.txt"
  sed -n '/by schedule/,/^[a-z]/p' "$o/fuzz-$name.log" | head -8 >> "$o/checks.txt"
}
fuzz splits 150 --splits --seed 4301
tar -czf "$o/../ih-logs.tar.gz" -C "$o" . 2>/dev/null && mv "$o/../ih-logs.tar.gz" "$o/logs.tar.gz"
find "$o" -type f ! -name checks.txt ! -name 'fuzz-*.log' ! -name logs.tar.gz -delete
find "$o" -type d -empty -delete
cat "$o/checks.txt"
