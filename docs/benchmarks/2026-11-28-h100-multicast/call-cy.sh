#!/usr/bin/env bash
# Call CY: main's HEAD build (d2724fd; dist/gpu.txz) on the GPU before anything new: every GPU
# test, 200 fuzz cases over every configuration with features mixed, and the small cases of the
# eight head-dim-128/256 ws tiles (the last kernel change's) under memcheck, racecheck and
# synccheck. From the checkout root on the GPU host; results in $OUT/call-cy/.
set -uo pipefail
ws=sm90_f16_d128_m128n128w12s3ws,sm90_bf16_d128_m128n128w12s3ws,sm90_f16_d128_m128n176w12s2ws,sm90_bf16_d128_m128n176w12s2ws
ws=$ws,sm90_f16_d256_m128n64w12s2ws,sm90_bf16_d256_m128n64w12s2ws,sm90_f16_d256_m128n80w12s2ws,sm90_bf16_d256_m128n80w12s2ws
OUT=${OUT:-gpu-out}/call-cy FUZZ_ARGS="--cases 200 --seed 421" \
  FUZZ_SANITIZER_ARGS="--small --head-dim 128,256 --config $ws" FUZZ_SANITIZER_CASES='60 30 30' SANITIZER_LIMIT=150 \
  scripts/gpu-run.sh tests fuzz fuzz-sanitizer
