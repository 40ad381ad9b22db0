#!/usr/bin/env bash
# Call G: the owner-lane decode kernel (this build) against the previous one (AB_OLD, 0713e4c's
# flashattn-bench) on 27 decode shapes, same run, twice; the decode suite beside SDPA; Nsight
# Compute of both builds' split kernels on four shapes; then the decode, merge and validation tests
# (1,000 random caches) and the decode sanitizers. From the checkout root on the GPU host.
set -uo pipefail
out=${OUT:-gpu-out}
mkdir -p "$out/ncu"
tar -xJf dist/gpu.txz -C dist
old=${AB_OLD:?the previous build of flashattn-bench, .xz}
shapes=""
for b in 1 8 64; do for s in 512 4096 32768; do for layout in "" " page16" " page256"; do
  shapes+="${shapes:+,}bf16 B$b H32/8 S1x$s D128 decode$layout"
done; done; done
# (gpu-run.sh's ab step splits AB_ARGS on spaces, which the shape keys contain: the A/B is run here.)
xz -dc "$old" > "$out/old-bench" && chmod +x "$out/old-bench"
bin=dist/gpu/bin
for r in 1 2; do
  for side in old new; do
    exe="$out/old-bench"; [ $side = new ] && exe="$bin/flashattn-bench"
    "$exe" run --suite decode --shapes "$shapes" --modes graph --iters 40 --baseline none --label flashattn \
      --out "$out/ab-$side-$r.json" >> "$out/ab.log" 2>&1 || echo "ab: $side run $r failed" >> "$out/ab.log"
  done
  "$bin/flashattn-report" compare "$out/ab-old-$r.json" "$out/ab-new-$r.json" > "$out/ab-compare-$r.txt" 2>&1
  echo "ab pair $r: compare exit $? ($(tail -1 "$out/ab-compare-$r.txt"))" >> "$out/ab-summary.txt"
done
"$bin/flashattn-bench" run --suite decode --modes graph --iters 50 --out "$out/bench.json" > "$out/bench.log" 2>&1
echo "bench: rc=$?" >> "$out/ab-summary.txt"
ncu=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
for shape in 'bf16 B64 H32/8 S1x32768 D128 decode' 'bf16 B64 H32/8 S1x32768 D128 decode page16' \
             'bf16 B8 H32/8 S1x512 D128 decode' 'bf16 B1 H32/8 S1x4096 D128 decode'; do
  tag=$(echo "$shape" | tr -c 'A-Za-z0-9\n' _)
  for side in old new; do
    exe="$out/old-bench"; [ $side = new ] && exe="$bin/flashattn-bench"
    timeout 120 "$ncu" --kernel-name regex:'decode_kernel|combine_kernel' --launch-skip 4 --launch-count 2 \
      --section SpeedOfLight --section WarpStateStats --section SchedulerStats --section Occupancy \
      --section InstructionStats --section LaunchStats \
      "$exe" run --suite decode --shapes "$shape" --modes events --iters 3 --baseline none --out "$out/ncu/x.json" \
      > "$out/ncu/$side-$tag.txt" 2>&1
  done
done
TEST_FILTER='gpu_decode|gpu_merge|validation' FLASHATTN_DECODE_CASES=1000 DECODE_SANITIZER_CASES=40 \
  OUT="$out/run" scripts/gpu-run.sh tests decode-sanitizer > /dev/null 2>&1
cat "$out/ab-summary.txt"
for r in 1 2; do awk '/^== /{shape=substr($0,4)} /^flashattn /{printf "  %-46s %s %s %s\n", shape, $3, $4, $5}' "$out/ab-compare-$r.txt"; done | head -60
cat "$out/run/summary.txt"
for f in "$out"/ncu/*.txt; do echo "$(basename "$f"): $(grep -E 'Duration|Executed Ipc Active|Issue Slots Busy|Memory Throughput' "$f" | head -8 | awk '{$1=$1};1' | tr '\n' ';')"; done | cut -c1-400
