#!/usr/bin/env bash
# Call BB: head dim 64's row sums on the tensor cores (P.V as m64n72 with a block of ones; the
# softmax keeps its adds only where LSE is stored). Same-run A/B, graph replay, seed and long
# suites, two repetitions of: main (12d5a33, always LSE) / this build with LSE / this build
# without LSE (--no-lse); then the d64 masks shapes once each way. From the checkout root on the
# GPU host, with dist/gpu.txz and dist/12d5a33-bench.xz carried; results in $OUT/call-bb/.
set -uo pipefail
o=${OUT:-gpu-out}/call-bb; mkdir -p "$o"
[ -d dist/gpu/bin ] || tar -xJf dist/gpu.txz -C dist
B=dist/gpu/bin/flashattn-bench R=dist/gpu/bin/flashattn-report
xz -dc dist/12d5a33-bench.xz > "$o/main-bench" && chmod +x "$o/main-bench"
args=(run --suite seed,long --modes graph --iters 30 --baseline none --label flashattn)
for r in 1 2; do
  "$o/main-bench" "${args[@]}" --out "$o/main-$r.json" >> "$o/ab.log" 2>&1
  $B "${args[@]}" --out "$o/lse-$r.json" >> "$o/ab.log" 2>&1
  $B "${args[@]}" --no-lse --out "$o/nolse-$r.json" >> "$o/ab.log" 2>&1
  $R compare "$o/main-$r.json" "$o/lse-$r.json" > "$o/lse-vs-main-$r.txt" 2>&1
  $R compare "$o/lse-$r.json" "$o/nolse-$r.json" > "$o/nolse-vs-lse-$r.txt" 2>&1
  $R compare "$o/main-$r.json" "$o/nolse-$r.json" > "$o/nolse-vs-main-$r.txt" 2>&1
done
masks='bf16 B16 H32/32 S1024x1024 D64 softcap30,bf16 B4 H32/32 S4096x4096 D64 softcap30'
masks+=',bf16 B16 H32/32 S1024x1024 D64 alibi,bf16 B4 H32/32 S4096x4096 D64 alibi'
masks+=',bf16 B16 H32/32 S1024x1024 D64 sinks,bf16 B4 H32/32 S4096x4096 D64 sinks'
margs=(run --suite masks --shapes "$masks" --modes graph --iters 30 --baseline none --label flashattn)
"$o/main-bench" "${margs[@]}" --out "$o/masks-main.json" >> "$o/ab.log" 2>&1
$B "${margs[@]}" --no-lse --out "$o/masks-nolse.json" >> "$o/ab.log" 2>&1
$R compare "$o/masks-main.json" "$o/masks-nolse.json" > "$o/masks-nolse-vs-main.txt" 2>&1
rm -f "$o/main-bench"
# The short table: per shape, new/old p50 of each comparison (both repetitions).
for c in lse-vs-main nolse-vs-lse nolse-vs-main; do
  echo "== $c"
  paste <(awk '/^== /{shape=substr($0,4)} /^flashattn /{printf "%-44s %s\n", shape, $5}' "$o/$c-1.txt") \
        <(awk '/^flashattn /{print $5}' "$o/$c-2.txt")
  tail -1 "$o/$c-1.txt"; tail -1 "$o/$c-2.txt"
done | tee "$o/ratios.txt"
echo "== masks nolse-vs-main"; awk '/^== /{shape=substr($0,4)} /^flashattn /{printf "%-44s %s\n", shape, $5}' "$o/masks-nolse-vs-main.txt"
