#!/usr/bin/env bash
# Call CM: call CL's one pair read bf16 B16 H32 S1024 1.042 (4df2f54 / 5c2e281), whose kernels'
# SASS is identical (host code changed only). The long suite again, three alternating pairs.
# From the checkout root on the GPU host; results in $OUT/call-cm/.
set -uo pipefail
OUT=${OUT:-gpu-out}/call-cm AB_OLD=dist/main-bench.xz AB_REPS=3 \
  AB_ARGS='--suite long --modes graph --iters 30' scripts/gpu-run.sh ab
