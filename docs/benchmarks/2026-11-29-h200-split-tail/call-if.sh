#!/usr/bin/env bash
# Call IF: the split tail's pieces back in their stretch's order (the last piece first, calls HZ-IE,
# measured no better), the landed version: variant probe (dense kernels) of main f027afb against it
# on the shapes the gate splits, 8 rounds; ws_split_tails and its sanitizers with the test
# executable built from the working tree (dist/gpu_grid-new.xz, over the IB pack's).
# From the checkout root on the GPU host; results in $OUT/call-if/.
set -uo pipefail
o=${OUT:-gpu-out}/call-if
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
start=$SECONDS
dist/variant-ab/variant-ab 8 \
  "m192n80w16s4ws bf16 2 16 8192 128 split" \
  "m192n80w16s4ws f16 2 16 8192 128 split" \
  "m192n80w16s4ws bf16 1 16 16384 128 split" \
  "m192n80w16s4ws bf16 4 16 4096 128 split" \
  "m128n128w12s3ws bf16 4 16 4096 128 split" \
  "m192n80w16s4ws bf16 8 16 2048 128 split" \
  > "$o/variant-ab.txt" 2> "$o/variant-ab.err"
echo "probe: rc=$? in $((SECONDS - start)) s" >> "$o/checks.txt"
tar -czf "$o/../if-logs.tar.gz" -C "$o" . 2>/dev/null && mv "$o/../if-logs.tar.gz" "$o/logs.tar.gz"
find "$o" -type f ! -name checks.txt ! -name sanitizer-summary.txt ! -name ws-split-tails.log ! -name variant-ab.txt ! -name logs.tar.gz -delete
find "$o" -type d -empty -delete
cat "$o/checks.txt"
sed -e 's/TFLOP\/s.*median ratio/med/' "$o/variant-ab.txt"
