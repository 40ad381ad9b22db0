#!/usr/bin/env bash
# Call KS: the pack of main at ad8a227 (0743e1e's kernels, sass-diff 444/444 identical; the host launch code
# reorganised by the review: Features::packed, map_rows, launch_tma), carried as dist/gpu.txz, against 0743e1e's
# bench (dist/old-0743e1e-bench.xz). Timing first, while the GPU is cool:
# 1. ab under the dispatcher, seed and varlen suites, two pairs (same kernels: expect no change);
# 2. host-ab: host cost per launch against 0743e1e (launch_tma replaced the launcher's two branches);
# 3. kernel-ab: the seed-size modifier calls (sinks, softcap, ALiBi) and the plain call on the one-warpgroup
#    score-modifier tiles and the warp-specialized d64 tile against the dispatcher's (m128n128w8s2, two warpgroups,
#    whose f16 score-modifier kernel needs 253 registers);
# 4. bench: the seed and short suites beside PyTorch SDPA's backends;
# 5. tests: every GPU test executable; fuzz 300 cases; memcheck on the varlen grid and on the feed test.
# Everything lands in $OUT/call-ks.tgz (a lent host returns eight files), the summaries in $OUT/call-ks-summary.txt.
set -u
root=${OUT:-gpu-out}; base=$root/call-ks
rm -rf dist/gpu
old=dist/old-0743e1e-bench.xz
OUT=$base/ab AB_OLD=$old AB_REPS=2 AB_ARGS='--suite seed,varlen --modes graph --iters 50' scripts/gpu-run.sh ab
OUT=$base/host AB_OLD=$old HOST_AB_REPS=2 scripts/gpu-run.sh host-ab
s='f16 B4 H16/16 S512x512 D64'
OUT=$base/kab AB_REPS=2 KERNEL_AB=sm90_f16_d64_m64n64w4s2,sm90_f16_d64_m64n128w4s2,sm90_f16_d64_m128n128w12s4ws \
  KERNEL_AB_ARGS='--suite seed,short --modes graph --iters 30' AB_SHAPES="$s,$s sinks,$s softcap30,$s alibi" \
  scripts/gpu-run.sh kernel-ab
OUT=$base/bench BENCH_ARGS='run --suite seed,short --modes graph --iters 50' scripts/gpu-run.sh bench
OUT=$base/tests scripts/gpu-run.sh tests
OUT=$base/fuzz FUZZ_ARGS='--cases 300 --seed 29' scripts/gpu-run.sh fuzz
OUT=$base/varlen SANITIZER_TOOLS=memcheck SANITIZER_LIMIT=60 scripts/gpu-run.sh varlen-sanitizer
OUT=$base/feed SANITIZE_TEST_EXE=flashattn--validation SANITIZE_TEST=launches_report_their_feed_and_the_feeds_agree \
  SANITIZER_TOOLS=memcheck SANITIZER_LIMIT=60 scripts/gpu-run.sh test-sanitizer
for s in ab host kab bench tests fuzz varlen feed; do echo "== $s"; cat "$base/$s/summary.txt"; done > "$root/call-ks-summary.txt"
tar -czf "$root/call-ks.tgz" -C "$root" call-ks && rm -rf "$base"
grep -vE '^    (f16|bf16) ' "$root/call-ks-summary.txt" | grep -v "worst error" | cut -c1-170 | tail -70
