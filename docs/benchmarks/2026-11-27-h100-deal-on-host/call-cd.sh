#!/usr/bin/env bash
# Call CD: main (dist/gpu.txz) beside PyTorch's SDPA backends on the seed and long suites twice:
# the usual protocol (graph replay, 30 samples, 10 warm-up calls) with the regression gate, then
# each (shape, implementation) kept running 1.5 s before its samples (--warm-ms 1500, both sides);
# every configuration that runs bf16 B8 H16 S2048 D128 and S8192 D128, warmed 1 s each; and power,
# SM clock and the clock-event reasons beside ours and cuDNN on three long shapes.
# From the checkout root on the GPU host; results in $OUT/call-cd/.
set -uo pipefail
base=${OUT:-gpu-out}/call-cd
OUT=$base/plain BENCH_ARGS='run --suite seed,long --modes graph --iters 30' scripts/gpu-run.sh bench regression
OUT=$base/warm BENCH_ARGS='run --suite seed,long --modes graph --iters 30 --warm-ms 1500' scripts/gpu-run.sh bench
mkdir -p "$base/configs"
for i in 1 2; do
  dist/gpu/bin/flashattn-bench run --suite long --shapes 'bf16 B8 H16/16 S2048x2048 D128,bf16 B2 H16/16 S8192x8192 D128' \
    --kernel all --modes graph --iters 30 --warm-ms 1000 --baseline none --out "$base/configs/configs-$i.json" \
    > "$base/configs/configs-$i.log" 2>&1
  echo "configs pass $i: rc=$?"; grep -E '^\[' "$base/configs/configs-$i.log" | sed 's/^/    /'
done | tee "$base/configs/summary.txt"
rm -f "$base"/configs/*.csv
OUT=$base/power POWER_ITERS=150 \
  POWER_SHAPES='bf16 B8 H16/16 S2048x2048 D128,bf16 B2 H16/16 S8192x8192 D128,bf16 B4 H32/32 S4096x4096 D64' \
  scripts/gpu-run.sh power
