#!/usr/bin/env bash
# Call IY: what call IX's limit cut off: the pack of call IW (b901a86's tree), the fuzz-sanitizer
# step on the walk preset at sanitizer sizes (--small --walks) under racecheck and synccheck
# (memcheck ran in call IX: 80 cases, 0 errors).
set -uo pipefail
o=${OUT:-gpu-out}/call-iy
mkdir -p "$o"
[ -d dist/gpu/bin ] || tar -xJf dist/gpu.txz -C dist
# racecheck and synccheck only: memcheck's count 0 would still start a run, so it gets 1 case.
OUT=$o FUZZ_SANITIZER_ARGS="--small --walks" FUZZ_SANITIZER_CASES="1 40 60" SANITIZER_LIMIT=150 \
  scripts/gpu-run.sh fuzz-sanitizer > "$o/gpu-run.log" 2>&1
echo "gpu-run rc=$?"
grep -E "^fuzz" "$o/summary.txt"
for t in racecheck synccheck; do grep -A5 "by schedule" "$o/work/fuzz-sanitizer-$t.log"; done
