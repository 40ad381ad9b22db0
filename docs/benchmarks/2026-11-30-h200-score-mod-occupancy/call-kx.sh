#!/usr/bin/env bash
# Call KX: the pack of branch f16-tanh-fma at 65f61b5 (main 45115d0 plus f16's softcap tanh with its reciprocal on the
# FMA pipe: a linear guess and two Newton steps instead of MUFU's rcp), carried as dist/gpu.txz, against 7e213f6's
# bench (dist/old-7e213f6-bench.xz; the same kernels as main, whose only later change is three bf16 dispatch rows,
# so the f16 calls below dispatch alike). Timing first, while the GPU is cool:
# 1. ab under the dispatcher, short suite, three pairs (f16 softcap on the two-warpgroup 128-key tile);
# 2. ab forced, two pairs each, on the short suite's softcap and ALiBi calls: the one-warpgroup sm90 m64n128w4s2 and the
#    portable kernel's sm80 m128n64w4s2 (common/mask.cuh serves both kernels);
# 3. fuzz: f16, a mask or modifier in every case, every configuration; memcheck and racecheck on the same space at the
#    sanitizer preset; tests gpu_grid and validation.
# Everything lands in $OUT/call-kx.tgz, the summaries in $OUT/call-kx-summary.txt.
set -u
root=${OUT:-gpu-out}; base=$root/call-kx
rm -rf dist/gpu
old=dist/old-7e213f6-bench.xz
OUT=$base/short AB_OLD=$old AB_REPS=3 AB_ARGS='--suite short --modes graph --iters 50' scripts/gpu-run.sh ab
s='f16 B4 H16/16 S512x512 D64'
for k in sm90_f16_d64_m64n128w4s2 sm80_f16_d64_m128n64w4s2; do
  OUT=$base/$k AB_OLD=$old AB_REPS=2 AB_ARGS="--suite short --modes graph --iters 30 --kernel $k" \
    AB_SHAPES="$s softcap30,$s alibi" scripts/gpu-run.sh ab
done
OUT=$base/fuzz FUZZ_ARGS='--cases 300 --seed 33 --dtype f16 --features always' scripts/gpu-run.sh fuzz
OUT=$base/san FUZZ_SANITIZER_ARGS='--small --dtype f16 --features always' FUZZ_SANITIZER_CASES='60 40 0' \
  SANITIZER_LIMIT=60 scripts/gpu-run.sh fuzz-sanitizer
# gpu_grid takes about 140 s: only where the call has the time left (the session's device time is nearly spent).
tests='gpu_grid|validation'; [ "$SECONDS" -gt 280 ] && tests=validation
OUT=$base/tests TEST_FILTER=$tests scripts/gpu-run.sh tests
for s in short sm90_f16_d64_m64n128w4s2 sm80_f16_d64_m128n64w4s2 fuzz san tests; do
  echo "== $s"; cat "$base/$s/summary.txt"
done > "$root/call-kx-summary.txt"
tar -czf "$root/call-kx.tgz" -C "$root" call-kx && rm -rf "$base"
grep -vE '^    (f16|bf16) ' "$root/call-kx-summary.txt" | grep -v "worst error" | cut -c1-170 | tail -60
