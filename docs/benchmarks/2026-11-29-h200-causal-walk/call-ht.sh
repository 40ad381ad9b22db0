#!/usr/bin/env bash
# Call HT: build 4abec91 (dist/gpu.txz: windowed launches walk; kernels SASS for SASS 20b7f5c's,
# the launcher's rule changed) on the lent H200:
#   1. ws_window_walks (windowed walks on every warp-specialized tile at head dims 64 and 128);
#   2. ws_window_walks under memcheck, racecheck and synccheck (50 s each at most);
#   3. flashattn-bench A/B against main's kernels (dist/main-bench-6a7c8b9.xz) on the masks suite
#      (its 1,024-key causal window beside full causal, softcap and ALiBi), two pairs pooled.
# From the checkout root on the GPU host; results in $OUT/call-ht/.
set -uo pipefail
o=${OUT:-gpu-out}/call-ht
mkdir -p "$o"
[ -d dist/gpu/bin ] || tar -xJf dist/gpu.txz -C dist
echo "build $(cat dist/gpu/COMMIT)" > "$o/checks.txt"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader >> "$o/checks.txt"
start=$SECONDS
dist/gpu/bin/fuzz--gpu_grid --include-ignored --exact ws_window_walks --nocapture > "$o/ws-window-walks.log" 2>&1
echo "ws_window_walks: rc=$? in $((SECONDS - start)) s; $(grep -E 'window walks:' "$o/ws-window-walks.log")" >> "$o/checks.txt"
grep -E "panicked|FAIL" "$o/ws-window-walks.log" | head -5 >> "$o/checks.txt"
start=$SECONDS
OUT=$o/san SANITIZE_TEST=ws_window_walks SANITIZER_LIMIT=50 scripts/gpu-run.sh test-sanitizer > "$o/san-run.log" 2>&1
echo "sanitizers: in $((SECONDS - start)) s" >> "$o/checks.txt"
grep -E "sanitizer" "$o/san/summary.txt" >> "$o/checks.txt"
cp "$o/san/summary.txt" "$o/sanitizer-summary.txt"
start=$SECONDS
OUT=$o/ab AB_OLD=dist/main-bench-6a7c8b9.xz AB_REPS=2 AB_ARGS='--suite masks --modes graph --iters 30' \
  scripts/gpu-run.sh ab > "$o/ab-run.log" 2>&1
echo "ab: rc=$? in $((SECONDS - start)) s" >> "$o/checks.txt"
cp "$o/ab/ab-pooled.txt" "$o/ab-pooled.txt" 2>/dev/null
rm -rf "$o/ab/work"
tar -czf "$o/../ht-logs.tar.gz" -C "$o" . 2>/dev/null && mv "$o/../ht-logs.tar.gz" "$o/logs.tar.gz"
find "$o" -type f ! -name checks.txt ! -name ab-pooled.txt ! -name sanitizer-summary.txt ! -name logs.tar.gz -delete
find "$o" -type d -empty -delete
cat "$o/checks.txt"; cat "$o/ab-pooled.txt"
