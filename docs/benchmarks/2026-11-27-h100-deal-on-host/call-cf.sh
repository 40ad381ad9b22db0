#!/usr/bin/env bash
# Call CF: power and clock beside ours and cuDNN on bf16 B8 H16 S2048 D128 alone, long enough
# to settle (600 graph samples of 20 calls, about 6 s a side), twice in turn.
# From the checkout root on the GPU host; results in $OUT/call-cf/.
set -uo pipefail
k='bf16 B8 H16/16 S2048x2048 D128'
OUT=${OUT:-gpu-out}/call-cf POWER_ITERS=600 POWER_SHAPES="$k,$k" scripts/gpu-run.sh power
