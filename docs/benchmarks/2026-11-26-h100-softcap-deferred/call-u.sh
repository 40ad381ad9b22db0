#!/usr/bin/env bash
# Call U: the softcap's tanh deferred into the softmax's exponent on mask-free tiles (row max on
# raw scores) against the build before it (36f14cf), same run: the long suite (plain) and the
# masks suite (window, softcap, ALiBi, sinks) with both builds, alternating, two repetitions;
# then the regression gate against the stored baseline, the GPU tests, the fuzzer with every case
# carrying a feature, and the fuzzer under compute-sanitizer with features. From the checkout
# root on the GPU host; results in $OUT/call-u/ (summary.txt, logs.tar.gz).
set -uo pipefail
OUT=${OUT:-gpu-out}/call-u AB_OLD=dist/old-36f14cf.xz AB_REPS=2 \
  AB_ARGS='--suite long,masks --modes graph --iters 30' \
  TEST_FILTER='gpu_grid|gpu_varlen|validation|flashattn_sys' \
  FUZZ_ARGS='--cases 600 --features always --seed 71' \
  FUZZ_SANITIZER_ARGS='--small --features always' FUZZ_SANITIZER_CASES='60 30 30' \
  scripts/gpu-run.sh ab regression tests fuzz fuzz-sanitizer
