#!/usr/bin/env bash
# Call KAB: a probe pack of branch d96-192x96 (main plus a 192x96 three-consumer ws tile at head dim 96, three
# buffers; built with FLASHATTN_HEAD_DIMS=96, so only head dim 96's kernels), carried as dist/gpu96.txz:
# 1. kernel-ab: that tile against the dispatcher's (the H200 table's d96 rows) on the d96 suite's bf16 shapes, two pairs;
# 2. fuzz: 150 cases on the new tile (both dtypes), mixed features.
# Everything lands in $OUT/call-kab.tgz, the summaries in $OUT/call-kab-summary.txt.
set -u
root=${OUT:-gpu-out}; base=$root/call-kab
rm -rf dist/gpu
tar -xJf dist/gpu96.txz -C dist
b='bf16 B4 H32/32 S4096x4096 D96,bf16 B4 H32/32 S4096x4096 D96 causal,bf16 B16 H32/32 S1024x1024 D96,bf16 B8 H16/16 S2048x2048 D96'
OUT=$base/kab AB_REPS=2 KERNEL_AB=sm90_bf16_d96_m192n96w16s3ws KERNEL_AB_ARGS='--suite d96 --modes graph --iters 20' \
  AB_SHAPES="$b" scripts/gpu-run.sh kernel-ab > /dev/null
OUT=$base/fuzz FUZZ_ARGS="--cases 150 --seed 47 --config sm90_bf16_d96_m192n96w16s3ws,sm90_f16_d96_m192n96w16s3ws" \
  scripts/gpu-run.sh fuzz > /dev/null
for s in kab fuzz; do echo "== $s"; cat "$base/$s/summary.txt"; done > "$root/call-kab-summary.txt"
tar -czf "$root/call-kab.tgz" -C "$root" call-kab && rm -rf "$base"
grep -vE "^  [a-z]" "$root/call-kab-summary.txt" | grep -v "worst error" | cut -c1-170 | tail -40
