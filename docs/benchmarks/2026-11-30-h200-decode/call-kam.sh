#!/usr/bin/env bash
# Call KAM: the same pack of branch decode-mma (dist/gpu-decode.txz). Its forward launchers changed
# on the host (common/launch.cuh: the shared-memory opt-in and its retry now one function,
# launch_opted_in, shared with decode; scripts/sass-diff.sh: the forward kernels' machine code
# unchanged), so every other GPU test runs, and the fuzzer's whole space for 300 cases.
set -u
root=${OUT:-gpu-out}; base=$root/call-kam; mkdir -p "$base"
rm -rf dist/gpu
tar -xJf dist/gpu-decode.txz -C dist
OUT=$base/tests TEST_FILTER='gpu_grid|gpu_varlen|gpu_fuzz|gpu_stream_order|flashattn_sys' \
  scripts/gpu-run.sh tests > /dev/null
OUT=$base/fuzz FUZZ_ARGS="--cases 300 --seed 53" scripts/gpu-run.sh fuzz > /dev/null
for s in tests fuzz; do echo "== $s"; cat "$base/$s/summary.txt"; done > "$root/call-kam-summary.txt"
tar -czf "$root/call-kam.tgz" -C "$root" call-kam && rm -rf "$base"
grep -vE "^  [a-z]" "$root/call-kam-summary.txt" | grep -v "worst error" | cut -c1-180 | tail -60
