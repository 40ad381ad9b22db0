#!/usr/bin/env python3
"""The decode tables of ../2026-11-30-h200-decode-key-rows.md from a flashattn-bench report: per
decode shape of any head count and head dim, ours and cuDNN's p50, the K/V bytes read per second,
and that over the copy ceiling of the same run. (../2026-11-26-h100-decode-ring/decode_table.py
reads the decode suite alone: head dim 128, 8 KV heads.)

    python3 decode_table.py call-kaq/bench.json
"""
import json
import sys

report = json.load(open(sys.argv[1]))
copy = report.get('ceilings', {}).get('copy_tbps')
rows = {}
for r in report['results']:
    s = r['shape']
    if r.get('mode') != 'graph' or not r.get('summary') or not s.get('decode'):
        continue
    key = (s['head_dim'], s['heads_q'], s['heads_kv'], s['batch'], s['seqlen_k'],
           s.get('heads_major', False), s.get('page_size') or 0)
    rows.setdefault(key, {})[r['implementation']] = r['summary']
print('copy ceiling TB/s', copy)
print('| head dim | heads | batch | keys | cache | layout | ours p50 us | ours p90 us | KV GB/s | of copy | cuDNN p50 us | cuDNN / ours |')
print('|---:|---|---:|---:|---|---|---:|---:|---:|---:|---:|---:|')
for key in sorted(rows):
    d, hq, hkv, b, sk, heads_major, page = key
    ours, cudnn = rows[key].get('flashattn'), rows[key].get('sdpa-cudnn')
    if not ours:
        continue
    kv_bytes = b * sk * hkv * d * 2 * 2
    gbs = kv_bytes / (ours['p50'] * 1e-3) / 1e9
    print('| %d | %d/%d | %d | %d | %s | %s | %.1f | %.1f | %.0f | %.2f | %s | %s |' % (
        d, hq, hkv, b, sk, 'page %d' % page if page else 'contiguous',
        'heads-major' if heads_major else 'seq-major', ours['p50'] * 1000, ours['p90'] * 1000, gbs,
        gbs / 1000 / copy if copy else 0, '%.1f' % (cudnn['p50'] * 1000) if cudnn else '-',
        '%.2fx' % (cudnn['p50'] / ours['p50']) if cudnn else '-'))
