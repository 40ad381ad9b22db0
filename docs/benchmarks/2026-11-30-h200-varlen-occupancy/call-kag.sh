#!/usr/bin/env bash
# Call KAG: the pack of 13ae530 (dist/gpu.txz: the two-CTA bound on the 64-key two-warpgroup tiles'
# packed general kernel only) and main d497988's flashattn-bench (dist/old-bench.xz):
# 1. ab: the packed shapes forced onto bf16 d128 m128n64w8s2 (the bound) and onto f16 d64
#    m128n128w8s2 (main's kernel again), three pairs each; the dispatcher's choices on the short
#    and varlen suites, two pairs (the regression gate; call KAE gated the seed suite, whose
#    kernels scripts/sass-diff.sh shows unchanged);
# 2. bench: the short and varlen suites beside PyTorch SDPA (the non-causal packed batch on main's
#    kernel again);
# 3. tests: every GPU test;
# 4. fuzz: 300 cases of the whole space.
# Everything lands in $OUT/call-kag.tgz, the summaries in $OUT/call-kag-summary.txt.
set -u
root=${OUT:-gpu-out}; base=$root/call-kag; mkdir -p "$base"
rm -rf dist/gpu
tar -xJf dist/gpu.txz -C dist
export AB_OLD=dist/old-bench.xz
OUT=$base/ab128 AB_REPS=3 AB_ARGS='--suite short,varlen --modes graph --iters 50 --kernel sm90_bf16_d128_m128n64w8s2' \
  AB_SHAPES='bf16 B8 H32/8 S490x490 D128 causal varlen1845,bf16 B16 H16/16 S3967x3967 D128 causal varlen38571' \
  scripts/gpu-run.sh ab > /dev/null
OUT=$base/ab64 AB_REPS=3 AB_ARGS='--suite short --modes graph --iters 50 --kernel sm90_f16_d64_m128n128w8s2' \
  AB_SHAPES='f16 B8 H8/8 S490x490 D64 causal varlen1845' scripts/gpu-run.sh ab > /dev/null
OUT=$base/gate AB_REPS=2 AB_ARGS='--suite short,varlen --modes graph --iters 50' scripts/gpu-run.sh ab > /dev/null
OUT=$base/bench BENCH_ARGS='run --suite short,varlen --modes graph --iters 50' scripts/gpu-run.sh bench > /dev/null
OUT=$base/tests scripts/gpu-run.sh tests > /dev/null
OUT=$base/fuzz FUZZ_ARGS="--cases 300 --seed 49" scripts/gpu-run.sh fuzz > /dev/null
for s in ab128 ab64 gate bench tests fuzz; do echo "== $s"; cat "$base/$s/summary.txt"; done > "$root/call-kag-summary.txt"
tar -czf "$root/call-kag.tgz" -C "$root" call-kag && rm -rf "$base"
grep -vE "^  [a-z]" "$root/call-kag-summary.txt" | grep -v "worst error" | cut -c1-170 | tail -100
