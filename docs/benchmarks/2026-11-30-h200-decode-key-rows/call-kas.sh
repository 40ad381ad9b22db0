#!/usr/bin/env bash
# Call KAS: Nsight Compute on the decode calls this kernel made slower or left behind cuDNN (batch 1
# x 512 keys: 3.5% slower than main; batch 8 x 512: 0.93-0.97x cuDNN), split and combine kernels
# each, for the pack of 882d2e8 (dist/gpu.txz) and then for main's bench (dist/old-bench.xz, as in
# call KAQ: the kernel with query rows as the MMA rows).
set -u
root=${OUT:-gpu-out}; base=$root/call-kas; mkdir -p "$base"
rm -rf dist/gpu
tar -xJf dist/gpu.txz -C dist
shapes='bf16 B1 H32/8 S1x512 D128 decode;bf16 B8 H32/8 S1x512 D128 decode'
OUT=$base/new PROFILE_SUITES=decode PROFILE_SHAPES="$shapes" PROFILE_KERNELS='decode_mma_kernel|combine_kernel' \
  PROFILE_LAUNCHES=2 scripts/gpu-run.sh profile > /dev/null
xz -dc dist/old-bench.xz > dist/gpu/bin/flashattn-bench && chmod +x dist/gpu/bin/flashattn-bench
OUT=$base/main PROFILE_SUITES=decode PROFILE_SHAPES="$shapes" PROFILE_KERNELS='decode_mma_kernel|combine_kernel' \
  PROFILE_LAUNCHES=2 scripts/gpu-run.sh profile > /dev/null
for s in new main; do echo "== $s"; cat "$base/$s/summary.txt"; done > "$root/call-kas-summary.txt"
tar -czf "$root/call-kas.tgz" -C "$root" call-kas && rm -rf "$base"
cut -c1-200 "$root/call-kas-summary.txt" | head -150
