#!/usr/bin/env bash
# Call CB: main (4fa06ad's kernels, dist/gpu.txz) on the masks and long suites, ours only (graph
# replay, 30 samples, two runs): what each score modifier and mask costs against the plain shape
# (issue 14). From the checkout root on the GPU host; results in $OUT/call-cb/.
set -uo pipefail
o=${OUT:-gpu-out}/call-cb; mkdir -p "$o"
[ -d dist/gpu/bin ] || tar -xJf dist/gpu.txz -C dist
for r in 1 2; do
  timeout 100 dist/gpu/bin/flashattn-bench run --suite masks,long --modes graph --iters 30 --baseline none \
    --out "$o/masks-$r.json" > "$o/masks-$r.log" 2>&1
  echo "run $r rc=$?" >> "$o/times.txt"
done
rm -f "$o"/*.csv
python3 - "$o" <<'PY' | tee "$o/summary.txt"
import json, sys
o = sys.argv[1]
for r in (1, 2):
    try:
        res = json.load(open(f"{o}/masks-{r}.json"))["results"]
    except (OSError, ValueError) as e:
        print(f"run {r}: {e}"); continue
    print(f"== run {r}: p50 ms, config")
    for x in res:
        s = x["shape"]; p50 = (x.get("summary") or {}).get("p50")
        print(f"  {json.dumps({k: v for k, v in s.items() if v not in (None, False, 0) or k in ('causal',)}, sort_keys=True)[:150]:150s} {p50}  {x.get('config')}")
PY
