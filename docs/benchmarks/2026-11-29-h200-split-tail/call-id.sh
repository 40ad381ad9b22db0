#!/usr/bin/env bash
# Call ID: ws_split_tails again (call IB's run asked the workspace to be all zeros after a call,
# which the contract never said: the partial states stay; now a second call on the workspace as
# the first left it must repeat the first bit for bit, and the 176-key tile's shape has 6,000 keys
# so that its walk splits), with its sanitizers; the test executable built from the working tree
# (dist/gpu_grid-new.xz, carried: the pack's kernels are SASS for SASS these).
# From the checkout root on the GPU host; results in $OUT/call-id/.
set -uo pipefail
o=${OUT:-gpu-out}/call-id
mkdir -p "$o"
[ -d dist/gpu/bin ] || tar -xJf dist/gpu.txz -C dist
xz -dc dist/gpu_grid-new.xz > dist/gpu/bin/fuzz--gpu_grid && chmod +x dist/gpu/bin/fuzz--gpu_grid
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader > "$o/checks.txt"
start=$SECONDS
dist/gpu/bin/fuzz--gpu_grid --include-ignored --exact ws_split_tails --nocapture > "$o/ws-split-tails.log" 2>&1
echo "ws_split_tails: rc=$? in $((SECONDS - start)) s; $(grep -E 'split tails:' "$o/ws-split-tails.log" | tr '\n' ' ')" >> "$o/checks.txt"
grep -E "FAIL|panicked" "$o/ws-split-tails.log" | head -8 >> "$o/checks.txt"
start=$SECONDS
FLASHATTN_TEST_SMALL=1 OUT=$o/san SANITIZE_TEST=ws_split_tails SANITIZER_LIMIT=90 scripts/gpu-run.sh test-sanitizer > "$o/san-run.log" 2>&1
echo "sanitizers: in $((SECONDS - start)) s" >> "$o/checks.txt"
cp "$o/san/summary.txt" "$o/sanitizer-summary.txt"
grep -E "sanitizer" "$o/san/summary.txt" >> "$o/checks.txt"
tar -czf "$o/../id-logs.tar.gz" -C "$o" . 2>/dev/null && mv "$o/../id-logs.tar.gz" "$o/logs.tar.gz"
find "$o" -type f ! -name checks.txt ! -name sanitizer-summary.txt ! -name ws-split-tails.log ! -name logs.tar.gz -delete
find "$o" -type d -empty -delete
cat "$o/checks.txt"
