#!/usr/bin/env bash
# Call BN: the short-tile build N (91db2c1: ws consumers without rows pass their turns; the
# persistent walk deals each sequence's short last query tile after the full ones) against main's
# kernels (d8ac193, dist/gpu.txz). First every head-dim-64 configuration on the four shapes with a
# short last 192-row tile (and B4 H16, where the 192-row tile's third query tile is short), main
# and N in turn; then the seed, long and masks suites, graph replay, 30 samples, in the order
# main, N, N, main. From the checkout root on the GPU host with dist/gpu.txz and
# dist/91db2c1-bench.xz; results in $OUT/call-bn/.
set -uo pipefail
o=${OUT:-gpu-out}/call-bn; mkdir -p "$o"
[ -d dist/gpu/bin ] || tar -xJf dist/gpu.txz -C dist
R=dist/gpu/bin/flashattn-report
cp dist/gpu/bin/flashattn-bench "$o/main-bench"
xz -dc dist/91db2c1-bench.xz > "$o/N-bench"
chmod +x "$o"/*-bench
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu,power.draw --format=csv > "$o/gpu.txt"
start=$SECONDS
shapes='f16 B4 H16/16 S512x512 D64,f16 B8 H16/16 S512x512 D64,bf16 B16 H32/32 S1024x1024 D64,bf16 B4 H32/32 S4096x4096 D64'
for who in main N; do
  timeout 120 "$o/$who-bench" run --suite long,seed --shapes "$shapes" --kernel all --modes graph --iters 30 \
    --baseline none --out "$o/configs-$who.json" > "$o/configs-$who.txt" 2>&1
  echo "$(date +%T) configs $who rc=$?" >> "$o/times.txt"
done
args=(run --suite seed,long,masks --modes graph --iters 30 --baseline none --label flashattn)
run() {
  if [ $((SECONDS - start)) -gt 480 ]; then echo "$(date +%T) $1-$2 skipped (time)" >> "$o/times.txt"; return; fi
  timeout 150 "$o/$1-bench" "${args[@]}" --out "$o/$1-$2.json" >> "$o/ab.log" 2>&1
  echo "$(date +%T) $1-$2 rc=$?" >> "$o/times.txt"
}
run main 1; run N 1; run N 2; run main 2
for r in 1 2; do
  [ -f "$o/main-$r.json" ] && [ -f "$o/N-$r.json" ] && $R compare "$o/main-$r.json" "$o/N-$r.json" > "$o/N-vs-main-$r.txt" 2>&1
done
rm -f "$o"/*-bench
python3 - "$o" <<'PY' > "$o/configs-ratios.txt"
import json, sys
o = sys.argv[1]
def load(who):
    rows = {}
    for r in json.load(open(f"{o}/configs-{who}.json"))["results"]:
        s = r["shape"]
        shape = f"{s['dtype']} B{s['batch']} H{s['heads_q']} S{s['seqlen_q']} D{s['head_dim']}"
        rows[(shape, r["implementation"], r.get("config"))] = r["summary"]["p50"]
    return rows
try:
    a, b = load("main"), load("N")
    for k in sorted(a, key=lambda k: (k[0], b.get(k) or 9e9)):
        if k in b: print(f"{k[0]:24s} {k[1]:44s} main {a[k]*1e3:8.2f} us  N {b[k]*1e3:8.2f} us  N/main {b[k]/a[k]:.3f}")
except Exception as e:
    print("configs parse:", e)
PY
{ cat "$o/times.txt"; head -80 "$o/configs-ratios.txt"
  for r in 1 2; do echo "== N-vs-main-$r"; awk '/^== /{shape=substr($0,4)} /^flashattn /{printf "%-52s %s\n", shape, $5}' "$o/N-vs-main-$r.txt" 2>/dev/null; tail -1 "$o/N-vs-main-$r.txt" 2>/dev/null; done
} | tee "$o/summary.txt"
