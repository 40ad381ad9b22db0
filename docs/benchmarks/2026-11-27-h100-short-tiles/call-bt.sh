#!/usr/bin/env bash
# Call BT: the build to land (e01552c, dist/gpu.txz: short tiles rotated within each pair where
# K/V outgrows L2, else dealt last). First an A/B against I (ae3dad8, dist/ae3dad8-bench.xz) on the
# seed and long suites (graph replay, 30 samples, order I, T, T, I); then beside PyTorch's SDPA
# backends with the regression gate against the stored H100 baseline; then every GPU test, 150
# fuzz cases, ws_short_last_tiles under memcheck and racecheck, the fuzzer (small shapes, every
# feature) under memcheck, racecheck and synccheck. From the checkout root on the GPU host;
# results in $OUT/call-bt/.
set -uo pipefail
o=${OUT:-gpu-out}/call-bt; mkdir -p "$o"
[ -d dist/gpu/bin ] || tar -xJf dist/gpu.txz -C dist
R=dist/gpu/bin/flashattn-report
xz -dc dist/ae3dad8-bench.xz > "$o/I-bench"; cp dist/gpu/bin/flashattn-bench "$o/T-bench"; chmod +x "$o"/*-bench
args=(run --suite seed,long --modes graph --iters 30 --baseline none --label flashattn)
for run in I-1 T-1 T-2 I-2; do
  timeout 100 "$o/${run%-*}-bench" "${args[@]}" --out "$o/$run.json" >> "$o/ab.log" 2>&1
  echo "$(date +%T) $run rc=$?" >> "$o/times.txt"
done
for r in 1 2; do $R compare "$o/I-$r.json" "$o/T-$r.json" > "$o/T-vs-I-$r.txt" 2>&1; done
rm -f "$o"/*-bench
OUT=$o/bench BENCH_ARGS='run --suite seed,long --modes graph --iters 30' scripts/gpu-run.sh bench regression > /dev/null 2>&1
echo "$(date +%T) bench + gate done" >> "$o/times.txt"
OUT=$o/tests FUZZ_ARGS='--cases 150 --seed 307' scripts/gpu-run.sh tests fuzz > /dev/null 2>&1
san=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
for tool in memcheck racecheck; do
  start=$SECONDS
  timeout 100 "$san" --tool $tool --error-exitcode 9 dist/gpu/bin/fuzz--gpu_grid --include-ignored --exact ws_short_last_tiles \
    --nocapture > "$o/short-tiles-$tool.log" 2>&1
  echo "ws_short_last_tiles under $tool: rc=$? in $((SECONDS - start)) s; $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$o/short-tiles-$tool.log" | tail -1); $(grep -E 'short last tiles' "$o/short-tiles-$tool.log")" >> "$o/sanitizer.txt"
done
OUT=$o/fs SANITIZER_LIMIT=60 FUZZ_SANITIZER_ARGS='--small --features always' FUZZ_SANITIZER_CASES='60 30 30' \
  scripts/gpu-run.sh fuzz-sanitizer > /dev/null 2>&1
{ cat "$o/times.txt"
  echo "== T / I (r1, r2)"
  paste <(awk '/^== /{shape=substr($0,4)} /^flashattn /{printf "%-44s %s\n", shape, $5}' "$o/T-vs-I-1.txt") <(awk '/^flashattn /{print $5}' "$o/T-vs-I-2.txt")
  tail -1 "$o/T-vs-I-1.txt"; tail -1 "$o/T-vs-I-2.txt"
  grep -E "speedup|^f16|^bf16|regression gate" "$o/bench/summary.txt" | tail -24
  grep -E "^test |configs:|grid:|short last|fuzz:|all .* cases passed" "$o/tests/summary.txt"
  cat "$o/sanitizer.txt"; grep -E "fuzz under" "$o/fs/summary.txt"
} | tee "$o/summary.txt"
