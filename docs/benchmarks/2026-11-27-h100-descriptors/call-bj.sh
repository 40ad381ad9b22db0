#!/usr/bin/env bash
# Call BJ: the build to land, D (d8ac193: A's descriptors plus the tensor-map prefetch, without B's
# reductions), against main (12d5a33's kernels) on the seed and long suites, graph replay, 30
# samples, in the order main, D, D, main; then D beside PyTorch's SDPA backends (seed and long
# suites, graph replay, 30 samples). From the checkout root on the GPU host with dist/gpu.txz (D)
# and dist/12d5a33-bench.xz carried; results in $OUT/call-bj/ (only $OUT/keep comes back).
set -uo pipefail
o=${OUT:-gpu-out}/call-bj; mkdir -p "$o"
[ -d dist/gpu/bin ] || tar -xJf dist/gpu.txz -C dist
R=dist/gpu/bin/flashattn-report
cp dist/gpu/bin/flashattn-bench "$o/D-bench"
xz -dc dist/12d5a33-bench.xz > "$o/main-bench"
chmod +x "$o"/*-bench
cat dist/gpu/COMMIT > "$o/commit.txt"
args=(run --suite seed,long --modes graph --iters 30 --baseline none --label flashattn)
run() { echo "$(date +%T) $1-$2" >> "$o/times.txt"; "$o/$1-bench" "${args[@]}" --out "$o/$1-$2.json" >> "$o/ab.log" 2>&1; }
run main 1; run D 1; run D 2; run main 2
for r in 1 2; do $R compare "$o/main-$r.json" "$o/D-$r.json" > "$o/D-vs-main-$r.txt" 2>&1; done
rm -f "$o"/*-bench
{ echo "== D-vs-main"
  paste <(awk '/^== /{shape=substr($0,4)} /^flashattn /{printf "%-44s %s\n", shape, $5}' "$o/D-vs-main-1.txt") \
        <(awk '/^flashattn /{print $5}' "$o/D-vs-main-2.txt")
  tail -n1 "$o/D-vs-main-1.txt"; tail -n1 "$o/D-vs-main-2.txt"; } | tee "$o/ratios.txt"
echo "$(date +%T) sdpa" >> "$o/times.txt"
OUT="$o/sdpa" BENCH_ARGS='run --suite seed,long --modes graph --iters 30' scripts/gpu-run.sh bench > /dev/null 2>&1
echo "$(date +%T) end" >> "$o/times.txt"
grep -A24 '^== mode graph' "$o/sdpa/summary.txt"
