#!/usr/bin/env bash
# Call JL: the pack of eb5dd93, the fuzzer's default run in scripts/gpu-run.sh (2,000 cases of
# its whole space, then the walk preset for 90 s); the split-tail preset runs in call JM.
set -uo pipefail
o=${OUT:-gpu-out}/call-jl
mkdir -p "$o"
[ -d dist/gpu/bin ] || tar -xJf dist/gpu.txz -C dist
echo "build $(cat dist/gpu/COMMIT)" > "$o/checks.txt"
start=$SECONDS
OUT=$o/fuzz FUZZ_ARGS='--cases 2000 --seed 1;--walks --seconds 90 --seed 2' scripts/gpu-run.sh fuzz > "$o/fuzz-run.log" 2>&1
echo "fuzz: in $((SECONDS - start)) s" >> "$o/checks.txt"
grep -E "^fuzz" "$o/fuzz/summary.txt" >> "$o/checks.txt"
cat "$o/checks.txt"
