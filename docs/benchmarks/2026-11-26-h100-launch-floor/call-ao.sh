#!/usr/bin/env bash
# Call AO: the host cost with the paths' bursts taken in turn (753581e: `flashattn-bench host`
# interleaves the four launch paths), twice, each run between two launch-floor probes; the
# kernels and the launch path are 30d1f81's. From the checkout root on the GPU host; results in
# $OUT/call-ao/ (summary.txt with both tables and the probes, host.tar.gz with the JSON).
set -uo pipefail
o=${OUT:-gpu-out}/call-ao; mkdir -p "$o"
[ -d dist/gpu/bin ] || tar -xJf dist/gpu.txz -C dist
h=$(mktemp -d)
echo "build $(cat dist/gpu/COMMIT)" > "$o/summary.txt"
for r in 1 2; do
  dist/launch_floor > "$h/floor-$r-before.txt" 2>&1
  dist/gpu/bin/flashattn-bench host --suite seed --out "$h/host-$r.json" > "$h/host-$r.log" 2>&1
  echo "host $r: rc=$?" >> "$o/summary.txt"
  dist/launch_floor > "$h/floor-$r-after.txt" 2>&1
  { echo "== floor before run $r"; grep -E "256 B args, 32|cuLaunchKernel\(CUfunction\), 256" "$h/floor-$r-before.txt"
    cat "$h/host-$r.md"; echo
    echo "== floor after run $r"; grep -E "256 B args, 32|cuLaunchKernel\(CUfunction\), 256" "$h/floor-$r-after.txt"; } >> "$o/summary.txt"
done
tar -czf "$o/host.tar.gz" -C "$h" .
cat "$o/summary.txt"
