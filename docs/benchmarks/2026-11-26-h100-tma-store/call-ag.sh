#!/usr/bin/env bash
# Call AG: host cost per forward call (enqueue only, every launch path) on the seed suite, main's
# build (three tensor maps per warp-specialized launch) against the TMA-store build c211e18 (four:
# O's too), alternating, twice. From the checkout root on the GPU host; results in $OUT/call-ag/.
set -uo pipefail
o=${OUT:-gpu-out}/call-ag; mkdir -p "$o"
xz -dc dist/main-bench.xz > /tmp/main-bench && xz -dc dist/c211e18-bench.xz > /tmp/new-bench && chmod +x /tmp/*-bench
for r in 1 2; do
  for side in main new; do
    /tmp/$side-bench host --suite seed --out "$o/host-$side-$r.json" > "$o/host-$side-$r.log" 2>&1
    echo "$side $r: rc=$?" >> "$o/summary.txt"
  done
done
python3 - "$o" <<'PY' | tee -a "$o/summary.txt"
import json, sys, glob
o = sys.argv[1]
def load(f):
    d = json.load(open(f))
    return {(json.dumps(r['shape'], sort_keys=True), r['path']): (r.get('summary') or {}).get('p50', float('nan')) for r in d['results']}
for r in (1, 2):
    a, b = load(f'{o}/host-main-{r}.json'), load(f'{o}/host-new-{r}.json')
    for k in a:
        s = json.loads(k[0])
        print(f"rep {r} {s['dtype']} B{s['batch']} H{s['heads_q']} S{s['seqlen_q']}{' causal' if s['causal'] else ''} {k[1]:20s} main {a[k]:6.2f} us  new {b.get(k, float('nan')):6.2f} us")
PY
