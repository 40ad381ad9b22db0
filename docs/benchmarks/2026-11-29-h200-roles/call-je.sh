#!/usr/bin/env bash
# Call JE: abda236's pack: the fuzz step's three spaces, shortened (600 cases of the whole space,
# --walks and --splits 50 s each), then the walk preset at sanitizer sizes (--small --walks:
# persistent walks, folds, split short tiles among the cases) under memcheck, racecheck and
# synccheck.
set -uo pipefail
o=${OUT:-gpu-out}/call-je
mkdir -p "$o"
[ -d dist/gpu/bin ] || tar -xJf dist/gpu.txz -C dist
echo "build $(cat dist/gpu/COMMIT)" > "$o/checks.txt"
start=$SECONDS
OUT=$o/fuzz FUZZ_ARGS='--cases 600 --seed 21;--walks --seconds 50 --seed 22;--splits --seconds 50 --seed 23' \
  scripts/gpu-run.sh fuzz > "$o/fuzz-run.log" 2>&1
echo "fuzz: rc=$? in $((SECONDS - start)) s" >> "$o/checks.txt"
grep -E "^fuzz|by schedule|^  (walk|split|causal|tile)" "$o/fuzz/summary.txt" | head -30 >> "$o/checks.txt"
start=$SECONDS
OUT=$o/san FUZZ_SANITIZER_ARGS="--small --walks" FUZZ_SANITIZER_CASES="60 30 40" SANITIZER_LIMIT=80 \
  scripts/gpu-run.sh fuzz-sanitizer > "$o/san-run.log" 2>&1
echo "sanitizers: rc=$? in $((SECONDS - start)) s" >> "$o/checks.txt"
grep -E "^fuzz" "$o/san/summary.txt" >> "$o/checks.txt"
for t in racecheck synccheck; do grep -A5 "by schedule" "$o/san/work/fuzz-sanitizer-$t.log" 2>/dev/null | head -8 >> "$o/checks.txt"; done
cat "$o/checks.txt"
