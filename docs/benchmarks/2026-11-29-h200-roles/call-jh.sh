#!/usr/bin/env bash
# Call JH: the review's build (bf7d6b0's kernels: WsConsumer without its packed member; against
# abda236 68 of 72 warp-specialized functions identical, 4 two-consumer walks in register numbers
# only), in the session's last device time: every GPU test, a short fuzz run, and the walk preset
# at sanitizer sizes under memcheck, racecheck (and synccheck, a few cases).
set -uo pipefail
o=${OUT:-gpu-out}/call-jh
mkdir -p "$o"
[ -d dist/gpu/bin ] || tar -xJf dist/gpu.txz -C dist
echo "build $(cat dist/gpu/COMMIT)" > "$o/checks.txt"
start=$SECONDS
OUT=$o/tests scripts/gpu-run.sh tests > "$o/tests-run.log" 2>&1
echo "tests: in $((SECONDS - start)) s" >> "$o/checks.txt"
grep -E "^test |configs:|grid:" "$o/tests/summary.txt" >> "$o/checks.txt"
start=$SECONDS
OUT=$o/fuzz FUZZ_ARGS='--cases 100 --seed 31;--walks --seconds 10 --seed 32' scripts/gpu-run.sh fuzz > "$o/fuzz-run.log" 2>&1
echo "fuzz: in $((SECONDS - start)) s" >> "$o/checks.txt"
grep -E "^fuzz" "$o/fuzz/summary.txt" >> "$o/checks.txt"
OUT=$o/san FUZZ_SANITIZER_ARGS="--small --walks" FUZZ_SANITIZER_CASES="12 6 3" \
  SANITIZER_LIMIT=20 scripts/gpu-run.sh fuzz-sanitizer > "$o/san-run.log" 2>&1
grep -E "^fuzz" "$o/san/summary.txt" >> "$o/checks.txt"
cat "$o/checks.txt"
