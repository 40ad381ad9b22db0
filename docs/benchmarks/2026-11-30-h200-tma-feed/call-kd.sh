#!/usr/bin/env bash
# Call KD: the pack of branch tma-feed at 7ce79e7 (8405ffc's kernels, which scripts/sass-diff.sh finds unchanged in
# machine code, plus LaunchInfo::feed: ABI 9's FlashAttnFwdParams::feed_used), and flashattn-candle's GPU tests on it:
# 1. tests: validation (its new test: dense calls on the Hopper tiles report TMA, batch-broadcast K/V cp.async, and
#    both feeds give the same bits) and flashattn-sys (the ABI layout);
# 2. fuzz: the fuzzer's whole space, 300 cases on another seed, for its by-feed table;
# 3. candle: flashattn-candle's GPU tests (scripts/candle-gpu-pack.sh with CANDLE_PACK_TXZ=1: dist/candle.txz).
# Results in $OUT/call-kd/.
OUT=${OUT:-gpu-out}/call-kd TEST_FILTER='validation|flashattn_sys' FUZZ_ARGS='--cases 300 --seed 23' \
  exec scripts/gpu-run.sh tests fuzz candle
