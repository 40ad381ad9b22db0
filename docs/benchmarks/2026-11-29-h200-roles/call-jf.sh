#!/usr/bin/env bash
# Call JF: abda236's pack under compute-sanitizer beyond the walks: the varlen grid and fuzzer on
# short sequences (the one-tile-per-CTA ws kernels with packed tensors: the V tail zeroed by
# zero_first_v_tail, O by 16-byte stores), then the fuzzer's whole space at sanitizer sizes
# (--small), each tool's run bounded to 80 s.
set -uo pipefail
o=${OUT:-gpu-out}/call-jf
mkdir -p "$o"
[ -d dist/gpu/bin ] || tar -xJf dist/gpu.txz -C dist
echo "build $(cat dist/gpu/COMMIT)" > "$o/checks.txt"
start=$SECONDS
OUT=$o/san VARLEN_SANITIZER_CASES=40 FUZZ_SANITIZER_CASES="150 60 80" SANITIZER_LIMIT=80 \
  scripts/gpu-run.sh varlen-sanitizer fuzz-sanitizer > "$o/san-run.log" 2>&1
echo "sanitizers: rc=$? in $((SECONDS - start)) s" >> "$o/checks.txt"
grep -E "^(varlen|fuzz)" "$o/san/summary.txt" >> "$o/checks.txt"
cat "$o/checks.txt"
