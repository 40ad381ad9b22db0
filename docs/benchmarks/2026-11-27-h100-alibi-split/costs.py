#!/usr/bin/env python3
"""What each score modifier and mask costs: p50 of the modified shape over the plain shape of the
same dtype, sizes and causality, per flashattn-bench report given (one column per file)."""
import json
import sys


def key(shape):
    return tuple(shape.get(k) for k in ("dtype", "batch", "heads_q", "heads_kv", "seqlen_q", "seqlen_k",
                                         "head_dim", "causal"))


def label(shape):
    mods = shape.get("mods") or {}
    name = ",".join(f"{k}={v}" if v is not True else k for k, v in sorted(mods.items())) or "plain"
    causal = " causal" if shape.get("causal") else ""
    gqa = f"/{shape['heads_kv']}" if shape["heads_kv"] != shape["heads_q"] else ""
    return (f"{shape['dtype']} B{shape['batch']} H{shape['heads_q']}{gqa} S{shape['seqlen_q']} "
            f"D{shape['head_dim']}{causal}", name)


columns, rows = [], {}
for path in sys.argv[1:]:
    results = json.load(open(path))["results"]
    p50 = {}
    for r in results:
        s = r["shape"]
        value = (r.get("summary") or {}).get("p50")
        if value is not None:
            p50[(key(s), label(s))] = value
    plain = {k: v for (k, (_, name)), v in p50.items() if name == "plain"}
    col = {}
    for (k, lab), v in p50.items():
        if lab[1] != "plain" and k in plain:
            col[lab] = v / plain[k]
            rows.setdefault(lab, None)
    columns.append(col)

print("modified / plain p50, one column per report: " + " ".join(sys.argv[1:]))
for lab in sorted(rows, key=lambda l: (l[1], l[0])):
    print(f"  {lab[1]:18s} {lab[0]:36s} " + " ".join(f"{c[lab]:.3f}" if lab in c else "  -  " for c in columns))
