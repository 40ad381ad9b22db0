#!/usr/bin/env bash
# Call BA: the persistent walk for causal and windowed tiles (snake rounds) and the two-buffer
# 128-key head-dim-128 ws tile with its own O tile (e45dadb, branch persistent-ordered).
# 1. every configuration on the d128 long shapes, the window and the seed causal shapes, with the
#    walk (this build) and with FLASHATTN_PERSISTENT_EQUAL_ONLY=1 (main's rule: equal tiles only);
# 2. ab against 12d5a33 (main) over the seed and long suites by the dispatcher's choice.
# From the checkout root on the GPU host, with dist/gpu.txz and dist/12d5a33-bench.xz carried.
set -uo pipefail
o=${OUT:-gpu-out}/call-ba; mkdir -p "$o"
here=docs/benchmarks/2026-11-27-h100-persistent-walk
[ -d dist/gpu/bin ] || tar -xJf dist/gpu.txz -C dist
B=dist/gpu/bin/flashattn-bench
shapes='bf16 B8 H16/16 S2048x2048 D128,bf16 B2 H16/16 S8192x8192 D128,bf16 B2 H16/16 S8192x8192 D128 causal'
shapes+=',bf16 B2 H32/8 S8192x8192 D128 causal,bf16 B2 H16/16 S8192x8192 D128 causal window1024/inf'
shapes+=',f16 B4 H8/8 S512x512 D64 causal,f16 B4 H16/16 S512x512 D64 causal,f16 B8 H16/16 S512x512 D64 causal'
for mode in walk equal; do
  env_=(env); [ $mode = equal ] && env_=(env FLASHATTN_PERSISTENT_EQUAL_ONLY=1)
  "${env_[@]}" $B run --suite long,masks,seed --shapes "$shapes" --kernel all --modes graph --iters 30 \
    --baseline none --out "$o/all-$mode.json" > "$o/all-$mode.log" 2>&1
  echo "all-$mode rc=$?"
done
OUT=$o/vs-main AB_OLD=dist/12d5a33-bench.xz AB_REPS=1 \
  AB_ARGS='--suite seed,long --modes graph --iters 30' scripts/gpu-run.sh ab > "$o/ab.log" 2>&1
python3 $here/configs.py "$o/all-walk.json" "$o/all-equal.json" | tee "$o/configs.txt"
tail -40 "$o/vs-main/summary.txt"
