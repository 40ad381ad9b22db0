#!/usr/bin/env bash
# Call KF: the pack of branch o-tma-store at 97ac5ad (the TMA-fed one-tile-per-CTA kernel stores O by TMA where the
# launch has more CTAs than SMs), one scripts/gpu-run.sh run, correctness first:
# 1. tests: every GPU test of the pack (validation's feed test now at 2 and 40 heads: at 40 heads O leaves the
#    TMA kernels by TMA and must give the cp.async kernel's bits);
# 2. fuzz-sanitizer: memcheck, racecheck and synccheck on the fuzzer's walk preset at Sq, Sk <= 300 (up to 256 query
#    heads: launches of more CTAs than SMs) restricted to the 18 head-dim-64 and -128 tiles of fwd_kernel.cuh;
# 3. test-sanitizer: validation's feed test under the three tools (head dim 256 too);
# 4. fuzz: the fuzzer's whole space, 1,000 cases on a new seed.
# Here: FLASHATTN_CUDA_ARCHS=90a scripts/gpu-pack.sh (dist/gpu.txz). Results in $OUT/call-kf/ (summary.txt last).
tiles=
for t in bf16 f16; do
  for c in d64_m64n64w4s2 d64_m64n64w4s3 d64_m64n128w4s2 d64_m64n128w4s3 d64_m128n64w8s2 d64_m128n128w8s2 \
    d128_m64n64w4s2 d128_m128n64w8s2 d128_m128n128w8s2; do tiles+=${tiles:+,}sm90_${t}_$c; done
done
OUT=${OUT:-gpu-out}/call-kf FUZZ_SANITIZER_ARGS="--small --walks --config $tiles" FUZZ_SANITIZER_CASES='200 100 100' \
  SANITIZE_TEST_EXE=flashattn--validation SANITIZE_TEST=launches_report_their_feed_and_the_feeds_agree \
  SANITIZER_LIMIT=100 FUZZ_ARGS='--cases 1000 --seed 24' \
  exec scripts/gpu-run.sh tests fuzz-sanitizer test-sanitizer fuzz
