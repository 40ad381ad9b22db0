#!/usr/bin/env bash
# Call I: the two-CTA split rule and the one-round combine (this build) against the owner-lane
# kernel with the old combine and split rule (AB_OLD, e6a6b99's flashattn-bench) on the 27 decode
# shapes, same run, twice; forced split counts on the short and mid caches; the whole decode suite
# beside SDPA; the seed suite's regression gate (the forward kernels, untouched); the decode,
# merge and validation tests (1,000 random caches) and the decode sanitizers. From the checkout
# root on the GPU host; everything lands in one tarball, $OUT/call-i.tgz.
set -uo pipefail
out=${OUT:-gpu-out}/call-i
mkdir -p "$out"
tar -xJf dist/gpu.txz -C dist
old=${AB_OLD:?the previous build of flashattn-bench, .xz}
bin=dist/gpu/bin
shapes=""
for b in 1 8 64; do for s in 512 4096 32768; do for layout in "" " page16" " page256"; do
  shapes+="${shapes:+,}bf16 B$b H32/8 S1x$s D128 decode$layout"
done; done; done
xz -dc "$old" > /tmp/old-bench && chmod +x /tmp/old-bench
for r in 1 2; do
  for side in old new; do
    exe=/tmp/old-bench; [ $side = new ] && exe="$bin/flashattn-bench"
    "$exe" run --suite decode --shapes "$shapes" --modes graph --iters 40 --baseline none --label flashattn \
      --out "$out/ab-$side-$r.json" >> "$out/ab.log" 2>&1 || echo "ab: $side run $r failed" >> "$out/summary.txt"
  done
  "$bin/flashattn-report" compare "$out/ab-old-$r.json" "$out/ab-new-$r.json" > "$out/ab-compare-$r.txt" 2>&1
  echo "ab pair $r: compare exit $? ($(tail -1 "$out/ab-compare-$r.txt"))" >> "$out/summary.txt"
done
SWEEP_SPLITS="2 4 8 16 32 33 64" SWEEP_SHAPES="bf16 B1 H32/8 S1x512 D128 decode,bf16 B1 H32/8 S1x4096 D128 decode,bf16 B1 H32/8 S1x32768 D128 decode,bf16 B8 H32/8 S1x512 D128 decode,bf16 B8 H32/8 S1x4096 D128 decode,bf16 B8 H32/8 S1x32768 D128 decode" OUT="$out" scripts/decode-split-sweep.sh > "$out/sweep.txt" 2>&1
"$bin/flashattn-bench" run --suite decode --modes graph --iters 50 --out "$out/bench.json" > "$out/bench.log" 2>&1
echo "bench: rc=$?" >> "$out/summary.txt"
GATE_ARGS='--suite seed --modes graph --iters 50' OUT="$out/gate" scripts/gpu-run.sh regression > /dev/null 2>&1
TEST_FILTER='gpu_decode|gpu_merge|validation' FLASHATTN_DECODE_CASES=1000 DECODE_SANITIZER_CASES=40 \
  OUT="$out/run" scripts/gpu-run.sh tests decode-sanitizer > /dev/null 2>&1
mkdir -p "$out/run-logs" && tar -xzf "$out/run/logs.tar.gz" -C "$out/run-logs" && rm -f "$out/run/logs.tar.gz"
rm -f "$out"/sweep/*.csv "$out"/*.csv
tar -czf "${OUT:-gpu-out}/call-i.tgz" -C "$(dirname "$out")" call-i
cat "$out/summary.txt"
for r in 1 2; do awk '/^== /{shape=substr($0,4)} /^flashattn /{printf "  %-46s %s %s %s\n", shape, $3, $4, $5}' "$out/ab-compare-$r.txt"; done
grep -E '^splits|^\s+\[' "$out/sweep.txt" | cut -c1-120
cat "$out/run/summary.txt" "$out/gate/summary.txt"
