#!/usr/bin/env bash
# Call IL: call IH's pack (e6ef130; kernels SASS for SASS 39c45e9's) on the lent H200: the seed
# and long suites beside PyTorch's SDPA backends, graph replay, 50 samples, for issue 12's status
# table (p50 and p90 ratios against cuDNN, the best backend); not a change's measurement.
# From the checkout root on the GPU host; results in $OUT/call-il/.
set -uo pipefail
o=${OUT:-gpu-out}/call-il
mkdir -p "$o"
[ -d dist/gpu/bin ] || tar -xJf dist/gpu.txz -C dist
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader > "$o/checks.txt"
start=$SECONDS
dist/gpu/bin/flashattn-bench run --suite seed,long --modes graph --iters 50 --out "$o/bench.json" > "$o/bench.log" 2>&1
echo "bench seed,long beside SDPA: rc=$? in $((SECONDS - start)) s" >> "$o/checks.txt"
cat "$o/checks.txt"
grep -A30 "== mode graph" "$o/bench.log" | cut -c1-140
