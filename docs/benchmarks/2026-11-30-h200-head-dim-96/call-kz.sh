#!/usr/bin/env bash
# Call KZ: the pack of 951eab6 (as call KY), against main's bench (dist/old-df5436b-bench.xz: main's
# kernels; sass-diff: every one of them is the same machine code in this build). Timing first:
# 1. ab: the seed and long suites, two pairs (the regression gate on the shapes head dim 96 does not touch);
# 2. tune: every configuration on the d96 suite; tuned-ab: that table against the dispatcher, two pairs;
# 3. memcheck, racecheck, synccheck: the fuzzer's small space at head dim 96 (every case masked or
#    modified) and its small walk preset at head dim 96.
# Everything lands in $OUT/call-kz.tgz, the summaries in $OUT/call-kz-summary.txt.
set -u
root=${OUT:-gpu-out}; base=$root/call-kz
rm -rf dist/gpu
tar -xJf dist/gpu.txz -C dist
OUT=$base/ab AB_OLD=dist/old-df5436b-bench.xz AB_REPS=2 AB_ARGS='--suite seed,long --modes graph --iters 20' \
  scripts/gpu-run.sh ab > /dev/null
OUT=$base/tune TUNE_ARGS='--suite d96 --iters 20' AB_REPS=2 TUNED_AB_ARGS='--suite d96 --modes graph --iters 30' \
  scripts/gpu-run.sh tune tuned-ab > /dev/null
OUT=$base/san FUZZ_SANITIZER_ARGS="--small --head-dim 96 --features always;--small --walks --head-dim 96" \
  FUZZ_SANITIZER_CASES='40 20 20' SANITIZER_LIMIT=45 scripts/gpu-run.sh fuzz-sanitizer > /dev/null
for s in ab tune san; do echo "== $s"; cat "$base/$s/summary.txt"; done > "$root/call-kz-summary.txt"
tar -czf "$root/call-kz.tgz" -C "$root" call-kz && rm -rf "$base"
grep -v "worst error" "$root/call-kz-summary.txt" | cut -c1-170 | tail -90
