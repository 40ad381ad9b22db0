#!/usr/bin/env bash
# For the next session lent an H100 (not run yet): what this session could not measure there.
# Here first: FLASHATTN_CUDA_ARCHS=90a scripts/gpu-pack.sh (dist/gpu.txz of main) and
#   scripts/variant-ab.sh build before=d30b9b4 walk12=77c7394
# Then on the H100, from the checkout root (about 12 minutes of device time): the GPU tests and a
# fuzz run first (flashattn_fwd's variant choice moved to common/features.cuh in 2189fdc after this
# session's last GPU run: CPU CI only), the walk change in one process (S2048 D128 is the H100 table's 176-key row; S512/S1024 walk on both), the tuner
# over the long suite against the H100 table and the rule (two repetitions), and the long and seed
# suites beside SDPA with the tuned rows (copy them into crates/flashattn/dispatch/ where both
# repetitions agree, as the H200's were).
set -uo pipefail
o=${OUT:-gpu-out}/next-h100
mkdir -p "$o"
[ -d dist/gpu/bin ] || tar -xJf dist/gpu.txz -C dist
OUT=$o/tests FUZZ_ARGS='--cases 200 --seed 541' scripts/gpu-run.sh tests fuzz > "$o/tests-run.log" 2>&1
scripts/variant-ab.sh run 15 "m128n176w12s2ws bf16 8 16 2048 128" "m128n176w12s2ws bf16 16 16 1024 128" \
  "m128n176w12s2ws bf16 32 16 512 128" "m128n176w12s2ws bf16 2 16 8192 128" > "$o/variant-ab.txt" 2>&1
OUT=$o/tune TUNE_ARGS='--suite long --iters 20' AB_REPS=2 TUNED_AB_ARGS='--suite long --modes graph --iters 30' \
  scripts/gpu-run.sh tune tuned-ab > "$o/tune-run.log" 2>&1
OUT=$o/bench FLASHATTN_DISPATCH=$o/tune/dispatch.tsv BENCH_ARGS='run --suite seed,long --modes graph --iters 50' \
  scripts/gpu-run.sh bench > "$o/bench-run.log" 2>&1
grep -E "^test |fuzz" "$o/tests/summary.txt"
cat "$o/variant-ab.txt" "$o/tune/summary.txt"; tail -30 "$o/bench/summary.txt"
