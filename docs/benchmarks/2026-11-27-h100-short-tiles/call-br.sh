#!/usr/bin/env bash
# Call BR: the rotated persistent walk. Three builds' flashattn-bench: I (ae3dad8, main's kernels:
# short tiles dealt after all full ones), R (de18d2a: each pair's query tiles kept together and
# rotated by the pair's starting round) and RS (211cda1: R with 64-row tiles split by keys across
# the consumers, as 2320ca2). Seed, long and masks suites, graph replay, 30 samples, in the order
# I, R, RS, RS, R, I. From the checkout root on the GPU host with dist/gpu.txz (for
# flashattn-report) and dist/{ae3dad8,de18d2a,211cda1}-bench.xz; results in $OUT/call-br/.
set -uo pipefail
o=${OUT:-gpu-out}/call-br; mkdir -p "$o"
[ -d dist/gpu/bin ] || tar -xJf dist/gpu.txz -C dist
R=dist/gpu/bin/flashattn-report
xz -dc dist/ae3dad8-bench.xz > "$o/I-bench"
xz -dc dist/de18d2a-bench.xz > "$o/R-bench"
xz -dc dist/211cda1-bench.xz > "$o/RS-bench"
chmod +x "$o"/*-bench
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu,power.draw --format=csv > "$o/gpu.txt"
start=$SECONDS
args=(run --suite seed,long,masks --modes graph --iters 30 --baseline none --label flashattn)
run() {
  if [ $((SECONDS - start)) -gt 500 ]; then echo "$(date +%T) $1-$2 skipped (time)" >> "$o/times.txt"; return; fi
  timeout 150 "$o/$1-bench" "${args[@]}" --out "$o/$1-$2.json" >> "$o/ab.log" 2>&1
  echo "$(date +%T) $1-$2 rc=$?" >> "$o/times.txt"
}
run I 1; run R 1; run RS 1; run RS 2; run R 2; run I 2
for r in 1 2; do
  for b in R RS; do
    [ -f "$o/I-$r.json" ] && [ -f "$o/$b-$r.json" ] && $R compare "$o/I-$r.json" "$o/$b-$r.json" > "$o/$b-vs-I-$r.txt" 2>&1
  done
done
rm -f "$o"/*-bench
{ cat "$o/times.txt"
  for b in R RS; do
    echo "== $b / I (r1, r2)"
    paste <(awk '/^== /{shape=substr($0,4)} /^flashattn /{printf "%-52s %s\n", shape, $5}' "$o/$b-vs-I-1.txt" 2>/dev/null) \
          <(awk '/^flashattn /{print $5}' "$o/$b-vs-I-2.txt" 2>/dev/null)
    tail -1 "$o/$b-vs-I-1.txt" 2>/dev/null; tail -1 "$o/$b-vs-I-2.txt" 2>/dev/null
  done
} | tee "$o/summary.txt"
