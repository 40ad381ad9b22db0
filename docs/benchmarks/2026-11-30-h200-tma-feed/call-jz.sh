#!/usr/bin/env bash
# Call JZ: the pack of branch tma-feed (8405ffc: the one-tile-per-CTA Hopper kernel fed by TMA where tensor maps
# describe Q, K and V, cp.async otherwise), one scripts/gpu-run.sh run, correctness first:
# 1. tests: every GPU test of the pack (gpu_grid runs every configuration; dense calls now take the TMA feed);
# 2. fuzz-sanitizer: memcheck, racecheck and synccheck on the fuzzer's small space restricted to the 24
#    configurations of fwd_kernel.cuh (both feeds: dense calls by TMA, batch-broadcast K/V and varlen by cp.async);
# 3. fuzz: the fuzzer's whole space, 1,200 cases on a new seed.
# Here: FLASHATTN_CUDA_ARCHS=90a scripts/gpu-pack.sh (dist/gpu.txz). Results in $OUT/call-jz/ (summary.txt last).
OUT=${OUT:-gpu-out}/call-jz \
  FUZZ_SANITIZER_ARGS='--small --config sm90_f16_d64_m64n64w4s2,sm90_f16_d64_m64n64w4s3,sm90_f16_d64_m64n128w4s2,sm90_f16_d64_m64n128w4s3,sm90_f16_d64_m128n64w8s2,sm90_f16_d64_m128n128w8s2,sm90_f16_d128_m64n64w4s2,sm90_f16_d128_m128n64w8s2,sm90_f16_d128_m128n128w8s2,sm90_f16_d256_m64n64w4s2,sm90_f16_d256_m64n64w4s3,sm90_f16_d256_m128n64w8s2,sm90_bf16_d64_m64n64w4s2,sm90_bf16_d64_m64n64w4s3,sm90_bf16_d64_m64n128w4s2,sm90_bf16_d64_m64n128w4s3,sm90_bf16_d64_m128n64w8s2,sm90_bf16_d64_m128n128w8s2,sm90_bf16_d128_m64n64w4s2,sm90_bf16_d128_m128n64w8s2,sm90_bf16_d128_m128n128w8s2,sm90_bf16_d256_m64n64w4s2,sm90_bf16_d256_m64n64w4s3,sm90_bf16_d256_m128n64w8s2' \
  FUZZ_SANITIZER_CASES='200 100 100' SANITIZER_LIMIT=70 FUZZ_ARGS='--cases 1200 --seed 21' \
  exec scripts/gpu-run.sh tests fuzz-sanitizer fuzz
