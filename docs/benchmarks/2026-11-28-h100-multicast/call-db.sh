#!/usr/bin/env bash
# Call DB: where main's head-dim-128 ws kernel stalls, per SASS instruction: Nsight Compute (full
# set with source counters, caches and clocks left alone) of bf16 B8 H16 S2048 D128 on main's
# build (d2724fd, dist/gpu.txz), one launch after warm-up, and the source page as CSV (SASS,
# executed instructions and warp-state samples per instruction). From the checkout root on the
# GPU host; results in $OUT/call-db/.
set -uo pipefail
out=${OUT:-gpu-out}/call-db
mkdir -p "$out"
[ -d dist/gpu/bin ] || tar -xJf dist/gpu.txz -C dist
ncu=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
shape="bf16 B8 H16/16 S2048x2048 D128"
timeout 240 "$ncu" --set full --import-source no --cache-control none --clock-control none \
  --kernel-name regex:ws_kernel --launch-skip 5 --launch-count 1 -f -o /tmp/s2048 \
  dist/gpu/bin/flashattn-bench run --suite long --shapes "$shape" --modes events --iters 5 --baseline none \
  --out /tmp/ncu-x.json > "$out/ncu.log" 2>&1
echo "ncu rc=$?"; tail -3 "$out/ncu.log"
"$ncu" --import /tmp/s2048.ncu-rep --page source --print-source sass --csv > "$out/source-sass.csv" 2> "$out/source.err" ||
  "$ncu" --import /tmp/s2048.ncu-rep --page source --print-source=sass --csv > "$out/source-sass.csv" 2>> "$out/source.err"
"$ncu" --import /tmp/s2048.ncu-rep --page details --print-details all > "$out/details.txt" 2>&1
ls -la "$out"; head -c 1500 "$out/source-sass.csv"; head -5 "$out/source.err"
xz -9 "$out/source-sass.csv"
