#!/usr/bin/env bash
# Call JM: the pack of eb5dd93, the rest of the fuzzer's default run (the split-tail preset for
# 90 s), then compute-sanitizer on the fuzzer's small space and its walk preset (memcheck 150,
# racecheck 60, synccheck 80 cases each, each tool's run bounded to 80 s): the producer's copies
# are what racecheck and synccheck watch; then flashattn-candle's GPU tests on these kernels (last
# run on ea4abd0's). Here: scripts/gpu-pack.sh (dist/gpu.txz); scripts/candle-gpu-pack.sh, its
# test binary repacked with xz -9 as dist/candle.txz (the example's binary would not fit the carry).
set -uo pipefail
o=${OUT:-gpu-out}/call-jm
mkdir -p "$o"
[ -d dist/gpu/bin ] || tar -xJf dist/gpu.txz -C dist
echo "build $(cat dist/gpu/COMMIT)" > "$o/checks.txt"
start=$SECONDS
OUT=$o/fuzz FUZZ_ARGS='--splits --seconds 90 --seed 3' scripts/gpu-run.sh fuzz > "$o/fuzz-run.log" 2>&1
echo "fuzz: in $((SECONDS - start)) s" >> "$o/checks.txt"
grep -E "^fuzz" "$o/fuzz/summary.txt" >> "$o/checks.txt"
start=$SECONDS
OUT=$o/san FUZZ_SANITIZER_CASES="150 60 80" SANITIZER_LIMIT=80 \
  scripts/gpu-run.sh fuzz-sanitizer > "$o/san-run.log" 2>&1
echo "sanitizers: rc=$? in $((SECONDS - start)) s" >> "$o/checks.txt"
grep -E "^fuzz" "$o/san/summary.txt" >> "$o/checks.txt"
[ -d dist/candle/bin ] || tar -xJf dist/candle.txz -C dist
echo "candle build $(cat dist/candle/COMMIT)" >> "$o/checks.txt"
site=$(ls -d /opt/torch/.venv/lib/python3*/site-packages 2>/dev/null | head -1)
export LD_LIBRARY_PATH="$(ls -d "$site"/nvidia/*/lib 2>/dev/null | tr '\n' ':')${LD_LIBRARY_PATH:-}"
start=$SECONDS
timeout 200 dist/candle/bin/flashattn-candle--gpu --include-ignored --nocapture --test-threads=1 > "$o/candle-tests.log" 2>&1
echo "candle tests: rc=$? $(grep -E '^test result' "$o/candle-tests.log" | tail -1) ($((SECONDS - start)) s)" >> "$o/checks.txt"
grep -E '^(worst|misaligned|offset|backward|alibi on)|FAILED|panicked' "$o/candle-tests.log" | head -20 | sed 's/^/    /' >> "$o/checks.txt"
cat "$o/checks.txt"
