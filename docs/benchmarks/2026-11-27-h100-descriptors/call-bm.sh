#!/usr/bin/env bash
# Call BM: with the landed kernels (build D, d8ac193), every configuration timed on the two long
# head-dim-128 shapes below issue 12's 1.05x (bf16 B8 H16 S2048, f16 B2 H16 S8192), graph replay,
# 30 samples, two repetitions: whether the table's choice is still the fastest. From the checkout
# root on the GPU host with dist/gpu.txz; results in $OUT/call-bm/.
set -uo pipefail
o=${OUT:-gpu-out}/call-bm; mkdir -p "$o"
[ -d dist/gpu/bin ] || tar -xJf dist/gpu.txz -C dist
shapes='bf16 B8 H16/16 S2048x2048 D128,f16 B2 H16/16 S8192x8192 D128'
for r in 1 2; do
  dist/gpu/bin/flashattn-bench run --suite long --shapes "$shapes" --kernel all --modes graph --iters 30 \
    --baseline none --out "$o/configs-$r.json" > "$o/configs-$r.txt" 2>&1
done
python3 - "$o" <<'PY' | tee "$o/configs.txt"
import json, sys
o = sys.argv[1]
runs = []
for r in (1, 2):
    rows = {}
    for x in json.load(open(f"{o}/configs-{r}.json"))["results"]:
        s = x["shape"]
        key = f"{s['dtype']} B{s['batch']} H{s['heads_q']} S{s['seqlen_q']} D{s['head_dim']}"
        rows[(key, x["implementation"], x.get("config", "?"))] = x["summary"]["p50"]
    runs.append(rows)
for k in sorted(runs[0], key=lambda k: (k[0], runs[0][k])):
    print(f"{k[0]:28s} {k[1][:44]:44s} {runs[0][k]:.4f} {runs[1].get(k, float('nan')):.4f} ms")
PY
