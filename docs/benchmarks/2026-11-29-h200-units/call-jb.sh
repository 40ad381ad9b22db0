#!/usr/bin/env bash
# Call JB: build 7a1e1aa after the review (WsSharedMemory without derived members: every kernel
# SASS for SASS b901a86's; one repeat check shared by the harnesses), in the session's last
# 295 s of device time: the walk preset at sanitizer sizes under memcheck and racecheck (a few
# cases each, first), then every GPU test.
set -uo pipefail
o=${OUT:-gpu-out}/call-jb
mkdir -p "$o"
[ -d dist/gpu/bin ] || tar -xJf dist/gpu.txz -C dist
echo "build $(cat dist/gpu/COMMIT)" > "$o/checks.txt"
OUT=$o/san FUZZ_SANITIZER_ARGS="--small --walks" FUZZ_SANITIZER_CASES="12 6 1" SANITIZER_LIMIT=20 \
  scripts/gpu-run.sh fuzz-sanitizer > "$o/san-run.log" 2>&1
grep -E "^fuzz" "$o/san/summary.txt" >> "$o/checks.txt"
start=$SECONDS
OUT=$o/tests scripts/gpu-run.sh tests > "$o/tests-run.log" 2>&1
echo "tests: in $((SECONDS - start)) s" >> "$o/checks.txt"
grep -E "^test |configs:|grid:" "$o/tests/summary.txt" >> "$o/checks.txt"
cat "$o/checks.txt"
