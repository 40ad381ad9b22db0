#!/usr/bin/env bash
# Call FR: the fuzzer's --walks preset (1f3c629; kernels as landed in 006564d) on the GPU: 200
# cases over every configuration (how many launch persistent walks, split tiles among them), then
# 12 under memcheck. Results in $OUT/call-fr/ (fuzz-walks.log, memcheck.log).
set -uo pipefail
o=${OUT:-gpu-out}/call-fr
mkdir -p "$o"
[ -d dist/gpu/bin ] || tar -xJf dist/gpu.txz -C dist
fz=dist/gpu/bin/flashattn-fuzz
start=$SECONDS
timeout 150 $fz --walks --cases 200 --seed 641 > "$o/fuzz-walks.log" 2>&1
echo "walks fuzz: rc=$? in $((SECONDS - start)) s" >> "$o/fuzz-walks.log"
san=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
start=$SECONDS
timeout 60 "$san" --tool memcheck --error-exitcode 9 $fz --walks --cases 12 --seed 643 > "$o/memcheck.log" 2>&1
echo "walks fuzz under memcheck: rc=$? in $((SECONDS - start)) s" >> "$o/memcheck.log"
tail -45 "$o/fuzz-walks.log"; grep -E "SUMMARY|cases, [0-9]+ failed|rc=" "$o/memcheck.log"
