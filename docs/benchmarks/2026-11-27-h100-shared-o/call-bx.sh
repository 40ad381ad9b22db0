#!/usr/bin/env bash
# Call BX: the shared-O build (71aa83d, dist/gpu.txz: the persistent walk for the ws tiles where
# only one consumer's O rows fit beside the ring, head dim 128 with 176 keys and 256 with 64)
# against main (4fa06ad's kernels, dist/4fa06ad-bench.xz):
# 1. seed and long suites, graph replay, 30 samples, three alternating pairs (scripts/gpu-run.sh ab);
# 2. the 64-key head-dim-256 tile forced on the long d256 shape, both builds, two pairs;
# 3. every GPU test and 150 fuzz cases;
# 4. ws_short_last_tiles (which now walks head dims 128 and 256) under memcheck, racecheck and
#    synccheck.
# From the checkout root on the GPU host; results in $OUT/call-bx/.
set -uo pipefail
o=${OUT:-gpu-out}/call-bx; mkdir -p "$o"
[ -d dist/gpu/bin ] || tar -xJf dist/gpu.txz -C dist
R=dist/gpu/bin/flashattn-report
OUT=$o/ab AB_OLD=dist/4fa06ad-bench.xz AB_REPS=3 AB_ARGS='--suite seed,long --modes graph --iters 30' \
  scripts/gpu-run.sh ab > /dev/null 2>&1
echo "$(date +%T) ab done" >> "$o/times.txt"
xz -dc dist/4fa06ad-bench.xz > "$o/old-bench"; chmod +x "$o/old-bench"
d256=(run --suite long --modes graph --iters 30 --baseline none --label flashattn --shapes 'bf16 B2 H8/8 S8192x8192 D256'
      --kernel sm90_bf16_d256_m128n64w12s2ws)
for r in 1 2; do
  "$o/old-bench" "${d256[@]}" --out "$o/d256-old-$r.json" >> "$o/d256.log" 2>&1
  dist/gpu/bin/flashattn-bench "${d256[@]}" --out "$o/d256-new-$r.json" >> "$o/d256.log" 2>&1
  $R compare "$o/d256-old-$r.json" "$o/d256-new-$r.json" > "$o/d256-new-vs-old-$r.txt" 2>&1
done
rm -f "$o/old-bench"
echo "$(date +%T) d256 done" >> "$o/times.txt"
OUT=$o/tests FUZZ_ARGS='--cases 150 --seed 313' scripts/gpu-run.sh tests fuzz > /dev/null 2>&1
echo "$(date +%T) tests + fuzz done" >> "$o/times.txt"
san=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
for tool in memcheck racecheck synccheck; do
  start=$SECONDS
  timeout 150 "$san" --tool $tool --error-exitcode 9 dist/gpu/bin/fuzz--gpu_grid --include-ignored --exact ws_short_last_tiles \
    --nocapture > "$o/short-tiles-$tool.log" 2>&1
  echo "ws_short_last_tiles under $tool: rc=$? in $((SECONDS - start)) s; $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$o/short-tiles-$tool.log" | tail -1); $(grep -E 'short last tiles' "$o/short-tiles-$tool.log")" >> "$o/sanitizer.txt"
done
{ cat "$o/times.txt"
  echo "== new / old p50 (r1, r2, r3)"
  mkdir -p "$o/ab/x" && tar -xzf "$o/ab/logs.tar.gz" -C "$o/ab/x" --wildcards './ab-compare-*' 2>/dev/null
  paste <(awk '/^== /{s=substr($0,4)} /^flashattn /{printf "%-44s %s\n", s, $5}' "$o/ab/x/ab-compare-1.txt") \
    <(awk '/^flashattn /{print $5}' "$o/ab/x/ab-compare-2.txt") <(awk '/^flashattn /{print $5}' "$o/ab/x/ab-compare-3.txt")
  grep -E "ab pair" "$o/ab/summary.txt"
  echo "== d256 m128n64 forced, new / old"; for r in 1 2; do awk '/^flashattn /{print $3, $4, $5}' "$o/d256-new-vs-old-$r.txt"; done
  grep -E "^test |configs:|grid:|short last|fuzz:|all .* cases passed|FAIL|panicked" "$o/tests/summary.txt" | head -40
  cat "$o/sanitizer.txt"
} | tee "$o/summary.txt"
