#!/usr/bin/env bash
# Call KAJ: decode on the H200 for the first time, on the pack of e3fb985 (dist/gpu.txz, last session's; its decode
# kernels, launcher and bench are main's: `git diff d497988 6a7fb10 -- cuda-src/decode
# cuda-src/common crates/flashattn/src/decode.rs` is empty, and e3fb985 branched after d497988):
# 1. bench: the decode suite (54 caches) beside PyTorch SDPA, graph replay;
# 2. sweep: the two 16 MB caches (B1 x 4096 keys, B8 x 512) and B1 x 32768 with the key range
#    forced into 1..64 parts (--decode-splits), graph replay;
# 3. profile: Nsight Compute of both decode kernels on the two 16 MB caches.
# Everything lands in $OUT/call-kaj.tgz, the summaries in $OUT/call-kaj-summary.txt.
set -u
root=${OUT:-gpu-out}; base=$root/call-kaj; mkdir -p "$base/sweep"
rm -rf dist/gpu
tar -xJf dist/gpu.txz -C dist
bin=dist/gpu/bin
OUT=$base/bench BENCH_ARGS='run --suite decode --modes graph --iters 50' scripts/gpu-run.sh bench > /dev/null
shapes='bf16 B1 H32/8 S1x4096 D128 decode,bf16 B8 H32/8 S1x512 D128 decode,bf16 B1 H32/8 S1x32768 D128 decode,bf16 B1 H32/8 S1x4096 D128 decode page16,bf16 B8 H32/8 S1x512 D128 decode page16'
for n in 1 2 4 8 16 24 32 48 64; do
  "$bin/flashattn-bench" run --suite decode --shapes "$shapes" --modes graph --iters 50 --baseline none \
    --decode-splits $n --label "splits$n" --out "$base/sweep/splits$n.json" > "$base/sweep/splits$n.log" 2>&1
done
"$bin/flashattn-bench" run --suite decode --shapes "$shapes" --modes graph --iters 50 --baseline none \
  --out "$base/sweep/auto.json" > "$base/sweep/auto.log" 2>&1
python3 - "$base/sweep" > "$base/sweep/summary.txt" <<'PY'
import glob, json, os, sys
rows = {}
for f in sorted(glob.glob(os.path.join(sys.argv[1], "*.json"))):
    for r in json.load(open(f))["results"]:
        s = r["shape"]
        key = f"B{s['batch']} S{s['seqlen_k']}" + (f" page{s['page_size']}" if s.get("page_size") else "")
        if r.get("summary"):
            rows.setdefault(key, {})[os.path.basename(f)[:-5]] = r["summary"]["p50"] * 1e3
for key, v in rows.items():
    print(f"{key:16}", " ".join(f"{n}={us:.2f}" for n, us in sorted(v.items(), key=lambda kv: kv[0])))
PY
OUT=$base/profile PROFILE_SUITES=decode \
  PROFILE_SHAPES='bf16 B8 H32/8 S1x512 D128 decode;bf16 B1 H32/8 S1x4096 D128 decode' scripts/gpu-run.sh profile > /dev/null
for s in bench sweep profile; do echo "== $s"; cat "$base/$s/summary.txt"; done > "$root/call-kaj-summary.txt"
tar -czf "$root/call-kaj.tgz" -C "$root" call-kaj && rm -rf "$base"
cut -c1-200 "$root/call-kaj-summary.txt" | tail -90
