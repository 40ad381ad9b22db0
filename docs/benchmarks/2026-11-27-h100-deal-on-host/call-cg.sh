#!/usr/bin/env bash
# Call CG: branch tail-width (cc6fabe, dist/gpu.txz: the 176-key d128 tile's last key tile at 112
# keys where the keys end there) against main (9d6a4f0, dist/9d6a4f0-bench.xz): long suite, graph
# replay, 30 samples, three alternating pairs; the GPU grid test; 100 fuzz cases; 176-key
# configurations alone under memcheck and racecheck (sequences up to 400 keys, so that most
# calls end in a short tile), each bounded to 50 s. From the checkout root on the GPU host;
# results in $OUT/call-cg/.
set -uo pipefail
c=sm90_bf16_d128_m128n176w12s2ws,sm90_f16_d128_m128n176w12s2ws
OUT=${OUT:-gpu-out}/call-cg AB_OLD=dist/9d6a4f0-bench.xz AB_REPS=3 AB_ARGS='--suite long --modes graph --iters 30' \
  TEST_FILTER='gpu_grid' FUZZ_ARGS='--cases 100 --seed 331' \
  FUZZ_SANITIZER_ARGS="--small --max-seqlen 400 --config $c" FUZZ_SANITIZER_CASES='40 20 10' SANITIZER_LIMIT=50 \
  scripts/gpu-run.sh ab tests fuzz fuzz-sanitizer
