#!/usr/bin/env bash
# Call KBC: the two racecheck runs that call KBB's time limits cut, alone on the GPU, side by side:
# A. the fuzzer's walk preset at short lengths (--small --walks), seed 45, racecheck 150 cases;
# B. gpu_varlen at short lengths (grid and 200 proptest cases) under racecheck.
set -u
root=${OUT:-gpu-out}; base=$root/call-kbc; mkdir -p "$base"
rm -rf dist/gpu; tar -xJf dist/gpu.txz -C dist
start=$SECONDS
( OUT=$base/walks-race SANITIZER_LIMIT=400 FUZZ_SANITIZER_SEED=45 FUZZ_SANITIZER_ARGS='--small --walks' \
    FUZZ_SANITIZER_CASES='0 150 0' scripts/gpu-run.sh fuzz-sanitizer > /dev/null 2>&1 ) &
( OUT=$base/varlen-race SANITIZER_LIMIT=400 SANITIZER_TOOLS=racecheck VARLEN_SANITIZER_CASES=200 \
    scripts/gpu-run.sh varlen-sanitizer > /dev/null 2>&1 ) &
wait
echo "call kbc: $((SECONDS - start)) s" > "$base/time.txt"
for s in walks-race varlen-race; do echo "== $s"; cat "$base/$s/summary.txt" 2>/dev/null; done > "$root/call-kbc-summary.txt"
cat "$base/time.txt" >> "$root/call-kbc-summary.txt"
tar -czf "$root/call-kbc.tgz" -C "$root" call-kbc && rm -rf "$base"
cut -c1-260 "$root/call-kbc-summary.txt" | tail -20
