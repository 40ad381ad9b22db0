#!/usr/bin/env bash
# Call AL: call AK again without its fuzz step (300 cases passed there), its outputs bundled so
# that they come back: this session's build (fe11e17 + 5d28f7d) against the previous one (e49eb93,
# carried as dist/e49eb93-bench.xz), same run: seed, long and masks suites, two alternating
# repetitions; the GPU grid, varlen, validation and flashattn-sys tests; the host cost of a launch
# (`flashattn-bench host --suite seed`) of both builds, alternating, three times. From the
# checkout root on the GPU host; results in $OUT/call-al/ (summary.txt, logs.tar.gz, ratios.txt,
# host.txt, host.tar.gz).
set -uo pipefail
root=$(pwd)
OUT=${OUT:-gpu-out}/call-al AB_OLD=dist/e49eb93-bench.xz AB_REPS=2 \
  AB_ARGS='--suite seed,long,masks --modes graph --iters 30' \
  TEST_FILTER='gpu_grid|gpu_varlen|validation|flashattn_sys' \
  scripts/gpu-run.sh ab tests
o=$(cd "${OUT:-gpu-out}/call-al" && pwd)
t=$(mktemp -d); tar -xzf "$o/logs.tar.gz" -C "$t" --wildcards './ab-*.json'
(cd "$t" && python3 "$root/docs/benchmarks/2026-11-26-h100-softcap-deferred/ratios.py" > "$o/ratios.txt" 2>&1)
cat "$o/ratios.txt"
xz -dc dist/e49eb93-bench.xz > /tmp/old-bench && chmod +x /tmp/old-bench
h=$(mktemp -d)
for r in 1 2 3; do
  for side in old new; do
    exe=/tmp/old-bench; [ $side = new ] && exe=dist/gpu/bin/flashattn-bench
    $exe host --suite seed --out "$h/host-$side-$r.json" > /dev/null 2>&1
    echo "host $side $r: rc=$?" >> "$o/summary.txt"
  done
done
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
tar -czf "$o/host.tar.gz" -C "$h" .
