#!/usr/bin/env bash
# Call FY: accumulation_dump.cu (bf16 inputs; f16 inputs a third subnormal) through mma.sync and
# wgmma, dumped for fit.py. Results in $OUT/call-fy/ (dump.log, dumps.tar.gz).
set -uo pipefail
o=${OUT:-gpu-out}/call-fy
mkdir -p "$o/dumps"
nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
$nvcc -std=c++17 -O3 -gencode=arch=compute_90a,code=sm_90a -Icuda-src -o "$o/accumulation_dump" \
  docs/benchmarks/2026-11-28-h200-accumulation/accumulation_dump.cu > "$o/dump.log" 2>&1 &&
  timeout 120 "$o/accumulation_dump" 300 24 "$o/dumps" >> "$o/dump.log" 2>&1
echo "rc=$?" >> "$o/dump.log"
rm -f "$o/accumulation_dump"
tar -czf "$o/dumps.tar.gz" -C "$o/dumps" . && rm -rf "$o/dumps"
cat "$o/dump.log"; ls -la "$o"
