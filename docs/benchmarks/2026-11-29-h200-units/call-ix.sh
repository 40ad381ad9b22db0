#!/usr/bin/env bash
# Call IX: the pack of call IW (b901a86's tree): the fuzz step with its new default spaces (the
# whole space, 2000 cases; --walks and --splits, 90 s each), then the fuzz-sanitizer step on the
# walk preset at sanitizer sizes (--small --walks) under memcheck, racecheck and synccheck.
set -uo pipefail
o=${OUT:-gpu-out}/call-ix
mkdir -p "$o"
[ -d dist/gpu/bin ] || tar -xJf dist/gpu.txz -C dist
OUT=$o FUZZ_SANITIZER_ARGS="--small --walks" FUZZ_SANITIZER_CASES="80 40 60" SANITIZER_LIMIT=60 \
  scripts/gpu-run.sh fuzz fuzz-sanitizer > "$o/gpu-run.log" 2>&1
echo "gpu-run rc=$?"
grep -E "^fuzz|by schedule|^  (walk|split|causal|tile)" "$o/summary.txt" | head -40
