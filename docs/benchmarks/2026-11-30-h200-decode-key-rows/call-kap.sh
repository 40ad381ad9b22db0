#!/usr/bin/env bash
# Call KAP: the pack of ccbc15d on branch decode-keys (dist/gpu.txz: the tensor-core decode kernel
# with the keys as the MMA rows, rings of K or V buffers, four CTAs an SM) and main's
# flashattn-bench (dist/old-bench.xz: `xz -c` of the bench in the pack of 4d1974f, whose decode
# kernels main keeps; 85a8e44 compiles to the same SASS):
# 1. tests: gpu_decode (1,000 random caches, forced and automatic split counts), gpu_merge;
# 2. decode-sanitizer: memcheck, racecheck, synccheck on 60 random caches each;
# 3. ab: the decode suite, main's build against the branch's, two pairs (orders alternate);
# 4. bench: the decode suite beside PyTorch SDPA;
# 5. sweep: forced split counts (how many CTAs an SM the split rule should size the grid for).
set -u
root=${OUT:-gpu-out}; base=$root/call-kap; mkdir -p "$base/sweep"
rm -rf dist/gpu
tar -xJf dist/gpu.txz -C dist
bin=dist/gpu/bin
OUT=$base/tests TEST_FILTER='gpu_decode|gpu_merge' FLASHATTN_DECODE_CASES=1000 scripts/gpu-run.sh tests > /dev/null
OUT=$base/sanitizer SANITIZER_LIMIT=100 scripts/gpu-run.sh decode-sanitizer > /dev/null
OUT=$base/ab AB_OLD=dist/old-bench.xz AB_REPS=2 AB_ARGS='--suite decode --modes graph --iters 50' \
  scripts/gpu-run.sh ab > /dev/null
OUT=$base/bench BENCH_ARGS='run --suite decode --modes graph --iters 50' scripts/gpu-run.sh bench > /dev/null
shapes='bf16 B1 H32/8 S1x4096 D128 decode,bf16 B1 H32/8 S1x32768 D128 decode,bf16 B8 H32/8 S1x512 D128 decode,bf16 B8 H32/8 S1x4096 D128 decode,bf16 B8 H32/8 S1x32768 D128 decode,bf16 B8 H32/8 S1x32768 D128 decode page16,bf16 B64 H32/8 S1x4096 D128 decode,bf16 B64 H32/8 S1x32768 D128 decode'
for n in 1 2 4 8 16 32 64; do
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
    print(f"{key:16}", " ".join(f"{n}={us:.2f}" for n, us in sorted(v.items(), key=lambda kv: (kv[0] != 'auto', int('0' + ''.join(c for c in kv[0] if c.isdigit()))))))
PY
for s in tests sanitizer ab bench sweep; do echo "== $s"; cat "$base/$s/summary.txt"; done > "$root/call-kap-summary.txt"
tar -czf "$root/call-kap.tgz" -C "$root" call-kap && rm -rf "$base"
grep -E "pooled|SLOWER|inconclusive|test |decode:|errors|hazards|^B[0-9]" "$root/call-kap-summary.txt" | cut -c1-200 | tail -60
