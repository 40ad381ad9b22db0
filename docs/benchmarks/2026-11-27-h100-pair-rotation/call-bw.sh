#!/usr/bin/env bash
# Call BW (build 73a2713, dist/gpu.txz: rotate-l2b's kernels plus an experimental head-dim-128
# ws tile of 160 keys with two buffers, which fits its own O tile and so walks persistently):
# 1. the 160-key tile against the 176-key one (the dispatcher's, one CTA per tile) on the
#    non-causal head-dim-128 long shapes, forced by --kernel, three alternating pairs;
# 2. every GPU test and 150 fuzz cases (scripts/gpu-run.sh tests fuzz);
# 3. ws_short_last_tiles (which covers both deals of the persistent walk) under memcheck and
#    racecheck.
# From the checkout root on the GPU host; results in $OUT/call-bw/.
set -uo pipefail
o=${OUT:-gpu-out}/call-bw; mkdir -p "$o"
[ -d dist/gpu/bin ] || tar -xJf dist/gpu.txz -C dist
B=dist/gpu/bin/flashattn-bench R=dist/gpu/bin/flashattn-report
bf='bf16 B8 H16/16 S2048x2048 D128,bf16 B2 H16/16 S8192x8192 D128,bf16 B1 H16/16 S16384x16384 D128'
f16='f16 B2 H16/16 S8192x8192 D128'
args=(run --suite long --modes graph --iters 30 --baseline none --label flashattn)
for r in 1 2 3; do
  for n in 176 160; do
    $B "${args[@]}" --shapes "$bf" --kernel sm90_bf16_d128_m128n${n}w12s2ws --out "$o/bf-n$n-$r.json" >> "$o/ab.log" 2>&1
    $B "${args[@]}" --shapes "$f16" --kernel sm90_f16_d128_m128n${n}w12s2ws --out "$o/f16-n$n-$r.json" >> "$o/ab.log" 2>&1
    echo "$(date +%T) n$n rep $r done" >> "$o/times.txt"
  done
  for d in bf f16; do $R compare "$o/$d-n176-$r.json" "$o/$d-n160-$r.json" > "$o/$d-n160-vs-n176-$r.txt" 2>&1; done
done
OUT=$o/tests FUZZ_ARGS='--cases 150 --seed 311' scripts/gpu-run.sh tests fuzz > /dev/null 2>&1
echo "$(date +%T) tests + fuzz done" >> "$o/times.txt"
san=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
for tool in memcheck racecheck; do
  start=$SECONDS
  timeout 100 "$san" --tool $tool --error-exitcode 9 dist/gpu/bin/fuzz--gpu_grid --include-ignored --exact ws_short_last_tiles \
    --nocapture > "$o/short-tiles-$tool.log" 2>&1
  echo "ws_short_last_tiles under $tool: rc=$? in $((SECONDS - start)) s; $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$o/short-tiles-$tool.log" | tail -1); $(grep -E 'short last tiles' "$o/short-tiles-$tool.log")" >> "$o/sanitizer.txt"
done
{ cat "$o/times.txt"
  echo "== n160 / n176 p50 (r1, r2, r3)"
  for d in bf f16; do
    paste <(awk '/^== /{shape=substr($0,4)} /^flashattn /{printf "%-44s %s %s %s\n", shape, $3, $4, $5}' "$o/$d-n160-vs-n176-1.txt") \
      <(awk '/^flashattn /{print $5}' "$o/$d-n160-vs-n176-2.txt") <(awk '/^flashattn /{print $5}' "$o/$d-n160-vs-n176-3.txt")
  done
  grep -E "^test |configs:|grid:|short last|fuzz:|all .* cases passed|FAIL|fail" "$o/tests/summary.txt" | head -40
  cat "$o/sanitizer.txt"
} | tee "$o/summary.txt"
