#!/usr/bin/env bash
# Call JN: flashattn-bench A/B of eb5dd93 against d662048 once more on the seed suite (three
# pairs), after call JK's gate flagged f16 B2 H8 S512 causal as slower on a kernel (the cp.async
# m64n128w4s3 tile) whose machine code the two builds share.
set -uo pipefail
o=${OUT:-gpu-out}/call-jn
mkdir -p "$o"
[ -d dist/gpu/bin ] || tar -xJf dist/gpu.txz -C dist
echo "build $(cat dist/gpu/COMMIT)" > "$o/checks.txt"
start=$SECONDS
OUT=$o/ab AB_OLD=dist/old-bench.xz AB_REPS=3 AB_ARGS='--suite seed --modes graph --iters 30' \
  scripts/gpu-run.sh ab > "$o/ab-run.log" 2>&1
echo "ab: rc=$? in $((SECONDS - start)) s" >> "$o/checks.txt"
cp "$o/ab/ab-pooled.txt" "$o/ab-pooled.txt" 2>/dev/null
rm -rf "$o/ab/work"
cat "$o/checks.txt"; tail -14 "$o/ab-pooled.txt"
