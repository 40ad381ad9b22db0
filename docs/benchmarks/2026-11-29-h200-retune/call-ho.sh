#!/usr/bin/env bash
# Call HO: build 6a7c8b9 (dist/gpu.txz; its forward kernels SASS for SASS aeb45f4's, checked by
# cuobjdump against that pack's objects) on the lent H200, after the review's last edit to kernel
# sources (a comment): every GPU test, a fuzz run over the walks (60 cases), and the fuzzer's
# small space under memcheck, racecheck and synccheck, by scripts/gpu-run.sh's own steps.
# From the checkout root on the GPU host; results in $OUT/call-ho/.
set -uo pipefail
o=${OUT:-gpu-out}/call-ho
start=$SECONDS
OUT=$o FUZZ_ARGS='--walks --cases 60 --seed 1501' FUZZ_SANITIZER_CASES='20 10 10' SANITIZER_LIMIT=60 \
  scripts/gpu-run.sh tests fuzz fuzz-sanitizer > "$o-run.log" 2>&1
echo "call HO: rc=$? in $((SECONDS - start)) s" >> "$o/summary.txt"
mv "$o-run.log" "$o/" 2>/dev/null
grep -E "^test |configs:|grid:|fuzz|sanitizer|cases|call HO" "$o/summary.txt" | cut -c1-240
