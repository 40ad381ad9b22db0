#!/usr/bin/env bash
# Call F: the combine launched as a programmatic dependent or not (FLASHATTN_DECODE_SERIAL_COMBINE),
# at the split rule's counts and at 64 / 66 parts, same binary, one after the other; then the decode,
# merge and validation tests and the decode sanitizers. From the checkout root on the GPU host.
set -uo pipefail
out=${OUT:-gpu-out}
mkdir -p "$out/pdl"
tar -xJf dist/gpu.txz -C dist
bench=dist/gpu/bin/flashattn-bench
shapes='bf16 B1 H32/8 S1x512 D128 decode,bf16 B1 H32/8 S1x4096 D128 decode,bf16 B8 H32/8 S1x512 D128 decode,bf16 B1 H32/8 S1x32768 D128 decode,bf16 B1 H32/8 S1x4096 D128 decode page16,bf16 B8 H32/8 S1x4096 D128 decode'
for rep in 1; do
  for serial in 0 1; do
    FLASHATTN_DECODE_SERIAL_COMBINE=$serial "$bench" run --suite decode --shapes "$shapes" --modes graph --iters 30 \
      --baseline none --label "serial-$serial" --out "$out/pdl/auto-serial$serial-$rep.json" > "$out/pdl/auto-serial$serial-$rep.log" 2>&1
    for n in 64 66; do
      FLASHATTN_DECODE_SERIAL_COMBINE=$serial "$bench" run --suite decode --shapes 'bf16 B1 H32/8 S1x4096 D128 decode' \
        --modes graph --iters 30 --baseline none --decode-splits $n --label "serial-$serial-splits-$n" \
        --out "$out/pdl/s$n-serial$serial-$rep.json" > "$out/pdl/s$n-serial$serial-$rep.log" 2>&1
    done
  done
done
for f in "$out"/pdl/*.log; do echo "$(basename "$f" .log):"; grep -E '^\[' "$f" | sed 's/^/    /'; done > "$out/pdl.txt"
TEST_FILTER='gpu_decode|gpu_merge|validation' FLASHATTN_DECODE_CASES=300 DECODE_SANITIZER_CASES=30 \
  SANITIZER_TOOLS='memcheck racecheck' OUT="$out/run" scripts/gpu-run.sh tests decode-sanitizer > /dev/null 2>&1
cat "$out/pdl.txt" "$out/run/summary.txt"
