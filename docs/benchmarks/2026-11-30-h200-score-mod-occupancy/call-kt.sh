#!/usr/bin/env bash
# Call KT: the pack of branch score-mod-occupancy (main ad8a227 plus a two-CTA launch bound on the score-modifier
# kernels of the two-warpgroup tiles whose shared memory holds two CTAs: f16 d64 128-key 253-255 -> 128 registers,
# d128 64-key 164-214 -> 127-128, bf16's 128-168 -> 127-128; sass-diff: nothing else changed), carried as
# dist/gpu.txz, against main's bench (dist/old-ad8a227-bench.xz). Timing first, while the GPU is cool:
# 1. ab under the dispatcher, short suite, three pairs (its f16 softcap and ALiBi calls run the changed kernel);
# 2. ab forced onto the changed bf16 tiles: the masks suite's D64 softcap/ALiBi shapes on d64 m128n128w8s2, its
#    B8 H16 S2048 D128 ones on d128 m128n64w8s2, two pairs;
# 3. kernel-ab: the short suite's softcap and ALiBi calls on the one-warpgroup m64n128w4s2 tile (call KS: 0.89 and
#    0.82 of the 254-register kernel) and the warp-specialized d64 tile, against the dispatcher's;
# 4. bench: the short suite beside PyTorch SDPA's backends;
# 5. tests gpu_grid, gpu_varlen, validation; fuzz (everything, and the changed tiles with a modifier in every case);
#    memcheck, racecheck and synccheck on the changed tiles (fuzzer's sanitizer preset, every case modified).
# Everything lands in $OUT/call-kt.tgz, the summaries in $OUT/call-kt-summary.txt.
set -u
root=${OUT:-gpu-out}; base=$root/call-kt
rm -rf dist/gpu
# The pack was built from df5436b's tree before the commit, so its COMMIT file reads ad8a227.
tar -xJf dist/gpu.txz -C dist && echo df5436b > dist/gpu/COMMIT
old=dist/old-ad8a227-bench.xz
OUT=$base/short AB_OLD=$old AB_REPS=3 AB_ARGS='--suite short --modes graph --iters 50' scripts/gpu-run.sh ab
d64='bf16 B16 H32/32 S1024x1024 D64' d64l='bf16 B4 H32/32 S4096x4096 D64' d128='bf16 B8 H16/16 S2048x2048 D128'
OUT=$base/d64 AB_OLD=$old AB_REPS=2 AB_ARGS='--suite masks --modes graph --iters 20 --kernel sm90_bf16_d64_m128n128w8s2' \
  AB_SHAPES="$d64 softcap30,$d64 alibi,$d64l softcap30,$d64l alibi" scripts/gpu-run.sh ab
OUT=$base/d128 AB_OLD=$old AB_REPS=2 AB_ARGS='--suite masks --modes graph --iters 20 --kernel sm90_bf16_d128_m128n64w8s2' \
  AB_SHAPES="$d128 softcap30,$d128 alibi" scripts/gpu-run.sh ab
s='f16 B4 H16/16 S512x512 D64'
OUT=$base/kab AB_REPS=2 KERNEL_AB=sm90_f16_d64_m64n128w4s2,sm90_f16_d64_m128n128w12s4ws \
  KERNEL_AB_ARGS='--suite short --modes graph --iters 30' AB_SHAPES="$s softcap30,$s alibi" scripts/gpu-run.sh kernel-ab
OUT=$base/bench BENCH_ARGS='run --suite short --modes graph --iters 50' scripts/gpu-run.sh bench
OUT=$base/tests TEST_FILTER='gpu_grid|gpu_varlen|validation' scripts/gpu-run.sh tests
changed=sm90_f16_d64_m128n128w8s2,sm90_bf16_d64_m128n128w8s2,sm90_f16_d128_m128n64w8s2,sm90_bf16_d128_m128n64w8s2
changed+=,sm90_f16_d64_m128n128w12s4ws,sm90_bf16_d64_m192n128w16s4ws,sm90_bf16_d128_m128n176w12s2ws,sm90_f16_d128_m192n80w16s4ws
OUT=$base/fuzz FUZZ_ARGS="--cases 200 --seed 30;--cases 200 --seed 31 --features always --config $changed" scripts/gpu-run.sh fuzz
OUT=$base/san FUZZ_SANITIZER_ARGS="--small --features always --config $changed" FUZZ_SANITIZER_CASES='60 40 40' \
  SANITIZER_LIMIT=60 scripts/gpu-run.sh fuzz-sanitizer
for s in short d64 d128 kab bench tests fuzz san; do echo "== $s"; cat "$base/$s/summary.txt"; done > "$root/call-kt-summary.txt"
tar -czf "$root/call-kt.tgz" -C "$root" call-kt && rm -rf "$base"
grep -vE '^    (f16|bf16) ' "$root/call-kt-summary.txt" | grep -v "worst error" | cut -c1-170 | tail -60
