#!/usr/bin/env bash
# Call KAO: the pack of 4d1974f on branch decode-mma (dist/gpu-decode.txz: KAN's kernels, and the
# split rule at one CTA an SM for the tensor-core kernel, from KAN's forced counts) and main's
# flashattn-bench (dist/old-bench.xz):
# 1. ab: the decode suite, main's build against the branch's, two pairs (orders alternate);
# 2. bench: the decode suite beside PyTorch SDPA;
# 3. tests: gpu_decode (1,000 random caches, forced and automatic split counts), gpu_merge.
set -u
root=${OUT:-gpu-out}; base=$root/call-kao; mkdir -p "$base"
rm -rf dist/gpu
tar -xJf dist/gpu-decode.txz -C dist
OUT=$base/ab AB_OLD=dist/old-bench.xz AB_REPS=2 AB_ARGS='--suite decode --modes graph --iters 50' \
  scripts/gpu-run.sh ab > /dev/null
OUT=$base/bench BENCH_ARGS='run --suite decode --modes graph --iters 50' scripts/gpu-run.sh bench > /dev/null
OUT=$base/tests TEST_FILTER='gpu_decode|gpu_merge' FLASHATTN_DECODE_CASES=1000 scripts/gpu-run.sh tests > /dev/null
for s in ab bench tests; do echo "== $s"; cat "$base/$s/summary.txt"; done > "$root/call-kao-summary.txt"
tar -czf "$root/call-kao.tgz" -C "$root" call-kao && rm -rf "$base"
grep -E "pooled|SLOWER|inconclusive|test |decode:" "$root/call-kao-summary.txt" | cut -c1-180 | tail -40
