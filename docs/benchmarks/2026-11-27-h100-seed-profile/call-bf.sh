#!/usr/bin/env bash
# Call BF (issue 12 groundwork, no kernel change): Nsight Compute (full set) of our forward kernel
# and cuDNN's SDPA kernel on the f16 S512 D64 seed shapes that trail the 1.10x target (B4 H16,
# B8 H16) and one that meets it (B4 H8), to see what bounds these 8-26 us launches (L2 traffic,
# occupancy, latency, the wave tail). Our kernels from the pack (main's kernels), cuDNN through
# torch 2.11 (cudnn_one.py), one launch each after warm-up. From the checkout root on the GPU host;
# everything lands in $OUT/keep/<call>.tgz.
# PROFILE_AS=graph is call BG (call-bg.sh): the same as the graph replay sees the kernels (inputs
# hot in L2, clocks not locked, stall reasons printed), plus our 128-row two-consumer ws tile,
# cuDNN's shape, forced on B4 H16 and B8 H16.
set -uo pipefail
here=$(dirname "$0")
graph=$([ "${PROFILE_AS:-}" = graph ] && echo 1 || true)
call=$([ -n "$graph" ] && echo call-bg || echo call-bf)
out=${OUT:-gpu-out}/$call
mkdir -p "$out" "${OUT:-gpu-out}/keep"
[ -d dist/gpu/bin ] || tar -xJf dist/gpu.txz -C dist
bin=dist/gpu/bin
cat dist/gpu/COMMIT > "$out/commit.txt"
ncu=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
py=/opt/torch/.venv/bin/python3; [ -x "$py" ] || py=python3
sections="--set full --import-source no"
[ -n "$graph" ] && sections+=" --cache-control none --clock-control none --print-details all"
metrics='Duration|Elapsed Cycles|SM Busy|Issue Slots Busy'
[ -n "$graph" ] && metrics+='|SM Active Cycles|Local Memory Spilling Requests|Stall [A-Za-z ]+'
metrics+='|Compute \(SM\) Throughput|Memory Throughput|L2 Cache Throughput|DRAM Throughput|L1/TEX Hit Rate|L2 Hit Rate'
metrics+='|Achieved Occupancy|Theoretical Occupancy|Registers Per Thread|Grid Size|Block Size|Waves Per SM|No Eligible'
metrics+='|Active Warps Per Scheduler|Eligible Warps Per Scheduler|Warp Cycles Per Issued Instruction|Executed Instructions '
metrics+='|Dynamic Shared Memory Per Block|Block Limit Shared Mem|Block Limit Registers'
ours() {  # ours <output file> [flashattn-bench run options]: one launch of our kernel on $shape
  local f=$1; shift
  timeout 200 "$ncu" $sections --kernel-name regex:'ws_kernel|fwd_kernel' --launch-skip 5 --launch-count 1 \
    "$bin/flashattn-bench" run --suite seed --shapes "$shape" "$@" --modes events --iters 5 --baseline none \
    --out /tmp/ncu-x.json > "$f" 2>&1
}
for bh in "4 16" "8 16" "4 8"; do
  set -- $bh; b=$1; h=$2
  shape="f16 B$b H$h/$h S512x512 D64"
  tag="B${b}_H${h}"
  ours "$out/ours-$tag.txt"
  if [ -n "$graph" ] && [ "$b$h" != 48 ]; then
    ours "$out/ws128-$tag.txt" --kernel sm90_f16_d64_m128n128w12s4ws
  fi
  timeout 200 "$ncu" $sections --profile-from-start off "$py" "$here/cudnn_one.py" $b $h 512 64 \
    > "$out/cudnn-$tag.txt" 2>&1
  for who in ours ws128 cudnn; do
    f="$out/$who-$tag.txt"; [ -f "$f" ] || continue
    echo "== $who $tag: $(grep -E '^  [a-zA-Z_].*\(' "$f" | head -2 | awk '{$1=$1};1' | cut -c1-120 | tr '\n' ' ')"
    grep -E "^    ($metrics) " "$f" | awk '{$1=$1};1'
  done
done 2>&1 | tee "$out/summary.txt"
tar -czf "${OUT:-gpu-out}/keep/$call.tgz" -C "$(dirname "$out")" "$call"
