#!/usr/bin/env bash
# Call BS: the rotated persistent walk made cheap. Three builds' flashattn-bench: I (ae3dad8, main's
# kernels: short tiles dealt after all full ones), R (de18d2a: each pair's query tiles kept
# together and rotated by the pair's starting round, with two 64-bit divisions a tile) and R2
# (ac46b5f: R keeping only the CTA's round, the pair's first round found without a division by the
# grid, 32-bit index arithmetic). Seed, long and masks suites, graph replay, 30 samples, in the
# order I, R, R2, R2, R, I. From the checkout root on the GPU host with dist/gpu.txz (for
# flashattn-report) and dist/{ae3dad8,de18d2a,ac46b5f}-bench.xz; results in $OUT/call-bs/.
set -uo pipefail
o=${OUT:-gpu-out}/call-bs; mkdir -p "$o"
[ -d dist/gpu/bin ] || tar -xJf dist/gpu.txz -C dist
R=dist/gpu/bin/flashattn-report
xz -dc dist/ae3dad8-bench.xz > "$o/I-bench"
xz -dc dist/de18d2a-bench.xz > "$o/R-bench"
xz -dc dist/ac46b5f-bench.xz > "$o/R2-bench"
chmod +x "$o"/*-bench
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu,power.draw --format=csv > "$o/gpu.txt"
start=$SECONDS
args=(run --suite seed,long,masks --modes graph --iters 30 --baseline none --label flashattn)
run() {
  if [ $((SECONDS - start)) -gt 500 ]; then echo "$(date +%T) $1-$2 skipped (time)" >> "$o/times.txt"; return; fi
  timeout 150 "$o/$1-bench" "${args[@]}" --out "$o/$1-$2.json" >> "$o/ab.log" 2>&1
  echo "$(date +%T) $1-$2 rc=$?" >> "$o/times.txt"
}
run I 1; run R 1; run R2 1; run R2 2; run R 2; run I 2
for r in 1 2; do
  for b in R R2; do
    [ -f "$o/I-$r.json" ] && [ -f "$o/$b-$r.json" ] && $R compare "$o/I-$r.json" "$o/$b-$r.json" > "$o/$b-vs-I-$r.txt" 2>&1
  done
done
rm -f "$o"/*-bench
{ cat "$o/times.txt"
  for b in R R2; do
    echo "== $b / I (r1, r2)"
    paste <(awk '/^== /{shape=substr($0,4)} /^flashattn /{printf "%-52s %s\n", shape, $5}' "$o/$b-vs-I-1.txt" 2>/dev/null) \
          <(awk '/^flashattn /{print $5}' "$o/$b-vs-I-2.txt" 2>/dev/null)
    tail -1 "$o/$b-vs-I-1.txt" 2>/dev/null; tail -1 "$o/$b-vs-I-2.txt" 2>/dev/null
  done
} | tee "$o/summary.txt"
