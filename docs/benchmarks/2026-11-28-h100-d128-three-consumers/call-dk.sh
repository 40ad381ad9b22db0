#!/usr/bin/env bash
# Call DK: main's landed kernels (4f3f006's build, dist/gpu.txz; later commits touch no kernel): the
# new 192-row head-dim-128 tile's small fuzz cases, both dtypes, under compute-sanitizer memcheck,
# racecheck and synccheck. From the checkout root on the GPU host; results in $OUT/call-dk/.
set -uo pipefail
OUT=${OUT:-gpu-out}/call-dk FUZZ_SANITIZER_ARGS='--small --head-dim 128 --config sm90_bf16_d128_m192n80w16s4ws,sm90_f16_d128_m192n80w16s4ws' \
  FUZZ_SANITIZER_CASES='60 30 30' SANITIZER_LIMIT=60 scripts/gpu-run.sh fuzz-sanitizer
