#!/usr/bin/env bash
# Call II: the same build as call IH (e6ef130) on the lent H200, the rest of its checks:
#   1. flashattn-fuzz in the default space (a quarter of its cases with a workspace) and --walks,
#      each with its summary by schedule;
#   2. the small space under memcheck (workspace draws included);
#   3. the seed, long, sweep and causal suites, ours only, 10 graph samples: the schedule each
#      shape runs (not a timing).
# From the checkout root on the GPU host; results in $OUT/call-ii/.
set -uo pipefail
o=${OUT:-gpu-out}/call-ii
mkdir -p "$o"
[ -d dist/gpu/bin ] || tar -xJf dist/gpu.txz -C dist
bin=dist/gpu/bin
echo "build $(cat dist/gpu/COMMIT)" > "$o/checks.txt"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader >> "$o/checks.txt"
fuzz() {  # NAME SECONDS ARGS...
  local name=$1 secs=$2; shift 2; local s=$SECONDS
  timeout $((secs + 60)) "$bin/flashattn-fuzz" --seconds "$secs" --json "$o/fuzz-$name.json" "$@" > "$o/fuzz-$name.log" 2>&1
  echo "fuzz $name: rc=$? in $((SECONDS - s)) s; $(grep -E 'cases, [0-9]+ failed' "$o/fuzz-$name.log" | tail -1)" >> "$o/checks.txt"
  sed -n '/by schedule/,/^[a-z]/p' "$o/fuzz-$name.log" | head -8 >> "$o/checks.txt"
}
fuzz default 90 --seed 4302
fuzz walks 70 --walks --seed 4303
start=$SECONDS
timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 "$bin/flashattn-fuzz" --small --cases 30 --seed 4304 > "$o/fuzz-memcheck.log" 2>&1
echo "fuzz --small under memcheck (30 cases): rc=$? in $((SECONDS - start)) s; $(grep -E 'ERROR SUMMARY' "$o/fuzz-memcheck.log" | tail -1); $(grep -E 'cases, [0-9]+ failed' "$o/fuzz-memcheck.log" | tail -1)" >> "$o/checks.txt"
start=$SECONDS
timeout 150 "$bin/flashattn-bench" run --suite seed,long,sweep,causal --modes graph --iters 10 --baseline none --out "$o/bench.json" > "$o/bench.log" 2>&1
echo "bench (schedules): rc=$? in $((SECONDS - start)) s" >> "$o/checks.txt"
tar -czf "$o/../ii-logs.tar.gz" -C "$o" . 2>/dev/null && mv "$o/../ii-logs.tar.gz" "$o/logs.tar.gz"
find "$o" -type f ! -name checks.txt ! -name 'fuzz-*.log' ! -name bench.log ! -name logs.tar.gz -delete
find "$o" -type d -empty -delete
cat "$o/checks.txt"
grep -A70 "== mode graph" "$o/bench.log" | cut -c1-150 | head -70
