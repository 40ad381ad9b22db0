#!/usr/bin/env bash
# Call KH: the pack of branch tma-varlen at 0587210 (97ac5ad's O by TMA, plus packed varlen calls on the TMA feed of
# the one-tile-per-CTA kernel: boxes from each sequence's first row, the first key tile's V rows past the keys zeroed
# in shared memory), one scripts/gpu-run.sh run:
# 1. ab: the varlen suite (16 packed causal bf16 d128 sequences, and two dense causal shapes as controls) on the
#    two-warpgroup 128-key tile (--kernel sm90_bf16_d128_m128n128w8s2: cp.async in 97ac5ad's build, TMA here), two pairs;
# 2. tests: gpu_varlen (every configuration on the length mixes, NaN keys past seqused_k; Hopper kernels must report
#    TMA), validation, gpu_grid (the general variants' key loop changed);
# 3. varlen-sanitizer: memcheck and racecheck on the varlen grid and fuzzer at short lengths.
# Here: 97ac5ad's flashattn-bench as dist/old-97ac5ad-bench.xz. Results in $OUT/call-kh/.
OUT=${OUT:-gpu-out}/call-kh AB_OLD=dist/old-97ac5ad-bench.xz AB_REPS=2 \
  AB_ARGS='--suite varlen --modes graph --iters 20 --kernel sm90_bf16_d128_m128n128w8s2' \
  TEST_FILTER='gpu_varlen|validation|gpu_grid' SANITIZER_TOOLS='memcheck racecheck' SANITIZER_LIMIT=80 \
  exec scripts/gpu-run.sh ab tests varlen-sanitizer
