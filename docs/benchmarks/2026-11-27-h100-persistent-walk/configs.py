#!/usr/bin/env python3
"""Per shape, every configuration's graph-replay p50 from `flashattn-bench run --kernel all`
reports, side by side (one column per report), fastest first by the first report.
usage: configs.py REPORT.json [REPORT.json ...]"""
import json, sys

def key(s):
    mods = s.get('mods') or {}
    tag = ' '.join(f'{k}={v}' for k, v in sorted(mods.items()) if v not in (None, False))
    return (f"{s['dtype']} B{s['batch']} H{s['heads_q']}/{s['heads_kv']} S{s['seqlen_q']} "
            f"D{s['head_dim']}{' causal' if s['causal'] else ''} {tag}").strip()

reports = []
for f in sys.argv[1:]:
    table = {}
    for r in json.load(open(f))['results']:
        if r.get('summary') and r['mode'] == 'graph':
            impl = r['implementation']
            name = 'auto=' + (r.get('config') or '?') if impl == 'flashattn' else impl[len('flashattn['):-1]
            table.setdefault(key(r['shape']), {})[name] = r['summary']['p50']
    reports.append(table)
print('columns:', ' | '.join(sys.argv[1:]))
for shape, first in reports[0].items():
    print(f'== {shape}')
    best = min(first.values())
    for name, ms in sorted(first.items(), key=lambda kv: kv[1])[:8]:
        others = ' '.join(f"{t.get(shape, {}).get(name, float('nan')):9.4f}" for t in reports[1:])
        print(f'  {name:42s} {ms:9.4f} {others}  x{ms / best:.3f}')
