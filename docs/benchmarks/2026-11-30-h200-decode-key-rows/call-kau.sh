#!/usr/bin/env bash
# Call KAU: the rest of the GPU suite and a fuzz run on the pack of d3270b3 (the tree of 542eb6d,
# the last kernel edit; call KAT ran gpu_decode, gpu_merge and the decode sanitizer on it).
rm -rf dist/gpu; tar -xJf dist/gpu.txz -C dist
OUT=$OUT/fuzz FUZZ_ARGS='--cases 150 --seed 11' scripts/gpu-run.sh fuzz > /dev/null
OUT=$OUT/tests TEST_FILTER='gpu_grid|gpu_varlen|gpu_fuzz|gpu_stream_order|gpu_merge|flashattn_sys|validation' \
  scripts/gpu-run.sh tests > /dev/null
cat "$OUT/fuzz/summary.txt" "$OUT/tests/summary.txt"
