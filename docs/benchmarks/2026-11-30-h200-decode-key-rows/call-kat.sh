#!/usr/bin/env bash
# Call KAT: an experiment on branch decode-latency (dist/gpu.txz: the pack of d3270b3, S^T in two
# accumulators and the merge rows padded) against main's kernels (dist/old-bench.xz: `xz -c` of
# the bench in the pack of 882d2e8; main's a8f4e6c changes the split count of batch 1 x 4096 only,
# so that shape differs by the rule as well):
# 1. tests: gpu_decode (1,000 random caches), gpu_merge;
# 2. decode-sanitizer: memcheck, racecheck, synccheck on 60 random caches each;
# 3. ab: the decode and decode-dims suites, two pairs.
set -u
root=${OUT:-gpu-out}; base=$root/call-kat; mkdir -p "$base"
rm -rf dist/gpu
tar -xJf dist/gpu.txz -C dist
OUT=$base/tests TEST_FILTER='gpu_decode|gpu_merge' FLASHATTN_DECODE_CASES=1000 scripts/gpu-run.sh tests > /dev/null
OUT=$base/sanitizer SANITIZER_LIMIT=100 scripts/gpu-run.sh decode-sanitizer > /dev/null
OUT=$base/ab AB_OLD=dist/old-bench.xz AB_REPS=2 AB_ARGS='--suite decode,decode-dims --modes graph --iters 50' \
  scripts/gpu-run.sh ab > /dev/null
for s in tests sanitizer ab; do echo "== $s"; cat "$base/$s/summary.txt"; done > "$root/call-kat-summary.txt"
cp "$base/ab/ab-pooled.txt" "$root/call-kat-ab-pooled.txt"
tar -czf "$root/call-kat.tgz" -C "$root" call-kat && rm -rf "$base"
grep -E "pooled|test |decode:|errors|hazards" "$root/call-kat-summary.txt" | cut -c1-200
grep graph "$root/call-kat-ab-pooled.txt" | sed -E 's/ +flashattn +graph +/ | /' | cut -c1-110
