#!/usr/bin/env bash
# Call AJ: the launch floor. The probe (probe/launch_floor.cu, built here with
# `nvcc -arch=sm_90a -O2 -o dist/launch_floor probe/launch_floor.cu`) times empty-kernel launches
# along each API and the per-call queries; then `flashattn-bench host --suite seed` on main's
# build (e49eb93) in the same call, probe again after it. Results in $OUT/call-aj/.
set -uo pipefail
o=${OUT:-gpu-out}/call-aj; mkdir -p "$o"
tar -xJf dist/gpu.txz -C /tmp && echo "build $(cat /tmp/gpu/COMMIT)" > "$o/summary.txt"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv >> "$o/summary.txt"
lscpu | grep -E "Model name|^CPU\(s\)|MHz" >> "$o/summary.txt"
dist/launch_floor > "$o/floor-1.txt" 2>&1; echo "floor 1 rc=$?" >> "$o/summary.txt"
/tmp/gpu/bin/flashattn-bench host --suite seed --out "$o/host.json" > "$o/host.log" 2>&1
echo "host rc=$?" >> "$o/summary.txt"
dist/launch_floor > "$o/floor-2.txt" 2>&1; echo "floor 2 rc=$?" >> "$o/summary.txt"
cat "$o/floor-1.txt" "$o/floor-2.txt" >> "$o/summary.txt"
tail -45 "$o/host.log" >> "$o/summary.txt"
cat "$o/summary.txt"
