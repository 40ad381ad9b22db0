#!/usr/bin/env bash
# Call DC: the new `profile` step of scripts/gpu-run.sh on main's build (d2724fd, dist/gpu.txz):
# Nsight Compute per shape with source counters and ncu_stalls.py's summary, for bf16 B8 H16
# S2048 D128 (call DB's shape, by hand there) and the seed shape f16 B4 H16 S512 (issue 12's
# furthest seed shape). From the checkout root on the GPU host; results in $OUT/call-dc/.
set -uo pipefail
OUT=${OUT:-gpu-out}/call-dc PROFILE_SHAPES='bf16 B8 H16/16 S2048x2048 D128;f16 B4 H16/16 S512x512 D64' \
  scripts/gpu-run.sh profile
