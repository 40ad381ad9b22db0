#!/usr/bin/env bash
# Call BH: same-run A/B of four builds on the seed, long and masks suites (graph replay, 30
# samples), in the order main, A, B, C, C, B, A, main: main (12d5a33's kernels), A (fa8391e: wgmma
# descriptors built once per tile, the warpgroup index in uniform registers), B (fbecf0a: A plus
# the softmax's row max as a tree and its row sums in two chains), C (B plus the ws kernel's tensor
# maps prefetched at its start). From the checkout root on the GPU host with dist/gpu.txz (C),
# dist/12d5a33-bench.xz, dist/fa8391e-bench.xz and dist/fbecf0a-bench.xz carried; results in
# $OUT/call-bh/.
set -uo pipefail
o=${OUT:-gpu-out}/call-bh; mkdir -p "$o"
[ -d dist/gpu/bin ] || tar -xJf dist/gpu.txz -C dist
R=dist/gpu/bin/flashattn-report
cp dist/gpu/bin/flashattn-bench "$o/C-bench"
xz -dc dist/12d5a33-bench.xz > "$o/main-bench"
xz -dc dist/fa8391e-bench.xz > "$o/A-bench"
xz -dc dist/fbecf0a-bench.xz > "$o/B-bench"
chmod +x "$o"/*-bench
cat dist/gpu/COMMIT > "$o/commit.txt"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu,power.draw --format=csv > "$o/gpu.txt"
args=(run --suite seed,long,masks --modes graph --iters 30 --baseline none --label flashattn)
start=$SECONDS
# A run starts only while the call has time left for it (the device's limit is 600 s a command).
run() {
  if [ $((SECONDS - start)) -gt 470 ]; then echo "$(date +%T) $1-$2 skipped (time)" >> "$o/times.txt"; return; fi
  echo "$(date +%T) $1-$2" >> "$o/times.txt"
  "$o/$1-bench" "${args[@]}" --out "$o/$1-$2.json" >> "$o/ab.log" 2>&1
}
run main 1; run A 1; run B 1; run C 1; run C 2; run B 2; run A 2; run main 2
echo "$(date +%T) end" >> "$o/times.txt"
for r in 1 2; do
  [ -f "$o/main-$r.json" ] || continue
  $R compare "$o/main-$r.json" "$o/A-$r.json" > "$o/A-vs-main-$r.txt" 2>&1
  $R compare "$o/main-$r.json" "$o/B-$r.json" > "$o/B-vs-main-$r.txt" 2>&1
  $R compare "$o/A-$r.json" "$o/B-$r.json" > "$o/B-vs-A-$r.txt" 2>&1
  $R compare "$o/main-$r.json" "$o/C-$r.json" > "$o/C-vs-main-$r.txt" 2>&1
  $R compare "$o/B-$r.json" "$o/C-$r.json" > "$o/C-vs-B-$r.txt" 2>&1
done
rm -f "$o"/*-bench
# The short table: per shape, new/old p50 of each comparison (both repetitions).
for c in A-vs-main B-vs-main B-vs-A C-vs-main C-vs-B; do
  echo "== $c"
  paste <(awk '/^== /{shape=substr($0,4)} /^flashattn /{printf "%-52s %s\n", shape, $5}' "$o/$c-1.txt") \
        <(awk '/^flashattn /{print $5}' "$o/$c-2.txt" 2>/dev/null)
  tail -1 "$o/$c-1.txt"; tail -1 "$o/$c-2.txt" 2>/dev/null
done | tee "$o/ratios.txt"
