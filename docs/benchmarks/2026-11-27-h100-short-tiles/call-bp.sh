#!/usr/bin/env bash
# Call BP: correctness of the build to land (ae3dad8, dist/gpu.txz): every GPU test (with the new
# ws_short_last_tiles), 150 fuzz cases, ws_short_last_tiles under compute-sanitizer memcheck and
# racecheck (its head-dim-64 cases run the persistent walk with short tiles), the fuzzer on small
# shapes with every feature under memcheck, racecheck and synccheck. From the checkout root on the
# GPU host; results in $OUT/call-bp/ (summary.txt and the logs).
set -uo pipefail
o=${OUT:-gpu-out}/call-bp; mkdir -p "$o"
[ -d dist/gpu/bin ] || tar -xJf dist/gpu.txz -C dist
OUT=$o FUZZ_ARGS='--cases 150 --seed 211' scripts/gpu-run.sh tests fuzz
san=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
for tool in memcheck racecheck; do
  start=$SECONDS
  timeout 150 "$san" --tool $tool --error-exitcode 9 dist/gpu/bin/fuzz--gpu_grid --include-ignored --exact ws_short_last_tiles \
    --nocapture > "$o/short-tiles-$tool.log" 2>&1
  echo "ws_short_last_tiles under $tool: rc=$? in $((SECONDS - start)) s; $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$o/short-tiles-$tool.log" | tail -1); $(grep -E 'short last tiles' "$o/short-tiles-$tool.log")" | tee -a "$o/summary.txt"
done
OUT=$o/fs SANITIZER_LIMIT=90 FUZZ_SANITIZER_ARGS='--small --features always' FUZZ_SANITIZER_CASES='60 30 30' \
  scripts/gpu-run.sh fuzz-sanitizer
cat "$o/fs/summary.txt" >> "$o/summary.txt"
cat "$o/summary.txt"
