#!/usr/bin/env bash
# Call BU: on an H100 (call BT ran on an H200), T (e01552c, dist/gpu.txz) against I (ae3dad8,
# dist/ae3dad8-bench.xz) on the seed and long suites, graph replay, 30 samples, three pairs in the
# order I, T, T, I, I, T. From the checkout root on the GPU host; results in $OUT/call-bu/.
set -uo pipefail
o=${OUT:-gpu-out}/call-bu; mkdir -p "$o"
[ -d dist/gpu/bin ] || tar -xJf dist/gpu.txz -C dist
R=dist/gpu/bin/flashattn-report
xz -dc dist/ae3dad8-bench.xz > "$o/I-bench"; cp dist/gpu/bin/flashattn-bench "$o/T-bench"; chmod +x "$o"/*-bench
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$o/gpu.txt"
args=(run --suite seed,long --modes graph --iters 30 --baseline none --label flashattn)
for run in I-1 T-1 T-2 I-2 I-3 T-3; do
  timeout 60 "$o/${run%-*}-bench" "${args[@]}" --out "$o/$run.json" >> "$o/ab.log" 2>&1
  echo "$(date +%T) $run rc=$?" >> "$o/times.txt"
done
for r in 1 2 3; do $R compare "$o/I-$r.json" "$o/T-$r.json" > "$o/T-vs-I-$r.txt" 2>&1; done
rm -f "$o"/*-bench
{ cat "$o/gpu.txt" "$o/times.txt"; echo "== T / I (r1, r2, r3)"
  paste <(awk '/^== /{shape=substr($0,4)} /^flashattn /{printf "%-44s %s\n", shape, $5}' "$o/T-vs-I-1.txt") \
        <(awk '/^flashattn /{print $5}' "$o/T-vs-I-2.txt") <(awk '/^flashattn /{print $5}' "$o/T-vs-I-3.txt")
  for r in 1 2 3; do tail -1 "$o/T-vs-I-$r.txt"; done
} | tee "$o/summary.txt"
