#!/usr/bin/env bash
# Call KAI: does the packed-varlen two-CTA bound pay on head dim 64's 128-key two-warpgroup tile
# after all? The pack of e3fb985 (dist/gpu.txz: 13ae530 with 5bd93fc's condition back, the bound on
# the 128-key tiles too) against 13ae530's flashattn-bench (dist/old-bench.xz; call KAG's pack),
# same run:
# 1. ab: the short suite's two f16 H8 D64 packed batches on sm90_f16_d64_m128n128w8s2 (the
#    non-causal one is the dispatcher's choice there too; the causal one, forced, read 1.10 in call
#    KAE against main), three pairs;
# 2. tests: every GPU test on this pack;
# 3. varlen-sanitizer: the packed varlen grid under memcheck, racecheck, synccheck.
# Everything lands in $OUT/call-kai.tgz, the summaries in $OUT/call-kai-summary.txt.
set -u
root=${OUT:-gpu-out}; base=$root/call-kai; mkdir -p "$base"
rm -rf dist/gpu
tar -xJf dist/gpu.txz -C dist
OUT=$base/ab64 AB_OLD=dist/old-bench.xz AB_REPS=3 \
  AB_ARGS='--suite short --modes graph --iters 50 --kernel sm90_f16_d64_m128n128w8s2' \
  AB_SHAPES='f16 B8 H8/8 S490x490 D64 causal varlen1845,f16 B8 H8/8 S490x490 D64 varlen1845' \
  scripts/gpu-run.sh ab > /dev/null
OUT=$base/tests scripts/gpu-run.sh tests > /dev/null
OUT=$base/san SANITIZER_LIMIT=150 scripts/gpu-run.sh varlen-sanitizer > /dev/null
for s in ab64 tests san; do echo "== $s"; cat "$base/$s/summary.txt"; done > "$root/call-kai-summary.txt"
tar -czf "$root/call-kai.tgz" -C "$root" call-kai && rm -rf "$base"
grep -vE "^  [a-z]" "$root/call-kai-summary.txt" | grep -v "worst error" | cut -c1-170 | tail -60
