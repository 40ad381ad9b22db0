#!/usr/bin/env bash
# Call J (issue 14 groundwork, no kernel change): Nsight Compute of the forward kernel on plain and
# softcap calls (bf16 d64 and d128), to see which pipe the softcap's tanh saturates, with the
# compute-workload section's per-pipe utilization. From the checkout root on the GPU host;
# everything lands in $OUT/call-j.tgz. Kept in docs/benchmarks/2026-11-26-h100-softcap-profile/.
set -uo pipefail
out=${OUT:-gpu-out}/call-j
mkdir -p "$out"
tar -xJf dist/gpu.txz -C dist
bin=dist/gpu/bin
ncu=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
for shape in 'bf16 B4 H32/32 S4096x4096 D64' 'bf16 B4 H32/32 S4096x4096 D64 softcap30' \
             'bf16 B2 H16/16 S8192x8192 D128' 'bf16 B2 H16/16 S8192x8192 D128 softcap30'; do
  tag=$(echo "$shape" | tr -c 'A-Za-z0-9\n' _)
  timeout 150 "$ncu" --kernel-name regex:'ws_kernel|fwd_kernel' --launch-skip 3 --launch-count 1 \
    --section SpeedOfLight --section ComputeWorkloadAnalysis --section WarpStateStats \
    --section SchedulerStats --section InstructionStats --section Occupancy \
    "$bin/flashattn-bench" run --suite long,masks --shapes "$shape" --modes events --iters 3 --baseline none \
    --out /tmp/ncu-x.json > "$out/$tag.txt" 2>&1
  echo "$tag: $(grep -E 'Duration|Issue Slots Busy|SM Busy|Executed Ipc Active|No Eligible' "$out/$tag.txt" | awk '{$1=$1};1' | tr '\n' ';')"
done | tee "$out/summary.txt"
tar -czf "${OUT:-gpu-out}/call-j.tgz" -C "$(dirname "$out")" call-j
