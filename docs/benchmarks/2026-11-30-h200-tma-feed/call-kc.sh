#!/usr/bin/env bash
# Call KC: the same pack as calls JZ-KB (branch tma-feed, 8405ffc), one scripts/gpu-run.sh run:
# 1. bench: the seed suite beside PyTorch's SDPA backends with the checkout's H200 table as retuned from call KB
#    (f16 B4 H16 S512 on the two-warpgroup 128-key tile, its causal row on three buffers), read at run time
#    through FLASHATTN_DISPATCH (the pack embeds the previous table);
# 2. fuzz: the fuzzer's whole space, 800 more cases on another seed (2,000 with call JZ's).
# Results in $OUT/call-kc/.
export FLASHATTN_DISPATCH=$PWD/crates/flashattn/dispatch/nvidia-h200.tsv
OUT=${OUT:-gpu-out}/call-kc BENCH_ARGS='run --suite seed --modes graph --iters 50' FUZZ_ARGS='--cases 800 --seed 22' \
  exec scripts/gpu-run.sh bench fuzz
