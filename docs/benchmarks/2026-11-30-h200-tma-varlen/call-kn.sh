#!/usr/bin/env bash
# Call KN: the pack of branch tma-varlen at 0743e1e (call KL's 36c1573 plus: the O store a template parameter of
# the TMA kernel, so launches at or below the SM count run code without it; packed varlen's V zeroing moved out of
# the key loop into the feed's start), carried as dist/gpu.txz, against main's kernels (dist/old-97ac5ad-bench.xz).
# Timing first, while the GPU is cool:
# 1. ab under the dispatcher, seed and varlen suites, three pairs;
# 2. ab forced onto bf16 d128 m128n128w8s2 (its dense calls run the general kernel): masks and varlen suites, two
#    pairs (call KL: the general kernel's calls 0.5-1.5% slower on 36c1573, the packed batch 0.913);
# 3. bench: the seed suite beside PyTorch SDPA's backends;
# 4. tests: gpu_varlen, validation (the feed test: both O stores against the cp.async kernel, bit for bit), gpu_grid.
# Everything lands in $OUT/call-kn.tgz (a lent host returns eight files), the summaries in $OUT/call-kn-summary.txt.
set -u
root=${OUT:-gpu-out}; base=$root/call-kn
rm -rf dist/gpu
old=dist/old-97ac5ad-bench.xz k=sm90_bf16_d128_m128n128w8s2
OUT=$base/auto AB_OLD=$old AB_REPS=3 AB_ARGS='--suite seed,varlen --modes graph --iters 50' scripts/gpu-run.sh ab
OUT=$base/$k AB_OLD=$old AB_REPS=2 AB_ARGS="--suite masks,varlen --modes graph --iters 20 --kernel $k" scripts/gpu-run.sh ab
OUT=$base/bench BENCH_ARGS='run --suite seed --modes graph --iters 50' scripts/gpu-run.sh bench
OUT=$base/tests TEST_FILTER='gpu_varlen|validation|gpu_grid' scripts/gpu-run.sh tests
for s in auto $k bench tests; do echo "== $s"; cat "$base/$s/summary.txt"; done > "$root/call-kn-summary.txt"
tar -czf "$root/call-kn.tgz" -C "$root" call-kn && rm -rf "$base"
grep -vE '^    (f16|bf16) ' "$root/call-kn-summary.txt" | grep -v "worst error" | cut -c1-170 | tail -60
