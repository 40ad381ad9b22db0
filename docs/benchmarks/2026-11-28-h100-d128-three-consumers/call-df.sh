#!/usr/bin/env bash
# Call DF: branch ws-d128-3c (5b5a10d: three-consumer, 192-row head-dim-128 ws tiles of 80 keys and,
# as a probe, 64 keys, four buffers each; dist/gpu.txz).
# 1. Each new tile forced against the dispatcher's choice, graph replay, 20 samples, two
#    repetitions (the order rotated): bf16 head dim 128 across the sweep and causal suites, the
#    long suite's GQA shape and the masks suite's softcap/ALiBi/sinks at S2048 and S16384; the
#    f16 tiles on f16 S8192 D128.
# 2. Seed and long suites beside PyTorch's SDPA with call-df/dispatch-candidate.tsv (the H100
#    table with the 80-key tile on the bf16 S2048, S16384 and GQA causal rows) as FLASHATTN_DISPATCH.
# 3. Every GPU test, 200 fuzz cases on the four new tiles, their small cases under memcheck,
#    racecheck and synccheck.
# From the checkout root on the GPU host; results in $OUT/call-df/.
set -uo pipefail
here=docs/benchmarks/2026-11-28-h100-d128-three-consumers/call-df
dir=${OUT:-gpu-out}/call-df; mkdir -p "$dir/work"
[ -d dist/gpu ] || tar -xJf dist/gpu.txz -C dist
bin=dist/gpu/bin
s=(512 1024 2048 4096 8192 16384)
bf16=""
for i in 0 1 2 3 4 5; do b=$((16384 / s[i])); bf16+="bf16 B$b H16/16 S${s[i]}x${s[i]} D128,"; done
for i in 1 2 3 4 5; do b=$((16384 / s[i])); bf16+="bf16 B$b H16/16 S${s[i]}x${s[i]} D128 causal,"; done
bf16+="bf16 B2 H32/8 S8192x8192 D128 causal"
for m in softcap30 alibi sinks; do bf16+=",bf16 B8 H16/16 S2048x2048 D128 $m,bf16 B1 H16/16 S16384x16384 D128 $m"; done
ab() {  # ab GROUP SHAPES TILE...
  local group=$1 shapes=$2; shift 2
  local new=("$@") r k order
  for r in 1 2; do
    if [ $r = 1 ]; then order=(auto "${new[@]}"); else order=("${new[1]}" "${new[0]}" auto); fi
    for k in "${order[@]}"; do
      local pick=(); [ $k = auto ] || pick=(--kernel $k)
      "$bin/flashattn-bench" run --suite sweep,causal,long,masks --shapes "$shapes" --modes graph --iters 20 \
        --baseline none --label flashattn "${pick[@]}" --out "$dir/work/$group-$k-$r.json" >> "$dir/work/ab.log" 2>&1
    done
    for k in "${new[@]}"; do
      echo "== $k / dispatcher, repetition $r" | tee -a "$dir/summary-ab.txt"
      "$bin/flashattn-report" compare "$dir/work/$group-auto-$r.json" "$dir/work/$group-$k-$r.json" > "$dir/work/cmp-$k-$r.txt" 2>&1
      awk '/^== /{s = substr($0, 4)} /^flashattn /{printf "    %-52s %s  (%s -> %s)\n", s, $5, $3, $4}' "$dir/work/cmp-$k-$r.txt" | tee -a "$dir/summary-ab.txt"
    done
  done
}
ab bf16 "$bf16" sm90_bf16_d128_m192n80w16s4ws sm90_bf16_d128_m192n64w16s4ws
ab f16 "f16 B2 H16/16 S8192x8192 D128" sm90_f16_d128_m192n80w16s4ws sm90_f16_d128_m192n64w16s4ws
FLASHATTN_DISPATCH=$here/dispatch-candidate.tsv "$bin/flashattn-bench" run --suite seed,long --modes graph --iters 30 \
  --out "$dir/work/bench.json" > "$dir/work/bench.log" 2>&1
echo "bench beside SDPA: rc=$?" | tee -a "$dir/summary-ab.txt"; cp "$dir/work/bench.json" "$dir/work/bench.md" "$dir/" 2>/dev/null
new=sm90_bf16_d128_m192n80w16s4ws,sm90_bf16_d128_m192n64w16s4ws,sm90_f16_d128_m192n80w16s4ws,sm90_f16_d128_m192n64w16s4ws
OUT=$dir FUZZ_ARGS="--cases 200 --seed 461 --max-seqlen 2048 --head-dim 128 --config $new" \
  FUZZ_SANITIZER_ARGS="--small --head-dim 128 --config $new" FUZZ_SANITIZER_CASES='60 30 30' SANITIZER_LIMIT=150 \
  scripts/gpu-run.sh tests fuzz fuzz-sanitizer
grep -E "rc=|SUMMARY|worst" "$dir/summary.txt" | cut -c1-200 | tail -25
tail -32 "$dir/work/bench.log" | cut -c1-150
cat "$dir/summary-ab.txt"
