#!/usr/bin/env bash
# Call V: the new `causal` suite (bf16, 16 heads, head dims 64 and 128, S1024-16384 at 16384
# tokens a call) with main's kernels (36f14cf, built with the suite: dist/bench-causal.xz):
# beside PyTorch's SDPA backends with the dispatcher's choice; the tuner over every
# configuration on it; the tuned table against the dispatcher's choice, same run, twice.
# From the checkout root on the GPU host; results in $OUT/call-v/.
set -uo pipefail
[ -d dist/gpu/bin ] || tar -xJf dist/gpu.txz -C dist
report=dist/gpu/bin/flashattn-report
o=${OUT:-gpu-out}/call-v; mkdir -p "$o"; s=$o/summary.txt; : > "$s"
note() { echo "$*" | tee -a "$s"; }
b=/tmp/flashattn-bench-causal; xz -dc dist/bench-causal.xz > "$b" && chmod +x "$b"
note "device: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"
st=$SECONDS
timeout 400 "$b" run --suite causal --modes graph --iters 30 --out "$o/causal-sdpa.json" > "$o/causal-sdpa.log" 2>&1
note "causal suite beside SDPA: rc=$? ($((SECONDS - st)) s)"
grep -A14 "== mode graph" "$o/causal-sdpa.log" | sed 's/^/    /' | tee -a "$s"
st=$SECONDS
timeout 400 "$b" tune --suite causal --iters 20 --out "$o/dispatch.tsv" > "$o/tune.log" 2>&1
note "tune: rc=$? ($((SECONDS - st)) s)"; grep -v '^#' "$o/dispatch.tsv" | cut -f2-10 | tee -a "$s"
for r in 1 2; do
  "$b" run --suite causal --modes graph --iters 30 --baseline none --label flashattn --out "$o/auto-$r.json" >> "$o/ab.log" 2>&1
  FLASHATTN_DISPATCH="$o/dispatch.tsv" "$b" run --suite causal --modes graph --iters 30 --baseline none --label flashattn \
    --out "$o/tuned-$r.json" >> "$o/ab.log" 2>&1
  "$report" compare "$o/auto-$r.json" "$o/tuned-$r.json" > "$o/compare-$r.txt" 2>&1
  note "tuned vs dispatcher, repetition $r (new/old = tuned/dispatcher): $(tail -1 "$o/compare-$r.txt")"
  awk '/^== /{shape=substr($0,4)} /^flashattn /{printf "    %-40s %s\n", shape, $5}' "$o/compare-$r.txt" | tee -a "$s"
done
rm -f "$b"
