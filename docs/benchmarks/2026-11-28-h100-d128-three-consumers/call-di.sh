#!/usr/bin/env bash
# Call DI: branch ws-d128-3c-s3 (main + the 192-row head-dim-128 tile with three 80-key buffers,
# whose own O tile fits beside the ring, so non-causal launches with more tiles than SMs walk
# persistently; dist/gpu.txz). The new tile forced against the dispatcher's choice (main's table)
# on bf16 head-dim-128 shapes, graph replay, 20 samples, two repetitions with the order rotated;
# then 150 fuzz cases on the new tile (both dtypes; up to 2048 rows, so many cases walk).
# From the checkout root on the GPU host; results in $OUT/call-di/.
set -uo pipefail
dir=${OUT:-gpu-out}/call-di; mkdir -p "$dir/work"
[ -d dist/gpu ] || tar -xJf dist/gpu.txz -C dist
bin=dist/gpu/bin
k=sm90_bf16_d128_m192n80w16s3ws
shapes='bf16 B8 H16/16 S2048x2048 D128,bf16 B4 H16/16 S4096x4096 D128,bf16 B2 H16/16 S8192x8192 D128,bf16 B1 H16/16 S16384x16384 D128,bf16 B2 H32/8 S8192x8192 D128 causal'
run() { "$bin/flashattn-bench" run --suite sweep,long --shapes "$shapes" --modes graph --iters 20 --baseline none \
          --label flashattn "$@" >> "$dir/work/ab.log" 2>&1; }
for r in 1 2; do
  if [ $r = 1 ]; then run --out "$dir/work/auto-$r.json"; run --kernel $k --out "$dir/work/new-$r.json"
  else run --kernel $k --out "$dir/work/new-$r.json"; run --out "$dir/work/auto-$r.json"; fi
done
"$bin/flashattn-report" ab "$dir/work/auto-1.json" "$dir/work/new-1.json" "$dir/work/auto-2.json" "$dir/work/new-2.json" \
  > "$dir/ab-pooled.txt" 2>&1
OUT=$dir FUZZ_ARGS="--cases 150 --seed 479 --max-seqlen 2048 --head-dim 128 --config $k,sm90_f16_d128_m192n80w16s3ws" \
  scripts/gpu-run.sh fuzz
grep -E "rc=|worst error|cases passed|failed" "$dir/summary.txt" | cut -c1-160
cat "$dir/ab-pooled.txt"
