#!/usr/bin/env bash
# Call HS: build 20b7f5c (dist/gpu.txz: the causal walk where the host model expects at most 0.97
# of one CTA per tile's time; its kernels SASS for SASS 07db52f's, checked by cuobjdump on the
# 61 probe kernels of every variant) on the lent H200:
#   1. flashattn-bench A/B against main's kernels (dist/main-bench-6a7c8b9.xz) on the causal
#      suite, two pairs pooled;
#   2. ws_causal_walks again (which shapes walk changed with the threshold);
#   3. the causal suite beside PyTorch's SDPA backends with the checkout's H200 table.
# From the checkout root on the GPU host; results in $OUT/call-hs/.
set -uo pipefail
o=${OUT:-gpu-out}/call-hs
mkdir -p "$o"
[ -d dist/gpu/bin ] || tar -xJf dist/gpu.txz -C dist
echo "build $(cat dist/gpu/COMMIT)" > "$o/checks.txt"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader >> "$o/checks.txt"
start=$SECONDS
OUT=$o/ab AB_OLD=dist/main-bench-6a7c8b9.xz AB_REPS=2 AB_ARGS='--suite causal --modes graph --iters 30' \
  scripts/gpu-run.sh ab > "$o/ab-run.log" 2>&1
echo "ab: rc=$? in $((SECONDS - start)) s" >> "$o/checks.txt"
cp "$o/ab/ab-pooled.txt" "$o/ab-pooled.txt" 2>/dev/null
start=$SECONDS
dist/gpu/bin/fuzz--gpu_grid --include-ignored --exact ws_causal_walks --nocapture > "$o/ws-causal-walks.log" 2>&1
echo "ws_causal_walks: rc=$? in $((SECONDS - start)) s; $(grep -E 'causal walks:' "$o/ws-causal-walks.log")" >> "$o/checks.txt"
start=$SECONDS
OUT=$o/bench FLASHATTN_DISPATCH=crates/flashattn/dispatch/nvidia-h200.tsv BENCH_ARGS='run --suite causal --modes graph --iters 40' scripts/gpu-run.sh bench > "$o/bench-run.log" 2>&1
echo "bench: rc=$? in $((SECONDS - start)) s" >> "$o/checks.txt"
cp "$o/bench/summary.txt" "$o/bench-summary.txt" 2>/dev/null
rm -rf "$o/ab/work" "$o/bench/work"
tar -czf "$o/../hs-logs.tar.gz" -C "$o" . 2>/dev/null && mv "$o/../hs-logs.tar.gz" "$o/logs.tar.gz"
find "$o" -type f ! -name checks.txt ! -name ab-pooled.txt ! -name bench-summary.txt ! -name logs.tar.gz -delete
find "$o" -type d -empty -delete
cat "$o/checks.txt"; cat "$o/ab-pooled.txt"; tail -14 "$o/bench-summary.txt"
