#!/usr/bin/env bash
# Times the decode suite's short and mid caches at forced split counts (flashattn-bench
# --decode-splits) beside the launch layer's own count, to check decode_splits' rule.
# Runs on the GPU host after scripts/gpu-run.sh has unpacked dist/gpu; writes to $OUT/sweep.
set -uo pipefail
cd "$(dirname "$0")/.."
bench=dist/gpu/bin/flashattn-bench
out=${OUT:-gpu-out}/sweep
mkdir -p "$out"
shapes=${SWEEP_SHAPES:-bf16 B1 H32/8 S1x512 D128 decode,bf16 B1 H32/8 S1x4096 D128 decode,bf16 B8 H32/8 S1x512 D128 decode,bf16 B8 H32/8 S1x4096 D128 decode,bf16 B1 H32/8 S1x32768 D128 decode}
for n in auto ${SWEEP_SPLITS:-2 4 8 16 32 64 128}; do
  split=(); [ "$n" = auto ] || split=(--decode-splits "$n")
  "$bench" run --suite decode --shapes "$shapes" --modes graph --iters 30 --baseline none "${split[@]}" \
    --label "splits-$n" --out "$out/splits-$n.json" > "$out/splits-$n.log" 2>&1
  echo "splits $n:"; grep -E '^\[' "$out/splits-$n.log" | sed 's/^/    /'
done
