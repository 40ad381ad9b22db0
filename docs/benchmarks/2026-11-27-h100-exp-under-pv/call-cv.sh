#!/usr/bin/env bash
# Call CV: branch exp-under-pv at f3dd3d5 (the exponentials under the warpgroup's own P.V at head
# dims 128 and 256 without softcap or ALiBi; dist/gpu.txz) against main (4df2f54's kernels,
# dist/main-bench.xz): the masks suite, two alternating pairs, pooled; then the fuzzer on the
# changed ws tiles alone (head dims 128 and 256, all four tiles, both dtypes; 300 cases, features
# mixed) and the same tiles' small cases under memcheck, racecheck and synccheck. From the
# checkout root on the GPU host; results in $OUT/call-cv/.
set -uo pipefail
ws=sm90_f16_d128_m128n128w12s3ws,sm90_bf16_d128_m128n128w12s3ws,sm90_f16_d128_m128n176w12s2ws,sm90_bf16_d128_m128n176w12s2ws
ws=$ws,sm90_f16_d256_m128n64w12s2ws,sm90_bf16_d256_m128n64w12s2ws,sm90_f16_d256_m128n80w12s2ws,sm90_bf16_d256_m128n80w12s2ws
OUT=${OUT:-gpu-out}/call-cv AB_OLD=dist/main-bench.xz AB_REPS=2 AB_ARGS='--suite masks --modes graph --iters 30' \
  FUZZ_ARGS="--cases 300 --seed 403 --max-seqlen 2048 --head-dim 128,256 --config $ws" \
  FUZZ_SANITIZER_ARGS="--small --head-dim 128,256 --config $ws" FUZZ_SANITIZER_CASES='60 30 30' SANITIZER_LIMIT=150 \
  scripts/gpu-run.sh ab fuzz fuzz-sanitizer
