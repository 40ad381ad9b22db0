#!/usr/bin/env bash
# Call Y: the persistent ws kernel with two Q buffers (3450a19) against the build before it
# (36f14cf), same run: seed, long and masks suites, two repetitions; the regression gate; the GPU
# tests; the fuzzer (mixed features), the fuzzer on the head dim 64 ws tiles alone (sizes up to
# S4096, B4, H64: many launches persistent), and those tiles up to S600 under memcheck, racecheck
# and synccheck. From the checkout root on the GPU host; results in $OUT/call-y/.
set -uo pipefail
ws=sm90_bf16_d64_m128n128w12s4ws,sm90_f16_d64_m128n128w12s4ws,sm90_bf16_d64_m192n128w16s4ws,sm90_f16_d64_m192n128w16s4ws
OUT=${OUT:-gpu-out}/call-y AB_OLD=dist/old-36f14cf.xz AB_REPS=2 \
  AB_ARGS='--suite seed,long,masks --modes graph --iters 30' \
  TEST_FILTER='gpu_grid|gpu_varlen|validation' \
  FUZZ_ARGS='--cases 300 --seed 91' \
  FUZZ_SANITIZER_ARGS="--max-seqlen 600 --config $ws --features off" FUZZ_SANITIZER_CASES='40 8 12' \
  scripts/gpu-run.sh ab regression tests fuzz fuzz-sanitizer
o=${OUT:-gpu-out}/call-y
start=$SECONDS
dist/gpu/bin/flashattn-fuzz --config "$ws" --cases 300 --seed 92 > "$o/fuzz-ws.log" 2>&1
echo "fuzz on the d64 ws tiles: rc=$? in $((SECONDS - start)) s; $(grep -E 'persistent|^all|failed,' "$o/fuzz-ws.log" | tail -3 | tr '\n' ' ')" | tee -a "$o/summary.txt"
