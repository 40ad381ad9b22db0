#!/usr/bin/env bash
# Call KBD: main's kernels (the pack of b1679c5, as in calls KBA-KBC) beside PyTorch's SDPA backends, alone on the GPU
# after the soak: the seed, long, head-dim-96 and decode suites, graph replay, 50 iterations, the embedded H200 table.
set -u
root=${OUT:-gpu-out}; base=$root/call-kbd; mkdir -p "$base"
rm -rf dist/gpu; tar -xJf dist/gpu.txz -C dist
start=$SECONDS
OUT=$base/bench BENCH_ARGS='run --suite seed,long,d96,decode --modes graph --iters 50' \
  timeout 540 scripts/gpu-run.sh bench > /dev/null 2>&1
echo "call kbd: $((SECONDS - start)) s" > "$base/time.txt"
{ cat "$base/bench/summary.txt"; cat "$base/time.txt"; } > "$root/call-kbd-summary.txt"
cp "$base/bench/bench.md" "$root/bench.md" 2>/dev/null
tar -czf "$root/call-kbd.tgz" -C "$root" call-kbd && rm -rf "$base"
cut -c1-200 "$root/call-kbd-summary.txt" | tail -60
