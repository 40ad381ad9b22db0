#!/usr/bin/env bash
# Call KAX: the same pack as calls KAV and KAW (b1679c5), and flashattn-candle's GPU tests built from the same
# commit (CANDLE_PACK_TXZ=1 FLASHATTN_CUDA_ARCHS=90a scripts/candle-gpu-pack.sh: dist/candle.txz, the test binary
# alone), two gpu-run.sh runs side by side on the one GPU (nothing here times anything):
# A. candle: flashattn-candle's GPU tests (candle's tensors through the safe layer, which now checks each buffer's
#    context against the stream's); then the fuzzer: 1,200 cases of the whole space, the walk and split-tail
#    presets (60 s each), new seeds;
# B. compute-sanitizer: racecheck and synccheck on gpu_merge, synccheck on 40 random decode caches, memcheck and
#    racecheck on the fuzzer's walk preset at short lengths.
set -u
root=${OUT:-gpu-out}; base=$root/call-kax; mkdir -p "$base"
# dist/gpu-kax.txz: the pack's flashattn-fuzz, gpu_merge and gpu_decode alone (with dist/candle.txz, the
# whole pack would pass the 64 MiB carry limit).
rm -rf dist/gpu dist/candle; tar -xJf dist/gpu-kax.txz -C dist
start=$SECONDS
(
  OUT=$base/candle scripts/gpu-run.sh candle > /dev/null 2>&1
  OUT=$base/fuzz FUZZ_ARGS='--cases 1200 --seed 32;--walks --seconds 60 --seed 33;--splits --seconds 60 --seed 34' timeout $((540 - (SECONDS - start))) scripts/gpu-run.sh fuzz > /dev/null 2>&1
) &
(
  OUT=$base/merge-san SANITIZER_TOOLS='racecheck synccheck' SANITIZER_LIMIT=60 SANITIZE_TEST_EXE=fuzz--gpu_merge \
    SANITIZE_TEST=merged_halves_match_attention_over_all_keys scripts/gpu-run.sh test-sanitizer > /dev/null 2>&1
  OUT=$base/decode-san SANITIZER_TOOLS=synccheck SANITIZER_LIMIT=60 DECODE_SANITIZER_CASES=40 \
    scripts/gpu-run.sh decode-sanitizer > /dev/null 2>&1
  OUT=$base/walk-san SANITIZER_LIMIT=100 FUZZ_SANITIZER_ARGS='--small --walks' FUZZ_SANITIZER_CASES='60 30 30' \
    scripts/gpu-run.sh fuzz-sanitizer > /dev/null 2>&1
) &
wait
echo "call kax: $((SECONDS - start)) s" > "$base/time.txt"
for s in candle fuzz merge-san decode-san walk-san; do echo "== $s"; cat "$base/$s/summary.txt" 2>/dev/null; done > "$root/call-kax-summary.txt"
cat "$base/time.txt" >> "$root/call-kax-summary.txt"
tar -czf "$root/call-kax.tgz" -C "$root" call-kax && rm -rf "$base"
grep -vE "^  [a-z_ +:()<=>.0-9%-]+ +[0-9]+ +\(" "$root/call-kax-summary.txt" | cut -c1-220 | tail -70
