#!/usr/bin/env bash
# Call FE: build 5468a4c (dist/gpu.txz): Nsight Compute (full set, source counters, clocks left
# alone) on one launch each of the three issue-12 shapes still short of their target on the H200
# (bf16 B16 H32 S1024 D64, bf16 B8 H16 S2048 D128, now walking, f16 B8 H16 S512 D64): where their
# warps stall, for the next kernel change. From the checkout root on the GPU host; results in
# $OUT/call-fe/.
set -uo pipefail
o=${OUT:-gpu-out}/call-fe
mkdir -p "$o"
[ -d dist/gpu/bin ] || tar -xJf dist/gpu.txz -C dist
OUT=$o/prof KEEP_WORK=1 PROFILE_SHAPES='bf16 B16 H32/32 S1024x1024 D64;bf16 B8 H16/16 S2048x2048 D128;f16 B8 H16/16 S512x512 D64' \
  scripts/gpu-run.sh profile > "$o/profile-run.log" 2>&1
for i in 0 1 2; do
  d=$o/prof/work/profile-$i-details.txt
  [ -f "$d" ] || d=$(find "$o" -name "profile-$i-details.txt" | head -1)
  { echo "== profile $i"; grep -E "Duration|Registers Per|Achieved Occupancy|Issue Slots Busy|Executed Ipc Active|SM Busy|Compute \(SM\) Throughput|Memory Throughput|L2 Hit Rate|Block Size|Grid Size|Dynamic Shared" "$d" | head -16
    sed -n '/^samples by stall reason/,/^$/p' "$o/prof/profile-$i-stalls.txt" | head -14; } >> "$o/profile-summary.txt"
done
rm -rf "$o/prof/work"
cat "$o/prof/summary.txt" "$o/profile-summary.txt"
