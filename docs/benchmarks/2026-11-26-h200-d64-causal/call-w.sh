#!/usr/bin/env bash
# Call W (lent H200): the H200 table's head dim 64 rows predate the 192-row three-consumer tile,
# and it has no causal rows beyond S8192 d128. With main's kernels (36f14cf, the bench built with
# the `causal` suite: dist/bench-causal.xz): the tuner over the d64 seed and long shapes and the
# causal suite, then the tuned table against the dispatcher (the committed H200 table and the
# rule), same run, twice. From the checkout root on the GPU host; results in $OUT/call-w/.
set -uo pipefail
[ -d dist/gpu/bin ] || tar -xJf dist/gpu.txz -C dist
report=dist/gpu/bin/flashattn-report
o=${OUT:-gpu-out}/call-w; mkdir -p "$o"; s=$o/summary.txt; : > "$s"
note() { echo "$*" | tee -a "$s"; }
b=/tmp/flashattn-bench-causal; xz -dc dist/bench-causal.xz > "$b" && chmod +x "$b"
note "device: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"
keys="bf16 B16 H32/32 S1024x1024 D64,bf16 B4 H32/32 S4096x4096 D64,f16 B4 H32/32 S4096x4096 D64"
for bh in "1 H8/8" "2 H8/8" "4 H8/8" "4 H16/16" "8 H16/16"; do
  keys+=",f16 B${bh% *} ${bh#* } S512x512 D64,f16 B${bh% *} ${bh#* } S512x512 D64 causal"
done
for d in 64 128; do for sb in "1024 16" "2048 8" "4096 4" "8192 2" "16384 1"; do
  keys+=",bf16 B${sb#* } H16/16 S${sb% *}x${sb% *} D$d causal"
done; done
st=$SECONDS
timeout 500 "$b" tune --suite seed,long,causal --shapes "$keys" --iters 20 --out "$o/dispatch.tsv" > "$o/tune.log" 2>&1
note "tune: rc=$? ($((SECONDS - st)) s)"; grep -v '^#' "$o/dispatch.tsv" | cut -f2-10 | tee -a "$s"
for r in 1 2; do
  "$b" run --suite seed,long,causal --shapes "$keys" --modes graph --iters 30 --baseline none --label flashattn \
    --out "$o/auto-$r.json" >> "$o/ab.log" 2>&1
  FLASHATTN_DISPATCH="$o/dispatch.tsv" "$b" run --suite seed,long,causal --shapes "$keys" --modes graph --iters 30 \
    --baseline none --label flashattn --out "$o/tuned-$r.json" >> "$o/ab.log" 2>&1
  "$report" compare "$o/auto-$r.json" "$o/tuned-$r.json" > "$o/compare-$r.txt" 2>&1
  note "tuned vs dispatcher, repetition $r (new/old = tuned/dispatcher): $(tail -1 "$o/compare-$r.txt")"
  awk '/^== /{shape=substr($0,4)} /^flashattn /{printf "    %-40s %s\n", shape, $5}' "$o/compare-$r.txt" | tee -a "$s"
done
rm -f "$b"
cd "$o" && tar -czf ../call-w.tgz .
