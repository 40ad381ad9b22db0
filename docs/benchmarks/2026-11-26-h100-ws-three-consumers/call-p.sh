#!/usr/bin/env bash
# Call P: the landed build (c9cd8d6: the look-ahead of call O reverted, so the kernels are
# f7117a9's) on the head dim 64 seed and long shapes beside SDPA with the dispatcher's choice
# (the updated H100 table); then Nsight Compute with source counters (per-instruction warp stall
# sampling) of the ws kernel on bf16 B4 H32 S4096 D64 (192-row tile) plain and with softcap 30,
# and on bf16 B16 H32 S1024 D64 (128-row tile), for where the softcap's and the short shape's
# time goes, instruction by instruction. From the checkout root on the GPU host; results in
# $OUT/call-p.tgz.
set -uo pipefail
[ -d dist/gpu/bin ] || tar -xJf dist/gpu.txz -C dist
bin=dist/gpu/bin
o=${OUT:-gpu-out}/call-p; mkdir -p "$o"; s=$o/summary.txt; : > "$s"
note() { echo "$*" | tee -a "$s"; }
note "device: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader) commit $(cat dist/gpu/COMMIT) archs $(cat dist/gpu/ARCHS)"
keys="bf16 B16 H32/32 S1024x1024 D64,bf16 B4 H32/32 S4096x4096 D64,f16 B4 H32/32 S4096x4096 D64"
for b in "1 H8/8" "2 H8/8" "4 H8/8" "4 H16/16" "8 H16/16"; do
  keys+=",f16 B${b% *} ${b#* } S512x512 D64,f16 B${b% *} ${b#* } S512x512 D64 causal"
done
st=$SECONDS
timeout 300 "$bin/flashattn-bench" run --suite seed,long --shapes "$keys" --modes graph --iters 50 --out "$o/bench-d64.json" > "$o/bench-d64.log" 2>&1
note "head dim 64 seed + long beside SDPA: rc=$? ($((SECONDS - st)) s)"; grep -A16 "== mode graph" "$o/bench-d64.log" | tail -15 | sed 's/^/    /' | tee -a "$s"
ncu=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
for shape in 'bf16 B4 H32/32 S4096x4096 D64' 'bf16 B4 H32/32 S4096x4096 D64 softcap30' 'bf16 B16 H32/32 S1024x1024 D64'; do
  tag=$(echo "$shape" | tr -c 'A-Za-z0-9\n' _)
  st=$SECONDS
  timeout 240 "$ncu" --kernel-name regex:'ws_kernel' --launch-skip 3 --launch-count 1 \
    --section SpeedOfLight --section ComputeWorkloadAnalysis --section WarpStateStats --section SchedulerStats \
    --section InstructionStats --section SourceCounters --import-source no -o "$o/$tag" -f \
    "$bin/flashattn-bench" run --suite long,masks --shapes "$shape" --modes events --iters 3 --baseline none \
    --out /tmp/ncu-x.json > "$o/$tag.log" 2>&1
  rc=$?
  "$ncu" -i "$o/$tag.ncu-rep" --page details > "$o/$tag.txt" 2>&1
  "$ncu" -i "$o/$tag.ncu-rep" --page source --csv --print-source sass > "$o/$tag.sass.csv" 2>"$o/$tag.sass.err"
  note "$tag: rc=$rc ($((SECONDS - st)) s) sass rows $(wc -l < "$o/$tag.sass.csv"); $(grep -E 'Duration|Issue Slots Busy|Executed Ipc Active|No Eligible' "$o/$tag.txt" | awk '{$1=$1};1' | tr '\n' ';')"
done
tar -czf "${OUT:-gpu-out}/call-p.tgz" -C "$(dirname "$o")" call-p
