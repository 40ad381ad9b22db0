#!/usr/bin/env bash
# Call KAK: Nsight Compute of main's decode kernels on the H200 (the pack of e3fb985, as in call
# KAJ; scripts/gpu-run.sh's profile step now takes PROFILE_KERNELS / PROFILE_LAUNCHES):
# 1. the split kernel alone, stalls per SASS instruction: B8 x 32768 keys contiguous and in pages
#    of 16 (paged 15% slower in KAJ), B8 x 512 keys contiguous;
# 2. both kernels of one call (split, combine), for their durations: B8 x 512 and B1 x 4096 keys.
set -u
root=${OUT:-gpu-out}; base=$root/call-kak; mkdir -p "$base"
rm -rf dist/gpu
tar -xJf dist/gpu.txz -C dist
OUT=$base/split PROFILE_SUITES=decode PROFILE_KERNELS=decode_kernel \
  PROFILE_SHAPES='bf16 B8 H32/8 S1x32768 D128 decode;bf16 B8 H32/8 S1x32768 D128 decode page16;bf16 B8 H32/8 S1x512 D128 decode' \
  scripts/gpu-run.sh profile > /dev/null
OUT=$base/both PROFILE_SUITES=decode PROFILE_KERNELS='decode_kernel|combine_kernel' PROFILE_LAUNCHES=2 \
  PROFILE_SHAPES='bf16 B8 H32/8 S1x512 D128 decode;bf16 B1 H32/8 S1x4096 D128 decode' scripts/gpu-run.sh profile > /dev/null
for s in split both; do
  echo "== $s"; cat "$base/$s/summary.txt"
  mkdir -p "$base/$s/logs" && tar -xzf "$base/$s/logs.tar.gz" -C "$base/$s/logs"
  for d in "$base/$s"/logs/profile-*-details.txt; do
    echo "-- $(basename "$d")"; grep -E "^  [a-z_]+.*\(|Duration|DRAM Throughput|Memory Throughput|Registers Per|Achieved Occupancy|Executed Ipc A|Block Limit Reg|Theoretical Occ" "$d" | head -40
  done
done > "$root/call-kak-summary.txt"
tar -czf "$root/call-kak.tgz" -C "$root" call-kak && rm -rf "$base"
cut -c1-200 "$root/call-kak-summary.txt" | tail -120
