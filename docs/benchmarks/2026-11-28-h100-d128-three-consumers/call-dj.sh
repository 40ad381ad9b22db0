#!/usr/bin/env bash
# Call DJ: main's HEAD as landed (4f3f006: the 192-row head-dim-128 tile, the table and rule as
# landed; dist/gpu.txz): every GPU test and 200 fuzz cases over every configuration with features
# mixed. From the checkout root on the GPU host; results in $OUT/call-dj/.
set -uo pipefail
OUT=${OUT:-gpu-out}/call-dj FUZZ_ARGS='--cases 200 --seed 487' scripts/gpu-run.sh tests fuzz
