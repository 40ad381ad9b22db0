#!/usr/bin/env bash
# Call IZ: flashattn-candle on the H200 (candle pack of 6e09176's tree, its kernels SASS for SASS
# b901a86's): scripts/gpu-run.sh's candle step, the GPU tests and the llama_attention example in
# three runs at seq 4096, 32 heads, d128, bf16: MHA, GQA (8 KV heads), GQA with a 1024-key sliding
# window (flash_attn_windowed; new this session). Its first run on an H200 (the example last ran
# on the H100, docs/benchmarks/candle.md).
# Here: scripts/candle-gpu-pack.sh in a checkout whose target holds candle-kernels' build, the
# two executables repacked with xz -9 as dist/candle.txz.
set -uo pipefail
o=${OUT:-gpu-out}/call-iz
mkdir -p "$o"
[ -d dist/candle/bin ] || tar -xJf dist/candle.txz -C dist
OUT=$o scripts/gpu-run.sh candle > "$o/gpu-run.log" 2>&1
echo "gpu-run rc=$?"
cat "$o/summary.txt"
