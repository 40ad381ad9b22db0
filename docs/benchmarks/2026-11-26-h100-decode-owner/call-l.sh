#!/usr/bin/env bash
# Call L (experiment, branch decode-deep-ring, run as commit 6772b54 after 8326e42 failed its tests:
# the combine launch inherited the split kernel's 64 KB of dynamic shared memory): the decode ring eight steps deep (64 KB of dynamic
# shared memory a CTA) against four (01cc363, AB_OLD) on the 27 decode shapes, same run, twice;
# then the decode tests (300 random caches) and the decode memcheck and racecheck. From the
# checkout root on the GPU host; results in $OUT/call-l.tgz.
set -uo pipefail
out=${OUT:-gpu-out}/call-l
mkdir -p "$out"
shapes=""
for b in 1 8 64; do for s in 512 4096 32768; do for layout in "" " page16" " page256"; do
  shapes+="${shapes:+,}bf16 B$b H32/8 S1x$s D128 decode$layout"
done; done; done
AB_OLD=${AB_OLD:?the previous build of flashattn-bench, .xz} AB_REPS=2 AB_SHAPES="$shapes" \
  AB_ARGS='--suite decode --modes graph --iters 40' OUT="$out/ab" scripts/gpu-run.sh ab > /dev/null 2>&1
TEST_FILTER='gpu_decode|gpu_merge' FLASHATTN_DECODE_CASES=300 DECODE_SANITIZER_CASES=20 \
  SANITIZER_TOOLS='memcheck racecheck' OUT="$out/run" scripts/gpu-run.sh tests decode-sanitizer > /dev/null 2>&1
mkdir -p "$out/ab-logs" && tar -xzf "$out/ab/logs.tar.gz" -C "$out/ab-logs" && rm -f "$out/ab/logs.tar.gz" "$out"/ab-logs/ab-old-bench "$out"/ab-logs/*.csv
rm -f "$out/run/logs.tar.gz"
tar -czf "${OUT:-gpu-out}/call-l.tgz" -C "$(dirname "$out")" call-l
cat "$out/ab/summary.txt"
for r in 1 2; do awk '/^== /{shape=substr($0,4)} /^flashattn /{printf "  %-46s %s %s %s\n", shape, $3, $4, $5}' "$out/ab-logs/ab-compare-$r.txt"; done
cat "$out/run/summary.txt"
