#!/usr/bin/env bash
# Call JR: the same pack as call JQ (branch tile-copier), the checks that take minutes:
# 1. candle: flashattn-candle's GPU tests, built against these kernels (scripts/candle-gpu-pack.sh,
#    carried as dist/candle.txz);
# 2. fuzz: the fuzzer's whole space, 2,000 cases on a seed no earlier call used.
# The warp-specialized kernels, whose walks and split tails the --walks and --splits presets
# aim at, compile from sources this change does not touch (ws_*.cuh do not include
# fwd_kernel.cuh), so those presets are not rerun.
# Results in $OUT/call-jr/ (summary.txt, printed last).
set -uo pipefail
[ -d dist/candle/bin ] || tar -xJf dist/candle.txz -C dist
OUT=${OUT:-gpu-out}/call-jr FUZZ_ARGS='--cases 2000 --seed 11' exec scripts/gpu-run.sh candle fuzz
