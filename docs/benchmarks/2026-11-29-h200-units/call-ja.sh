#!/usr/bin/env bash
# Call JA: build 378b97f (kernels SASS for SASS b901a86's; the test harnesses now make every call
# twice, O and LSE poisoned again, and fail a case whose second O or LSE differs in any bit):
# 1. every GPU test (scripts/gpu-run.sh tests): grid, walk and split-tail tests, varlen, decode,
#    merge, stream order, validation, each case now repeated;
# 2. the fuzz step in three spaces, shorter than its default: --walks and --splits 60 s each,
#    then 300 cases of the whole space.
set -uo pipefail
o=${OUT:-gpu-out}/call-ja
mkdir -p "$o"
[ -d dist/gpu/bin ] || tar -xJf dist/gpu.txz -C dist
echo "build $(cat dist/gpu/COMMIT)" > "$o/checks.txt"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader >> "$o/checks.txt"
start=$SECONDS
OUT=$o/tests scripts/gpu-run.sh tests > "$o/tests-run.log" 2>&1
echo "tests: in $((SECONDS - start)) s" >> "$o/checks.txt"
grep -E "^test |configs:|grid:" "$o/tests/summary.txt" >> "$o/checks.txt"
mkdir -p "$o/tests/x" && tar -xzf "$o/tests/logs.tar.gz" -C "$o/tests/x" 2>/dev/null
grep -rh -E "split tails:|short last tiles:|causal walks:|window walks:|repeat|panicked" "$o/tests/x" 2>/dev/null | head -20 >> "$o/checks.txt"
rm -rf "$o/tests/x"
start=$SECONDS
OUT=$o/fuzz FUZZ_ARGS="--walks --seconds 60 --seed 11;--splits --seconds 60 --seed 12;--cases 300 --seed 13" \
  scripts/gpu-run.sh fuzz > "$o/fuzz-run.log" 2>&1
echo "fuzz: in $((SECONDS - start)) s" >> "$o/checks.txt"
grep -E "^fuzz" "$o/fuzz/summary.txt" >> "$o/checks.txt"
cat "$o/checks.txt"
