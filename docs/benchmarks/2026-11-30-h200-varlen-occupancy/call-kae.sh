#!/usr/bin/env bash
# Call KAE (the timing half and the fuzzer; call KAF runs the tests and sanitizers on the same pack): the pack of branch
# varlen-bound at 2117423 (dist/gpu.txz: main d497988 plus the two-CTA launch bound of the TMA
# kernel without the O store, general variant, and the short suite's non-causal packed batch),
# and main's flashattn-bench (dist/old-bench.xz, which lacks that shape):
# 1. ab: the packed varlen shapes forced onto the two tiles whose general kernel the bound changes
#    (f16 d64 m128n128w8s2, bf16 d128 m128n64w8s2), three pairs each; then the dispatcher's choices on
#    the seed, short and varlen suites, two pairs (the regression gate: those kernels are unchanged);
# 2. bench: the seed, long, d96, short and varlen suites beside PyTorch SDPA (graph p50/p90), the
#    new non-causal packed batch under the dispatcher among them;
# 3. fuzz: 300 cases of the whole space.
# Everything lands in $OUT/call-kae.tgz, the summaries in $OUT/call-kae-summary.txt.
set -u
root=${OUT:-gpu-out}; base=$root/call-kae; mkdir -p "$base"
rm -rf dist/gpu
tar -xJf dist/gpu.txz -C dist
export AB_OLD=dist/old-bench.xz
OUT=$base/ab64 AB_REPS=3 AB_ARGS='--suite short --modes graph --iters 50 --kernel sm90_f16_d64_m128n128w8s2' \
  AB_SHAPES='f16 B8 H8/8 S490x490 D64 causal varlen1845' scripts/gpu-run.sh ab > /dev/null
OUT=$base/ab128 AB_REPS=3 AB_ARGS='--suite short,varlen --modes graph --iters 50 --kernel sm90_bf16_d128_m128n64w8s2' \
  AB_SHAPES='bf16 B8 H32/8 S490x490 D128 causal varlen1845,bf16 B16 H16/16 S3967x3967 D128 causal varlen38571' \
  scripts/gpu-run.sh ab > /dev/null
OUT=$base/gate AB_REPS=2 AB_ARGS='--suite seed,short,varlen --modes graph --iters 50' scripts/gpu-run.sh ab > /dev/null
OUT=$base/bench BENCH_ARGS='run --suite seed,long,d96,short,varlen --modes graph --iters 50' scripts/gpu-run.sh bench > /dev/null
OUT=$base/fuzz FUZZ_ARGS="--cases 300 --seed 48" scripts/gpu-run.sh fuzz > /dev/null
for s in ab64 ab128 gate bench fuzz; do echo "== $s"; cat "$base/$s/summary.txt"; done > "$root/call-kae-summary.txt"
tar -czf "$root/call-kae.tgz" -C "$root" call-kae && rm -rf "$base"
grep -vE "^  [a-z]" "$root/call-kae-summary.txt" | grep -v "worst error" | cut -c1-170 | tail -120
