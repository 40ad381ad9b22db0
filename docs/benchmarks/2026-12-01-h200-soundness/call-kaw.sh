#!/usr/bin/env bash
# Call KAW: the same pack as call KAV (b1679c5), the timing half, alone on the GPU, timing steps only:
# 1. ab: flashattn-bench A/B against e0334f0's build (main before the fifty-seventh session's commits: the same
#    forward and decode machine code, see sass-diff-e0334f0-b1679c5.txt; the old safe layer), seed, long and decode
#    suites, graph replay, two pairs pooled (the regression gate);
# 2. host-ab: host cost per forward() call, old build against new, seed suite, three runs each (the new safe
#    layer checks every buffer's context and cudarc's parked errors around each launch);
# 3. bench: the seed and decode suites beside PyTorch's SDPA backends (decode batch 8 x 512 not measured beside
#    SDPA since the 542eb6d change).
# Here: e0334f0's flashattn-bench (FLASHATTN_CUDA_ARCHS=90a cargo build --release -p flashattn-bench, stripped,
# xz) as dist/old-bench.xz. Results in $OUT/call-kaw/.
set -u
root=${OUT:-gpu-out}; base=$root/call-kaw; mkdir -p "$base"
[ -d dist/gpu ] || tar -xJf dist/gpu.txz -C dist
start=$SECONDS
OUT=$base/ab AB_OLD=dist/old-bench.xz AB_REPS=2 AB_ARGS='--suite seed,long,decode --modes graph --iters 30' \
  timeout 260 scripts/gpu-run.sh ab > /dev/null 2>&1
OUT=$base/host AB_OLD=dist/old-bench.xz HOST_AB_REPS=3 timeout 90 scripts/gpu-run.sh host-ab > /dev/null 2>&1
OUT=$base/bench BENCH_ARGS='run --suite seed,decode --modes graph --iters 50' \
  timeout $((560 - (SECONDS - start))) scripts/gpu-run.sh bench > /dev/null 2>&1
echo "call kaw: $((SECONDS - start)) s" > "$base/time.txt"
for s in ab host bench; do echo "== $s"; cat "$base/$s/summary.txt" 2>/dev/null; done > "$root/call-kaw-summary.txt"
cat "$base/time.txt" >> "$root/call-kaw-summary.txt"
tar -czf "$root/call-kaw.tgz" -C "$root" call-kaw && rm -rf "$base"
cut -c1-200 "$root/call-kaw-summary.txt" | tail -90
