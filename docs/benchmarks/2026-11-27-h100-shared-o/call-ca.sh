#!/usr/bin/env bash
# Call CA: Nsight Compute of the 176-key head-dim-128 ws kernel walked (f1c9f99, dist/gpu.txz)
# and one CTA per tile (main, 4fa06ad's kernels, dist/4fa06ad-bench.xz) on bf16 B8 H16 S2048 and
# B2 H16 S8192 D128, the dispatcher's launch, one profiled launch each. From the checkout root on
# the GPU host; results in $OUT/call-ca/.
set -uo pipefail
o=${OUT:-gpu-out}/call-ca; mkdir -p "$o"
[ -d dist/gpu/bin ] || tar -xJf dist/gpu.txz -C dist
xz -dc dist/4fa06ad-bench.xz > "$o/old-bench"; chmod +x "$o/old-bench"
ncu=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
for shape in 'bf16 B8 H16/16 S2048x2048 D128' 'bf16 B2 H16/16 S8192x8192 D128'; do
  for side in walked one-per-tile; do
    exe=dist/gpu/bin/flashattn-bench; [ $side = one-per-tile ] && exe=$o/old-bench
    tag=$(echo "$shape" | tr -c 'A-Za-z0-9\n' _)-$side
    timeout 120 "$ncu" --kernel-name regex:'ws_kernel' --launch-skip 2 --launch-count 1 \
      --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section SchedulerStats \
      --section LaunchStats --metrics l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum,lts__t_sector_hit_rate.pct,dram__bytes_read.sum \
      "$exe" run --suite long --shapes "$shape" --modes events --iters 3 --baseline none --out /tmp/ncu-x.json > "$o/$tag.txt" 2>&1
    echo "$tag: $(grep -E 'Duration|Grid Size|SM Busy|Issue Slots Busy|No Eligible|L2 Hit Rate|DRAM Throughput|local_op_ld|local_op_st|dram__bytes_read' "$o/$tag.txt" | awk '{$1=$1};1' | tr '\n' ';')" >> "$o/summary.txt"
  done
done
rm -f "$o/old-bench"
cat "$o/summary.txt"
