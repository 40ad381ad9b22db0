import json,sys
def load(f):
    out={}
    for r in json.load(open(f))['results']:
        s=dict(r['shape']); mods=s.pop('mods',None) or {}
        base=f"{s['dtype']} B{s['batch']} H{s['heads_q']}/{s['heads_kv']} S{s['seqlen_q']} D{s['head_dim']}{' causal' if s['causal'] else ''}"
        extra={k:v for k,v in s.items() if k not in ('dtype','batch','heads_q','heads_kv','seqlen_q','seqlen_k','head_dim','causal')}
        tag=' '.join(f'{k}={v}' for k,v in sorted({**extra,**mods}.items()) if v not in (None,False))
        out[(base,tag)]=r['summary']['p50']
    return out
runs={side:[load(f'ab-{side}-{i}.json') for i in (1,2)] for side in ('old','new')}
keys=list(runs['old'][0].keys())
print(f"{'shape':44s} {'mods':28s} {'new/old r1':>10s} {'r2':>6s} | {'old mod/plain':>13s} {'new mod/plain':>13s}")
for k in keys:
    base,tag=k
    r=[runs['new'][i][k]/runs['old'][i][k] for i in (0,1)]
    line=f"{base:44s} {tag[:28]:28s} {r[0]:10.3f} {r[1]:6.3f}"
    if tag and (base,'') in runs['old'][0]:
        co=[runs['old'][i][k]/runs['old'][i][(base,'')] for i in (0,1)]
        cn=[runs['new'][i][k]/runs['new'][i][(base,'')] for i in (0,1)]
        line+=f" | {co[0]:6.3f} {co[1]:6.3f} {cn[0]:6.3f} {cn[1]:6.3f}"
    print(line)
