#!/usr/bin/env bash
# Call DP: the landed build (9a7b251's kernels, dist/gpu.txz) and main's before it
# (dist/main-bench-4f3f006.xz) on the head-dim-128 shapes the walk changes (the sweep suite's
# S512 and S1024, bf16 and their f16 counterparts are not in a suite) beside PyTorch SDPA's
# backends, graph replay, 50 samples: where the change leaves us against cuDNN.
# From the checkout root on the GPU host; results in $OUT/call-dp/.
set -uo pipefail
o=${OUT:-gpu-out}/call-dp
mkdir -p "$o"
[ -d dist/gpu/bin ] || tar -xJf dist/gpu.txz -C dist
xz -dc dist/main-bench-4f3f006.xz > "$o/main-bench" && chmod +x "$o/main-bench"
shapes='bf16 B32 H16/16 S512x512 D128,bf16 B16 H16/16 S1024x1024 D128'
"$o/main-bench" run --suite sweep --shapes "$shapes" --modes graph --iters 50 --baseline none --label flashattn-main \
  --out "$o/main.json" > "$o/main.log" 2>&1
dist/gpu/bin/flashattn-bench run --suite sweep --shapes "$shapes" --modes graph --iters 50 --out "$o/bench.json" > "$o/bench.log" 2>&1
rm -f "$o/main-bench"
grep -h "p50" "$o/main.log" "$o/bench.log" | head -20
