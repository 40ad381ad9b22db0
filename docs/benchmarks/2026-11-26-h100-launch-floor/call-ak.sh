#!/usr/bin/env bash
# Call AK: this session's build (fe11e17: a ws consumer whose rows all lie past the sequence's
# end passes its turns without computing; 5d28f7d: tensor maps remembered per thread) against
# the previous build (e49eb93, carried as dist/e49eb93-bench.xz), same run: seed, long and masks
# suites, two alternating repetitions; the GPU grid, varlen, validation and flashattn-sys tests
# and 300 fuzz cases; then the host cost of a launch (`flashattn-bench host --suite seed`) of
# both builds, alternating, twice, and the launch-floor probe. From the checkout root on the GPU
# host; results in $OUT/call-ak/. As run, it left more files in $OUT than come back from the lent
# host: only fuzz.json, floor.txt and three of the host JSON/Markdown files returned (kept in
# call-ak/); call AL repeats the rest with its outputs bundled.
set -uo pipefail
root=$(pwd)
OUT=${OUT:-gpu-out}/call-ak AB_OLD=dist/e49eb93-bench.xz AB_REPS=2 \
  AB_ARGS='--suite seed,long,masks --modes graph --iters 30' \
  TEST_FILTER='gpu_grid|gpu_varlen|validation|flashattn_sys' \
  FUZZ_ARGS='--cases 300 --seed 97' \
  scripts/gpu-run.sh ab tests fuzz
o=$(cd "${OUT:-gpu-out}/call-ak" && pwd)
t=$(mktemp -d); tar -xzf "$o/logs.tar.gz" -C "$t" --wildcards './ab-*.json'
(cd "$t" && python3 "$root/docs/benchmarks/2026-11-26-h100-softcap-deferred/ratios.py" > "$o/ratios.txt" 2>&1)
cat "$o/ratios.txt"
xz -dc dist/e49eb93-bench.xz > /tmp/old-bench && chmod +x /tmp/old-bench
for r in 1 2; do
  for side in old new; do
    exe=/tmp/old-bench; [ $side = new ] && exe=dist/gpu/bin/flashattn-bench
    $exe host --suite seed --out "$o/host-$side-$r.json" > /dev/null 2>&1
    echo "host $side $r: rc=$?" >> "$o/summary.txt"
  done
done
[ -x dist/launch_floor ] && dist/launch_floor > "$o/floor.txt" 2>&1
python3 - "$o" <<'PY' | tee "$o/host.txt"
import json, sys
o = sys.argv[1]
def load(f):
    d = json.load(open(f))
    return {(json.dumps(r['shape'], sort_keys=True), r['path']): (r.get('summary') or {}).get('p50', float('nan')) for r in d['results']}
for r in (1, 2):
    a, b = load(f'{o}/host-old-{r}.json'), load(f'{o}/host-new-{r}.json')
    for k in a:
        s = json.loads(k[0])
        print(f"rep {r} {s['dtype']} B{s['batch']} H{s['heads_q']} S{s['seqlen_q']}{' causal' if s['causal'] else ''} {k[1]:20s} old {a[k]:6.2f} us  new {b.get(k, float('nan')):6.2f} us")
PY
