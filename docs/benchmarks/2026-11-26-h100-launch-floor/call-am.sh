#!/usr/bin/env bash
# Call AM: the landed build (30d1f81: tensor maps remembered per thread; kernels' SASS identical to
# e49eb93's) beside PyTorch's SDPA backends on the seed and long suites, the regression gate
# against the stored baseline; the host cost of a launch (`flashattn-bench host --suite seed`)
# of this build and e49eb93's, alternating, three times, with the launch-floor probe before and
# after; the GPU tests and 300 fuzz cases. From the checkout root on the GPU host; results in
# $OUT/call-am/ (at most eight files come back: the host runs and the probe go in host.tar.gz).
set -uo pipefail
OUT=${OUT:-gpu-out}/call-am \
  BENCH_ARGS='run --suite seed,long --modes graph --iters 30' \
  scripts/gpu-run.sh bench regression
o=$(cd "${OUT:-gpu-out}/call-am" && pwd)
xz -dc dist/e49eb93-bench.xz > /tmp/old-bench && chmod +x /tmp/old-bench
h=$(mktemp -d)
dist/launch_floor > "$h/floor-1.txt" 2>&1
for r in 1 2 3; do
  for side in old new; do
    exe=/tmp/old-bench; [ $side = new ] && exe=dist/gpu/bin/flashattn-bench
    $exe host --suite seed --out "$h/host-$side-$r.json" > /dev/null 2>&1
    echo "host $side $r: rc=$?" >> "$o/summary.txt"
  done
done
dist/launch_floor > "$h/floor-2.txt" 2>&1
python3 - "$h" <<'PY' | tee "$o/host.txt"
import json, sys, statistics as st
h = sys.argv[1]
def load(f):
    d = json.load(open(f))
    return {(json.dumps(r['shape'], sort_keys=True), r['path']): ((r.get('summary') or {}).get('p50', float('nan')), r.get('config', '')) for r in d['results']}
runs = {side: [load(f'{h}/host-{side}-{r}.json') for r in (1, 2, 3)] for side in ('old', 'new')}
for k in runs['old'][0]:
    s = json.loads(k[0])
    old = [x[k][0] for x in runs['old']]; new = [x[k][0] for x in runs['new'] if k in x]
    print(f"{s['dtype']} B{s['batch']} H{s['heads_q']} S{s['seqlen_q']}{' causal' if s['causal'] else '':7s} {k[1]:20s} "
          f"old {' '.join(f'{v:5.2f}' for v in old)} (med {st.median(old):5.2f})  new {' '.join(f'{v:5.2f}' for v in new)} "
          f"(med {st.median(new):5.2f}) us  {runs['old'][0][k][1]}")
PY
cat "$h/floor-1.txt" "$h/floor-2.txt" | tee -a "$o/host.txt"
tar -czf "$o/host.tar.gz" -C "$h" .
OUT=$o/tests TEST_FILTER='gpu_grid|gpu_varlen|validation|flashattn_sys' FUZZ_ARGS='--cases 300 --seed 98' \
  scripts/gpu-run.sh tests fuzz
cat "$o/tests/summary.txt" >> "$o/summary.txt"
tar -czf "$o/tests.tar.gz" -C "$o" tests && rm -rf "$o/tests"
ls "$o"
