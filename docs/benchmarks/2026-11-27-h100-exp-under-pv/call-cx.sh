#!/usr/bin/env bash
# Call CX: branch row-chains (97872f1: with the exponentials under P.V, each row's max and sums in
# four independent chains; dist/gpu.txz) against main (f3dd3d5's kernels, dist/main-bench.xz): the
# long suite, graph replay, 30 samples, four alternating pairs, pooled; then every GPU test, the
# fuzzer on the changed ws tiles alone (head dims 128 and 256) and their small cases under
# memcheck, racecheck and synccheck. From the checkout root on the GPU host; results in $OUT/call-cx/.
set -uo pipefail
ws=sm90_f16_d128_m128n128w12s3ws,sm90_bf16_d128_m128n128w12s3ws,sm90_f16_d128_m128n176w12s2ws,sm90_bf16_d128_m128n176w12s2ws
ws=$ws,sm90_f16_d256_m128n64w12s2ws,sm90_bf16_d256_m128n64w12s2ws,sm90_f16_d256_m128n80w12s2ws,sm90_bf16_d256_m128n80w12s2ws
OUT=${OUT:-gpu-out}/call-cx AB_OLD=dist/main-bench.xz AB_REPS=4 AB_ARGS='--suite long --modes graph --iters 30' \
  FUZZ_ARGS="--cases 300 --seed 404 --max-seqlen 2048 --head-dim 128,256 --config $ws" \
  FUZZ_SANITIZER_ARGS="--small --head-dim 128,256 --config $ws" FUZZ_SANITIZER_CASES='60 30 30' SANITIZER_LIMIT=150 \
  scripts/gpu-run.sh ab tests fuzz fuzz-sanitizer
