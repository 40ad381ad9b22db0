#!/usr/bin/env bash
# Call KAR: forced split counts on the pack of 882d2e8 (dist/gpu.txz, as call KAQ) for the shapes
# the split rule may still serve badly: batch 1 x 512 keys (16 parts of 32 keys, the rule's floor;
# 32 parts would be one 16-key block each), batch 8 x 512, batch 1 x 4096 (33 parts by the rule
# beside 32), and head dim 64 at batch 1 x 32768 and batch 8 x 4096 (0.73 of the copy ceiling).
set -u
root=${OUT:-gpu-out}; base=$root/call-kar; mkdir -p "$base"
rm -rf dist/gpu
tar -xJf dist/gpu.txz -C dist
bin=dist/gpu/bin
shapes='bf16 B1 H32/8 S1x512 D128 decode,bf16 B1 H32/8 S1x512 D128 decode page16,bf16 B8 H32/8 S1x512 D128 decode,bf16 B1 H32/8 S1x4096 D128 decode,bf16 B1 H32/8 S1x32768 D64 decode,bf16 B8 H32/8 S1x4096 D64 decode'
for rep in 1 2; do
  for n in 4 8 16 32 33 64 128; do
    "$bin/flashattn-bench" run --suite decode,decode-dims --shapes "$shapes" --modes graph --iters 50 --baseline none \
      --decode-splits $n --label "splits$n" --out "$base/r$rep-splits$n.json" > "$base/r$rep-splits$n.log" 2>&1
  done
  "$bin/flashattn-bench" run --suite decode,decode-dims --shapes "$shapes" --modes graph --iters 50 --baseline none \
    --out "$base/r$rep-auto.json" > "$base/r$rep-auto.log" 2>&1
done
python3 - "$base" > "$base/summary.txt" <<'PY'
import glob, json, os, re, sys
rows = {}
for f in sorted(glob.glob(os.path.join(sys.argv[1], "*.json"))):
    rep, label = re.match(r"r(\d)-(\w+)\.json", os.path.basename(f)).groups()
    for r in json.load(open(f))["results"]:
        s = r["shape"]
        key = f"D{s['head_dim']} B{s['batch']} S{s['seqlen_k']}" + (f" page{s['page_size']}" if s.get("page_size") else "")
        if r.get("summary"):
            rows.setdefault(key, {}).setdefault(label, []).append(r["summary"]["p50"] * 1e3)
order = lambda kv: (kv[0] != "auto", int("0" + "".join(c for c in kv[0] if c.isdigit())))
for key, v in rows.items():
    print(f"{key:22}", " ".join(f"{n}={'/'.join(f'{us:.2f}' for us in t)}" for n, t in sorted(v.items(), key=order)))
PY
cp "$base/summary.txt" "$root/call-kar-summary.txt"
tar -czf "$root/call-kar.tgz" -C "$root" call-kar && rm -rf "$base"
cat "$root/call-kar-summary.txt"
