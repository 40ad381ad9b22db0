#!/usr/bin/env python3
"""The decode tables of ../2026-11-26-h100-decode-ring.md from a flashattn-bench report:
ours and cuDNN's p50 per decode shape (bf16, head dim 128, 8 KV heads), the K/V bytes read per
second, and that over the copy ceiling of the same run.

    python3 decode_table.py call-e/bench.json
    python3 decode_table.py ../2026-11-26-h100-decode-owner/call-i/bench.json   (the owner page)
"""
import json, sys
d = json.load(open(sys.argv[1]))
copy = d.get('ceilings', {}).get('copy_tbps')
rows = {}
for r in d['results']:
    s = r['shape']; impl = r['implementation']
    if r.get('mode') != 'graph' or not r.get('summary'): continue
    key = (s['batch'], s['seqlen_k'], s.get('page_size'), s.get('heads_major', False))
    rows.setdefault(key, {})[impl] = r['summary']
print('copy ceiling TB/s', copy)
print('| batch | seqlen_k | cache | layout | ours p50 us | ours p90 us | KV GB/s | of copy | cuDNN p50 us | cuDNN / ours |')
print('|---:|---:|---|---|---:|---:|---:|---:|---:|---:|')
for key in sorted(rows, key=lambda k: (k[0], k[1], k[3], k[2] or 0)):
    b, sk, ps, hm = key
    v = rows[key]; o = v.get('flashattn'); c = v.get('sdpa-cudnn')
    if not o: continue
    by = b*sk*8*128*2*2
    gbs = by/(o['p50']*1e-3)/1e9
    cache = 'contiguous' if ps is None else 'page %d' % ps
    cs = '%.1f' % (c['p50']*1000) if c else '-'
    ratio = '%.2fx' % (c['p50']/o['p50']) if c else '-'
    print('| %d | %d | %s | %s | %.1f | %.1f | %.0f | %.2f | %s | %s |' % (b, sk, cache, 'heads-major' if hm else 'seq-major', o['p50']*1000, o['p90']*1000, gbs, gbs/1000/copy if copy else 0, cs, ratio))
