#!/usr/bin/env bash
# Call GR: build 75f9f94 (dist/gpu.txz: the head-dim-64 walks take their tiles, and the walk's end,
# from the producer's announcements) on the lent H200:
#   0. the variant probe (every variant compiled: PROBE_EVERY_VARIANT=1 scripts/variant-ab.sh build
#      main=31dbb6f new=HEAD), 15 rounds, on the walks with sinks, softcap and ALiBi too;
#   1. flashattn-bench A/B against main's kernels (dist/main-bench-95a1065.xz: a pack of 95a1065,
#      whose kernels are 31dbb6f's, SASS for SASS): seed, long and sweep suites, two pairs pooled;
#   2. the seed and long suites beside PyTorch's SDPA backends (the embedded H200 table).
# From the checkout root on the GPU host; results in $OUT/call-gr/.
set -uo pipefail
o=${OUT:-gpu-out}/call-gr
mkdir -p "$o"
[ -d dist/gpu/bin ] || tar -xJf dist/gpu.txz -C dist
echo "build $(cat dist/gpu/COMMIT)" > "$o/checks.txt"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader >> "$o/checks.txt"
timeout 200 dist/variant-ab/variant-ab 15 "m192n128w16s4ws f16 8 16 512 64" "m192n128w16s4ws bf16 16 32 1024 64" \
  "m128n128w12s4ws f16 8 16 512 64" "m192n128w16s4ws bf16 16 32 1024 64 sinks" \
  "m192n128w16s4ws bf16 4 32 4096 64 sinks lse" "m128n128w12s4ws bf16 16 32 1024 64 sinks" \
  "m192n128w16s4ws bf16 16 32 1024 64 softcap=30" "m192n128w16s4ws bf16 16 32 1024 64 alibi" \
  "m192n128w16s4ws bf16 4 32 4096 64 softcap=30" "m128n128w12s4ws bf16 16 32 1024 64 softcap=30" \
  "m128n128w12s4ws f16 2 16 1000 64 alibi" > "$o/variant-ab.txt" 2>&1
echo "variant-ab: rc=$?" >> "$o/checks.txt"
start=$SECONDS
OUT=$o/ab AB_OLD=dist/main-bench-95a1065.xz AB_REPS=2 AB_ARGS='--suite seed,long,sweep --modes graph --iters 30' \
  scripts/gpu-run.sh ab > "$o/ab-run.log" 2>&1
echo "ab: rc=$? in $((SECONDS - start)) s" >> "$o/checks.txt"
cp "$o/ab/ab-pooled.txt" "$o/ab-pooled.txt" 2>/dev/null
start=$SECONDS
OUT=$o/bench BENCH_ARGS='run --suite seed,long --modes graph --iters 50' scripts/gpu-run.sh bench > "$o/bench-run.log" 2>&1
echo "bench: rc=$? in $((SECONDS - start)) s" >> "$o/checks.txt"
cp "$o/bench/summary.txt" "$o/bench-summary.txt" 2>/dev/null
rm -rf "$o/ab/work" "$o/bench/work"; rm -f "$o/bench/bench.json"
tar -czf "$o/../gr-logs.tar.gz" -C "$o" . 2>/dev/null && mv "$o/../gr-logs.tar.gz" "$o/logs.tar.gz"
find "$o" -type f ! -name checks.txt ! -name ab-pooled.txt ! -name bench-summary.txt ! -name variant-ab.txt ! -name logs.tar.gz -delete
find "$o" -type d -empty -delete
cat "$o/checks.txt"; grep -E "ratio" "$o/variant-ab.txt" | grep -v "^main" | cut -c1-150; cat "$o/ab-pooled.txt"; tail -24 "$o/bench-summary.txt"
