#!/usr/bin/env bash
# Call BO: build S (2320ca2: the persistent walk's tiles of at most 64 rows split by keys across
# the consumers, dist/gpu.txz) against build I (ae3dad8: idle consumers pass, short tiles dealt
# last; dist/ae3dad8-bench.xz). First every head-dim-64 configuration on four shapes with a short
# last query tile, I and S in turn (after the new GPU test ws_short_last_tiles on S); then the seed, long and masks suites, graph replay, 30
# samples, in the order I, S, S, I. From the checkout root on the GPU host; results in
# $OUT/call-bo/.
set -uo pipefail
o=${OUT:-gpu-out}/call-bo; mkdir -p "$o"
[ -d dist/gpu/bin ] || tar -xJf dist/gpu.txz -C dist
R=dist/gpu/bin/flashattn-report
xz -dc dist/ae3dad8-bench.xz > "$o/I-bench"
cp dist/gpu/bin/flashattn-bench "$o/S-bench"
chmod +x "$o"/*-bench
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu,power.draw --format=csv > "$o/gpu.txt"
start=$SECONDS
# First the new test on S: every ws configuration with short last tiles (split at head dim 64).
timeout 150 dist/gpu/bin/fuzz--gpu_grid --include-ignored --exact ws_short_last_tiles --nocapture > "$o/short-tiles-test.log" 2>&1
echo "$(date +%T) ws_short_last_tiles rc=$? $(grep -E 'short last tiles|test result' "$o/short-tiles-test.log" | tr '\n' ' ')" >> "$o/times.txt"
shapes='f16 B4 H16/16 S512x512 D64,f16 B8 H16/16 S512x512 D64,bf16 B16 H32/32 S1024x1024 D64,bf16 B4 H32/32 S4096x4096 D64'
for who in I S; do
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
run I 1; run S 1; run S 2; run I 2
for r in 1 2; do
  [ -f "$o/I-$r.json" ] && [ -f "$o/S-$r.json" ] && $R compare "$o/I-$r.json" "$o/S-$r.json" > "$o/S-vs-I-$r.txt" 2>&1
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
    a, b = load("I"), load("S")
    for k in sorted(a, key=lambda k: (k[0], b.get(k) or 9e9)):
        if k in b: print(f"{k[0]:24s} {k[1]:44s} I {a[k]*1e3:8.2f} us  S {b[k]*1e3:8.2f} us  S/I {b[k]/a[k]:.3f}")
except Exception as e:
    print("configs parse:", e)
PY
{ cat "$o/times.txt"; head -80 "$o/configs-ratios.txt"
  for r in 1 2; do echo "== S-vs-I-$r"; awk '/^== /{shape=substr($0,4)} /^flashattn /{printf "%-52s %s\n", shape, $5}' "$o/S-vs-I-$r.txt" 2>/dev/null; tail -1 "$o/S-vs-I-$r.txt" 2>/dev/null; done
} | tee "$o/summary.txt"
