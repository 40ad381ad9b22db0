#!/usr/bin/env bash
# Call DD: branch ws-n64 (5d65865: 64-key head-dim-64 ws tiles with two and three consumers;
# dist/gpu.txz): each new tile forced against the dispatcher's choice on the seed suite (f16
# S512 D64), graph replay, 30 samples, two repetitions; the fuzzer on the new tiles and the
# fallback that gained score modifiers; where a new tile is >= 2% faster on B4 H16 or B8 H16,
# the GPU grid (every configuration, the new ones included) and the new tiles' small cases under
# memcheck, racecheck and synccheck. From the checkout root on the GPU host; results in $OUT/call-dd/.
set -uo pipefail
dir=${OUT:-gpu-out}/call-dd
new=sm90_f16_d64_m128n64w12s4ws,sm90_f16_d64_m192n64w16s4ws
all=$new,sm90_bf16_d64_m128n64w12s4ws,sm90_bf16_d64_m192n64w16s4ws,sm90_f16_d64_m128n64w8s2,sm90_bf16_d64_m128n64w8s2
OUT=$dir KERNEL_AB=$new KERNEL_AB_ARGS='--suite seed --modes graph --iters 30' AB_REPS=2 \
  FUZZ_ARGS="--cases 200 --seed 449 --max-seqlen 2048 --head-dim 64 --config $all" scripts/gpu-run.sh kernel-ab fuzz
mv "$dir/summary.txt" "$dir/summary-ab.txt"; mv "$dir/logs.tar.gz" "$dir/logs-ab.tar.gz" 2>/dev/null
if awk '/ (B4|B8) H16\/16 S512x512 D64 / && $NF + 0 > 0 && $NF + 0 < 0.98 {found = 1} END {exit !found}' "$dir/summary-ab.txt"; then
  echo "a new tile is faster: grid and sanitizers"
  OUT=$dir TEST_FILTER=gpu_grid FUZZ_SANITIZER_ARGS="--small --head-dim 64 --config $all" FUZZ_SANITIZER_CASES='40 20 20' \
    SANITIZER_LIMIT=60 scripts/gpu-run.sh tests fuzz-sanitizer
fi
