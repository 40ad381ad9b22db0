#!/usr/bin/env bash
# Call JS: the same pack as calls JQ and JR (branch tile-copier's e415cda), one scripts/gpu-run.sh run:
# 1. bench: the seed suite beside PyTorch's SDPA backends again (the second of two runs: is
#    f16 B4 H16 S512's 1.111 of call JQ above 1.10 by more than the drift?);
# 2. profile: Nsight Compute on that shape's kernel (sm90_f16_d64_m64n64w4s2), against call BG's
#    instruction count on the same shape before the copier;
# 3. fuzz-sanitizer: memcheck, racecheck and synccheck on the fuzzer's small space restricted to
#    the 24 cp.async Hopper configurations this change compiles differently (named; the --small
#    default picks among every configuration).
# Results in $OUT/call-js/ (summary.txt, printed last).
OUT=${OUT:-gpu-out}/call-js BENCH_ARGS='run --suite seed --modes graph --iters 50' \
  PROFILE_SHAPES='f16 B4 H16/16 S512x512 D64' PROFILE_SUITES=seed \
  FUZZ_SANITIZER_ARGS='--small --config sm90_f16_d64_m64n64w4s2,sm90_f16_d64_m64n64w4s3,sm90_f16_d64_m64n128w4s2,sm90_f16_d64_m64n128w4s3,sm90_f16_d64_m128n64w8s2,sm90_f16_d64_m128n128w8s2,sm90_f16_d128_m64n64w4s2,sm90_f16_d128_m128n64w8s2,sm90_f16_d128_m128n128w8s2,sm90_f16_d256_m64n64w4s2,sm90_f16_d256_m64n64w4s3,sm90_f16_d256_m128n64w8s2,sm90_bf16_d64_m64n64w4s2,sm90_bf16_d64_m64n64w4s3,sm90_bf16_d64_m64n128w4s2,sm90_bf16_d64_m64n128w4s3,sm90_bf16_d64_m128n64w8s2,sm90_bf16_d64_m128n128w8s2,sm90_bf16_d128_m64n64w4s2,sm90_bf16_d128_m128n64w8s2,sm90_bf16_d128_m128n128w8s2,sm90_bf16_d256_m64n64w4s2,sm90_bf16_d256_m64n64w4s3,sm90_bf16_d256_m128n64w8s2' \
  FUZZ_SANITIZER_CASES='150 80 80' SANITIZER_LIMIT=60 \
  exec scripts/gpu-run.sh bench profile fuzz-sanitizer
