#!/usr/bin/env bash
# Call BY: the shared-O build with the immediate hand-on (f1c9f99, dist/gpu.txz) against main
# (4fa06ad's kernels, dist/4fa06ad-bench.xz) on the long suite, graph replay, 30 samples, two
# alternating pairs (scripts/gpu-run.sh ab). Only if bf16 B8 H16 S2048 D128 is faster in both
# pairs (new/old < 0.99), as little device time was left: the GPU grid tests, 150 fuzz cases and
# ws_short_last_tiles under memcheck and racecheck. From the checkout root on the GPU host;
# results in $OUT/call-by/.
set -uo pipefail
o=${OUT:-gpu-out}/call-by; mkdir -p "$o"
[ -d dist/gpu/bin ] || tar -xJf dist/gpu.txz -C dist
OUT=$o/ab AB_OLD=dist/4fa06ad-bench.xz AB_REPS=2 AB_ARGS='--suite long --modes graph --iters 30' \
  scripts/gpu-run.sh ab > /dev/null 2>&1
echo "$(date +%T) ab done" >> "$o/times.txt"
mkdir -p "$o/ab/x" && tar -xzf "$o/ab/logs.tar.gz" -C "$o/ab/x" --wildcards './ab-compare-*' 2>/dev/null
ratios() { awk '/^== /{s=substr($0,4)} /^flashattn /{printf "%-44s %s\n", s, $5}' "$1"; }
paste <(ratios "$o/ab/x/ab-compare-1.txt") <(awk '/^flashattn /{print $5}' "$o/ab/x/ab-compare-2.txt") > "$o/ratios.txt"
faster=$(awk '/S2048x2048 D128/ && $NF < 0.99 && $(NF-1) < 0.99 {print "yes"}' "$o/ratios.txt")
if [ "$faster" = yes ]; then
  dist/gpu/bin/fuzz--gpu_grid --include-ignored > "$o/grid.log" 2>&1
  echo "$(date +%T) grid tests rc=$?: $(grep -E 'test result|configs:|grid:|short last' "$o/grid.log" | tr '\n' ' ')" >> "$o/times.txt"
  dist/gpu/bin/flashattn-fuzz --cases 150 --seed 317 --json "$o/fuzz.json" > "$o/fuzz.log" 2>&1
  echo "$(date +%T) fuzz rc=$?: $(tail -1 "$o/fuzz.log")" >> "$o/times.txt"
  san=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
  for tool in memcheck racecheck; do
    start=$SECONDS
    timeout 150 "$san" --tool $tool --error-exitcode 9 dist/gpu/bin/fuzz--gpu_grid --include-ignored --exact ws_short_last_tiles \
      --nocapture > "$o/short-tiles-$tool.log" 2>&1
    echo "ws_short_last_tiles under $tool: rc=$? in $((SECONDS - start)) s; $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$o/short-tiles-$tool.log" | tail -1); $(grep -E 'short last tiles' "$o/short-tiles-$tool.log")" >> "$o/sanitizer.txt"
  done
else
  echo "S2048 not faster in both pairs: no tests" >> "$o/times.txt"
fi
{ cat "$o/times.txt"; echo "== new / old p50 (r1, r2)"; cat "$o/ratios.txt"; grep -E "ab pair" "$o/ab/summary.txt"
  cat "$o/sanitizer.txt" 2>/dev/null; } | tee "$o/summary.txt"
