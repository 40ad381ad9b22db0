#!/usr/bin/env bash
# Call KV: the pack of df5436b (as call KT). The dispatch tables key rows by shape and ignore score modifiers, so a
# softcap or ALiBi call takes the plain call's tile (among those compiled with score modifiers). Here every
# configuration is timed on nine modifier calls of the short and masks suites (flashattn-bench tune; configurations
# without score modifiers fail its correctness check at once, FeatureNotCompiled, and are skipped), and the
# dispatcher's choice on the same calls in the same run, two runs: whether a modifier-aware row would pay.
# Everything lands in $OUT/call-kv.tgz, the summary in $OUT/call-kv-summary.txt.
set -u
root=${OUT:-gpu-out}; base=$root/call-kv
mkdir -p "$base"
rm -rf dist/gpu
tar -xJf dist/gpu.txz -C dist && echo df5436b > dist/gpu/COMMIT
f='f16 B4 H16/16 S512x512 D64' a='bf16 B16 H32/32 S1024x1024 D64' b='bf16 B4 H32/32 S4096x4096 D64'
c='bf16 B8 H16/16 S2048x2048 D128' g='bf16 B2 H32/8 S8192x8192 D128 causal' h='bf16 B2 H8/8 S8192x8192 D256'
shapes="$f softcap30,$f alibi,$a softcap30,$a alibi,$b alibi,$c softcap30,$c alibi,$g softcap30,$h softcap30"
bench=dist/gpu/bin/flashattn-bench
$bench run --suite short,masks --shapes "$shapes" --modes graph --iters 20 --baseline none --out "$base/auto-1.json" \
  > "$base/auto-1.log" 2>&1
OUT=$base/tune TUNE_ARGS='--suite short,masks --iters 20' TUNE_SHAPES="$shapes" scripts/gpu-run.sh tune
$bench run --suite short,masks --shapes "$shapes" --modes graph --iters 20 --baseline none --out "$base/auto-2.json" \
  > "$base/auto-2.log" 2>&1
{
  cat "$base/tune/summary.txt"
  echo "== every configuration's p50 (tune.log)"
  tar -xzf "$base/tune/logs.tar.gz" -O 2>/dev/null | grep -E "^\[[0-9]+/[0-9]+\]" | cut -c1-150
  echo "== the dispatcher, two runs"
  python3 - "$base/auto-1.json" "$base/auto-2.json" <<'PY'
import json, sys
runs = [json.load(open(p))["results"] for p in sys.argv[1:]]
for rs in zip(*runs):
    s = rs[0]["shape"]
    key = f"{s['dtype']} B{s['batch']} H{s['heads_q']}/{s['heads_kv']} S{s['seqlen_q']} D{s['head_dim']}{' causal' if s['causal'] else ''} {s.get('mods')}"
    p50s = " ".join("%.5f" % r["summary"]["p50"] for r in rs if r.get("summary"))
    print(f"  {key:<60} {p50s} ms  {rs[0].get('config')}")
PY
} > "$root/call-kv-summary.txt" 2>&1
tar -czf "$root/call-kv.tgz" -C "$root" call-kv && rm -rf "$base"
cut -c1-170 "$root/call-kv-summary.txt" | tail -120
