#!/usr/bin/env bash
# Call M: the review's build (combine through merge.cuh's MergeRunning, one ring slot index):
# A/B against 01cc363 (AB_OLD) on the 27 decode shapes; the decode suite beside SDPA; the decode,
# merge and validation tests (1,000 random caches); 300 forward fuzz cases; the decode memcheck and
# racecheck. From the checkout root on the GPU host; results in $OUT/call-m.tgz.
set -uo pipefail
out=${OUT:-gpu-out}/call-m
mkdir -p "$out"
shapes=""
for b in 1 8 64; do for s in 512 4096 32768; do for layout in "" " page16" " page256"; do
  shapes+="${shapes:+,}bf16 B$b H32/8 S1x$s D128 decode$layout"
done; done; done
AB_OLD=${AB_OLD:?the previous build of flashattn-bench, .xz} AB_REPS=1 AB_SHAPES="$shapes" \
  AB_ARGS='--suite decode --modes graph --iters 40' BENCH_ARGS='run --suite decode --modes graph --iters 50' \
  TEST_FILTER='gpu_decode|gpu_merge|validation' FLASHATTN_DECODE_CASES=1000 FUZZ_ARGS='--cases 300 --seed 5' \
  DECODE_SANITIZER_CASES=40 SANITIZER_TOOLS='memcheck racecheck' OUT="$out" \
  scripts/gpu-run.sh ab bench tests fuzz decode-sanitizer > /dev/null 2>&1
cp "$out/bench.json" "$out/bench.md" /tmp/ 2>/dev/null
tar -czf "${OUT:-gpu-out}/call-m.tgz" -C "$(dirname "$out")" call-m
cat "$out/summary.txt" | grep -v '^\s*\[' | head -60
awk '/^== /{shape=substr($0,4)} /^flashattn /{printf "  %-46s %s %s %s\n", shape, $3, $4, $5}' <(tar -xzOf "$out/logs.tar.gz" ./ab-compare-1.txt)
