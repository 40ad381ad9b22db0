#!/usr/bin/env bash
# Call KY: the pack of branch hopper-d96 (951eab6: Hopper tiles at head dim 96, one-tile and
# warp-specialized), carried as dist/gpu.txz. Correctness gate first (the N = 96 P.V wgmma reads half
# of V's second swizzle atom, never run before): 120 fuzz cases at head dim 96; the call stops there if
# any fails. Then, while the GPU is cool:
# 1. bench: the d96 suite beside PyTorch SDPA's backends (graph p50/p90);
# 2. kernel-ab: the d96 shapes on the portable tiles the dispatcher ran them on before (sm80 128x64 for
#    the bf16 shapes, 64x64 for f16 S512) against the dispatcher's new choice, two pairs;
# 3. tests: every GPU test executable (the grid now has the 12 d96 Hopper configurations);
# 4. fuzz: 200 d96 cases with a mask or modifier in every case, the walk and split presets at d96.
# Everything lands in $OUT/call-ky.tgz, the summaries in $OUT/call-ky-summary.txt.
set -u
root=${OUT:-gpu-out}; base=$root/call-ky
rm -rf dist/gpu
tar -xJf dist/gpu.txz -C dist
finish() {
  for s in "$@"; do echo "== $s"; cat "$base/$s/summary.txt"; done > "$root/call-ky-summary.txt"
  tar -czf "$root/call-ky.tgz" -C "$root" call-ky && rm -rf "$base"
  grep -vE '^    (f16|bf16) ' "$root/call-ky-summary.txt" | grep -v "worst error" | cut -c1-170 | tail -70
}
OUT=$base/gate FUZZ_ARGS="--cases 120 --seed 40 --head-dim 96" scripts/gpu-run.sh fuzz > /dev/null
if ! grep -q "^fuzz .*rc=0" "$base/gate/summary.txt"; then finish gate; exit 1; fi
OUT=$base/bench BENCH_ARGS='run --suite d96 --modes graph --iters 50' scripts/gpu-run.sh bench > /dev/null
b='bf16 B4 H32/32 S4096x4096 D96,bf16 B4 H32/32 S4096x4096 D96 causal,bf16 B16 H32/32 S1024x1024 D96,bf16 B8 H16/16 S2048x2048 D96'
OUT=$base/kab-bf16 AB_REPS=2 KERNEL_AB=sm80_bf16_d96_m128n64w4s2 KERNEL_AB_ARGS='--suite d96 --modes graph --iters 20' \
  AB_SHAPES="$b" scripts/gpu-run.sh kernel-ab > /dev/null
f='f16 B4 H16/16 S512x512 D96,f16 B4 H16/16 S512x512 D96 causal'
OUT=$base/kab-f16 AB_REPS=2 KERNEL_AB=sm80_f16_d96_m64n64w4s2 KERNEL_AB_ARGS='--suite d96 --modes graph --iters 30' \
  AB_SHAPES="$f" scripts/gpu-run.sh kernel-ab > /dev/null
OUT=$base/tests scripts/gpu-run.sh tests > /dev/null
OUT=$base/fuzz FUZZ_ARGS="--cases 200 --seed 41 --head-dim 96 --features always;--walks --head-dim 96 --cases 60 --seed 42;--splits --head-dim 96 --cases 30 --seed 43" \
  scripts/gpu-run.sh fuzz > /dev/null
finish gate bench kab-bf16 kab-f16 tests fuzz
