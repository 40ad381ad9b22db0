#!/usr/bin/env bash
# Call JV: issue 12's host cost of forward() on the H200's host, with the landed build (the pack of
# e415cda: its Rust launch path is main's): `flashattn-bench host` over the seed suite twice
# (bursts of 200 calls without synchronizing, wall time / 200, 50 bursts), each path: the safe API
# with cudarc's event tracking on and off, forward_raw, the bare C entry point.
set -uo pipefail
o=${OUT:-gpu-out}/call-jv
mkdir -p "$o"
[ -d dist/gpu/bin ] || tar -xJf dist/gpu.txz -C dist
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$o/device.txt"
grep -m1 "model name" /proc/cpuinfo >> "$o/device.txt"
for r in 1 2; do
  dist/gpu/bin/flashattn-bench host --suite seed --out "$o/host-$r.json" > "$o/host-$r.txt" 2>&1
  echo "run $r: rc=$?" >> "$o/device.txt"
done
cat "$o/device.txt"; cat "$o/host-1.txt" | tail -20; tail -14 "$o/host-2.txt"
