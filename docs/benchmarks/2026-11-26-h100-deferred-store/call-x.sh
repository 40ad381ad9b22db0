#!/usr/bin/env bash
# Call X: the persistent ws kernel copying a tile's O out after the next tile's first Q.K^T is
# issued (472b70f) against the build before it (36f14cf), same run: seed, long and masks suites,
# two repetitions; the long suite beside SDPA; the regression gate; the GPU tests; the fuzzer; and
# the fuzzer on the head dim 64 ws tiles at sizes that launch the persistent kernel (more 128-row
# tiles than SMs) under memcheck, racecheck and synccheck. From the checkout root on the GPU host;
# results in $OUT/call-x/.
set -uo pipefail
OUT=${OUT:-gpu-out}/call-x AB_OLD=dist/old-36f14cf.xz AB_REPS=2 \
  AB_ARGS='--suite seed,long,masks --modes graph --iters 30' \
  BENCH_ARGS='run --suite long --modes graph --iters 30' \
  TEST_FILTER='gpu_grid|gpu_varlen|validation' \
  FUZZ_ARGS='--cases 400 --seed 81' \
  FUZZ_SANITIZER_ARGS='--max-seqlen 600 --config sm90_bf16_d64_m128n128w12s4ws,sm90_f16_d64_m192n128w16s4ws,sm90_bf16_d64_m192n128w16s4ws --features off' \
  FUZZ_SANITIZER_CASES='30 6 10' \
  scripts/gpu-run.sh ab bench regression tests fuzz fuzz-sanitizer
