#!/usr/bin/env bash
# Call KAC: the probe pack of call KAB (d96-192x96 at 2b17d78, head dim 96's kernels only), to land the tile:
# 1. tune: every configuration on the d96 suite; tuned-ab: that table against the embedded one, two pairs;
# 2. tests: gpu_grid and gpu_varlen (at head dim 96 only: its 18 configurations, the new tile's two among them);
# 3. fuzz on the new tile: the walk and split-tail presets;
# 4. memcheck, racecheck, synccheck on the new tile: the sanitizer preset and its walk preset.
# Everything lands in $OUT/call-kac.tgz, the summaries in $OUT/call-kac-summary.txt.
set -u
root=${OUT:-gpu-out}; base=$root/call-kac
rm -rf dist/gpu
tar -xJf dist/gpu96.txz -C dist
new=sm90_bf16_d96_m192n96w16s3ws,sm90_f16_d96_m192n96w16s3ws
OUT=$base/tune TUNE_ARGS='--suite d96 --iters 20' AB_REPS=2 TUNED_AB_ARGS='--suite d96 --modes graph --iters 30' \
  scripts/gpu-run.sh tune tuned-ab > /dev/null
OUT=$base/tests TEST_FILTER='gpu_grid|gpu_varlen' scripts/gpu-run.sh tests > /dev/null
OUT=$base/fuzz FUZZ_ARGS="--walks --config $new --cases 60 --seed 48;--splits --config $new --cases 30 --seed 49" \
  scripts/gpu-run.sh fuzz > /dev/null
OUT=$base/san FUZZ_SANITIZER_ARGS="--small --config $new --features always;--small --walks --config $new" \
  FUZZ_SANITIZER_CASES='100 30 50' SANITIZER_LIMIT=45 scripts/gpu-run.sh fuzz-sanitizer > /dev/null
for s in tune tests fuzz san; do echo "== $s"; cat "$base/$s/summary.txt"; done > "$root/call-kac-summary.txt"
tar -czf "$root/call-kac.tgz" -C "$root" call-kac && rm -rf "$base"
grep -vE "^  [a-z]" "$root/call-kac-summary.txt" | grep -v "worst error" | cut -c1-170 | tail -60
