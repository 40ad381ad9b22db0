#!/usr/bin/env bash
# Call KAQ: the pack of 882d2e8 on branch decode-keys (dist/gpu.txz: KAP's kernel at every head
# dim, 256 included, the CUDA-core lane kernel removed; the split rule at two CTAs an SM) and
# main's flashattn-bench with the decode-dims suite (dist/old-bench.xz: 87fd6ee with e4a4f3d
# cherry-picked, built with FLASHATTN_CUDA_ARCHS=90a, stripped, `xz -c`; its kernels are main's):
# 1. tests: gpu_decode (1,000 random caches), gpu_merge, gpu_stream_order, validation;
# 2. decode-sanitizer: memcheck, racecheck, synccheck on 60 random caches each;
# 3. ab: the decode and decode-dims suites, main's build against the branch's, two pairs;
# 4. bench: both suites beside PyTorch SDPA.
set -u
root=${OUT:-gpu-out}; base=$root/call-kaq; mkdir -p "$base"
rm -rf dist/gpu
tar -xJf dist/gpu.txz -C dist
OUT=$base/tests TEST_FILTER='gpu_decode|gpu_merge|gpu_stream_order|validation' FLASHATTN_DECODE_CASES=1000 \
  scripts/gpu-run.sh tests > /dev/null
OUT=$base/sanitizer SANITIZER_LIMIT=100 scripts/gpu-run.sh decode-sanitizer > /dev/null
OUT=$base/ab AB_OLD=dist/old-bench.xz AB_REPS=2 AB_ARGS='--suite decode,decode-dims --modes graph --iters 50' \
  scripts/gpu-run.sh ab > /dev/null
OUT=$base/bench BENCH_ARGS='run --suite decode,decode-dims --modes graph --iters 50' scripts/gpu-run.sh bench > /dev/null
for s in tests sanitizer ab bench; do echo "== $s"; cat "$base/$s/summary.txt"; done > "$root/call-kaq-summary.txt"
tar -czf "$root/call-kaq.tgz" -C "$root" call-kaq && rm -rf "$base"
grep -E "pooled|SLOWER|inconclusive|test |decode:|errors|hazards" "$root/call-kaq-summary.txt" | cut -c1-200 | tail -70
