#!/usr/bin/env bash
# Call DE: branch ws-d128-3c (973e62f: three-consumer, 192-row head-dim-128 ws tiles of 80 keys
# in four buffers and 96 keys in three; dist/gpu.txz). Each new bf16 tile forced against the
# dispatcher's choice on the long suite's bf16 head-dim-128 shapes, graph replay, 20 samples, two
# repetitions (the order rotated); then 200 fuzz cases on the four new tiles (both dtypes). From
# the checkout root on the GPU host; results in $OUT/call-de/.
set -uo pipefail
dir=${OUT:-gpu-out}/call-de; mkdir -p "$dir/work"
[ -d dist/gpu ] || tar -xJf dist/gpu.txz -C dist
bin=dist/gpu/bin
new=(sm90_bf16_d128_m192n80w16s4ws sm90_bf16_d128_m192n96w16s3ws)
all=$(IFS=,; echo "${new[*]},sm90_f16_d128_m192n80w16s4ws,sm90_f16_d128_m192n96w16s3ws")
shapes='bf16 B8 H16/16 S2048x2048 D128,bf16 B2 H16/16 S8192x8192 D128,bf16 B2 H16/16 S8192x8192 D128 causal,bf16 B1 H16/16 S16384x16384 D128,bf16 B2 H32/8 S8192x8192 D128 causal'
bench() { "$bin/flashattn-bench" run --suite long --shapes "$shapes" --modes graph --iters 20 --baseline none --label flashattn "$@" >> "$dir/work/ab.log" 2>&1; }
for r in 1 2; do
  if [ $r = 1 ]; then order=(auto "${new[@]}"); else order=("${new[1]}" "${new[0]}" auto); fi
  for k in "${order[@]}"; do
    if [ $k = auto ]; then bench --out "$dir/work/auto-$r.json"; else bench --kernel $k --out "$dir/work/$k-$r.json"; fi
  done
  for k in "${new[@]}"; do
    echo "== $k / dispatcher, repetition $r" | tee -a "$dir/summary-ab.txt"
    "$bin/flashattn-report" compare "$dir/work/auto-$r.json" "$dir/work/$k-$r.json" > "$dir/work/cmp-$k-$r.txt" 2>&1
    awk '/^== /{s = substr($0, 4)} /^flashattn /{printf "    %-44s %s  (%s -> %s)\n", s, $5, $3, $4}' "$dir/work/cmp-$k-$r.txt" | tee -a "$dir/summary-ab.txt"
  done
done
OUT=$dir FUZZ_ARGS="--cases 200 --seed 457 --max-seqlen 2048 --head-dim 128 --config $all" scripts/gpu-run.sh fuzz
tail -20 "$dir/summary.txt"; cat "$dir/summary-ab.txt"
