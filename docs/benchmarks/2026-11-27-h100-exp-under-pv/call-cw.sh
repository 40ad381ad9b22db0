#!/usr/bin/env bash
# Call CW: Nsight Compute (full set, as the graph replay sees the kernels: caches and clocks left
# alone) of bf16 B8 H16 S2048 D128, the long shape furthest from issue 12's target: our kernel
# before (main's flashattn-bench, dist/main-bench.xz) and after (dist/gpu.txz, f3dd3d5) the
# exponentials moved under P.V, and cuDNN's through torch (../2026-11-27-h100-seed-profile/cudnn_one.py; the call ran
# the same script as a copy with the dtype argument, since folded into it), one launch each after
# warm-up. From the checkout root on the GPU host; results in $OUT/call-cw/.
set -uo pipefail
here=$(dirname "$0")
out=${OUT:-gpu-out}/call-cw
mkdir -p "$out"
[ -d dist/gpu/bin ] || tar -xJf dist/gpu.txz -C dist
xz -dc dist/main-bench.xz > /tmp/main-bench && chmod +x /tmp/main-bench
ncu=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
py=/opt/torch/.venv/bin/python3; [ -x "$py" ] || py=python3
sections="--set full --import-source no --cache-control none --clock-control none --print-details all"
shape="bf16 B8 H16/16 S2048x2048 D128"
for who in before after; do
  bench=/tmp/main-bench; [ $who = after ] && bench=dist/gpu/bin/flashattn-bench
  timeout 200 "$ncu" $sections --kernel-name regex:'ws_kernel|fwd_kernel' --launch-skip 5 --launch-count 1 \
    "$bench" run --suite long --shapes "$shape" --modes events --iters 5 --baseline none \
    --out /tmp/ncu-x.json > "$out/ours-$who.txt" 2>&1
done
timeout 200 "$ncu" $sections --profile-from-start off "$py" "$here/../2026-11-27-h100-seed-profile/cudnn_one.py" 8 16 2048 128 bf16 \
  > "$out/cudnn.txt" 2>&1
metrics='Duration|SM Frequency|Elapsed Cycles|SM Active Cycles|SM Busy|Issue Slots Busy|Executed Ipc Active'
metrics+='|Compute \(SM\) Throughput|Memory Throughput|L2 Cache Throughput|DRAM Throughput|L2 Hit Rate'
metrics+='|Registers Per Thread|Grid Size|Block Size|Waves Per SM|Executed Instructions |Warp Cycles Per Issued Instruction'
metrics+='|Stall [A-Za-z ]+|Dynamic Shared Memory Per Block'
for who in ours-before ours-after cudnn; do
  f="$out/$who.txt"
  echo "== $who: $(grep -E '^  [a-zA-Z_].*\(' "$f" | head -1 | awk '{$1=$1};1' | cut -c1-140)"
  grep -E "^    ($metrics) " "$f" | awk '{$1=$1};1'
  grep -E "highest-utilized pipeline" "$f" | awk '{$1=$1};1' | head -2
done 2>&1 | tee "$out/summary.txt"
