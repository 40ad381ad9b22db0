#!/usr/bin/env bash
# Call KW: the pack of 7e213f6 (df5436b's kernels; the dispatch tables' optional modifier field: softcap and ALiBi
# calls look for rows of their own first), carried as dist/gpu.txz, against df5436b's bench
# (dist/old-df5436b-bench.xz).
# 1. ab, seed and short suites, two pairs: with no modifier rows in the tables, the same choices and times;
# 2. tuned-ab: call KV's three candidate modifier rows (candidate-rows.tsv beside this script, as FLASHATTN_DISPATCH)
#    against the tables as they are, three same-run repetitions on KV's nine modifier calls: which rows to embed;
# 3. tests validation, flashattn_sys, gpu_fuzz; the fuzzer with a mask or modifier in every case on the dispatcher's
#    choice, with the candidate rows as FLASHATTN_DISPATCH.
# Everything lands in $OUT/call-kw.tgz, the summaries in $OUT/call-kw-summary.txt.
set -u
root=${OUT:-gpu-out}; base=$root/call-kw
dir=docs/benchmarks/2026-11-30-h200-score-mod-occupancy
rm -rf dist/gpu
old=dist/old-df5436b-bench.xz
OUT=$base/ab AB_OLD=$old AB_REPS=2 AB_ARGS='--suite seed,short --modes graph --iters 30' scripts/gpu-run.sh ab
f='f16 B4 H16/16 S512x512 D64' a='bf16 B16 H32/32 S1024x1024 D64' b='bf16 B4 H32/32 S4096x4096 D64'
c='bf16 B8 H16/16 S2048x2048 D128' g='bf16 B2 H32/8 S8192x8192 D128 causal' h='bf16 B2 H8/8 S8192x8192 D256'
shapes="$f softcap30,$f alibi,$a softcap30,$a alibi,$b alibi,$c softcap30,$c alibi,$g softcap30,$h softcap30"
mkdir -p "$base/tab/work" && cp "$dir/candidate-rows.tsv" "$base/tab/work/dispatch.tsv"
OUT=$base/tab AB_REPS=3 TUNE_SHAPES="$shapes" TUNED_AB_ARGS='--suite short,masks --modes graph --iters 20' \
  scripts/gpu-run.sh tuned-ab
OUT=$base/tests TEST_FILTER='validation|flashattn_sys|gpu_fuzz' scripts/gpu-run.sh tests
FLASHATTN_DISPATCH=$dir/candidate-rows.tsv OUT=$base/fuzz FUZZ_ARGS='--cases 200 --seed 32 --features always --config auto' \
  scripts/gpu-run.sh fuzz
for s in ab tab tests fuzz; do echo "== $s"; cat "$base/$s/summary.txt"; done > "$root/call-kw-summary.txt"
tar -czf "$root/call-kw.tgz" -C "$root" call-kw && rm -rf "$base"
grep -vE '^    (f16|bf16) .*[0-9] [0-9.]+$' "$root/call-kw-summary.txt" | grep -v "worst error" | cut -c1-170 | tail -70
