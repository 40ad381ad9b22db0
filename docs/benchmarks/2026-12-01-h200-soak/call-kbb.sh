#!/usr/bin/env bash
# Call KBB: compute-sanitizer on fresh seeds (the fuzzer's; decode's and varlen's are fixed), over the same pack as call KBA
# (b1679c5's). Three streams side by side on the one GPU; each sanitizer run is cut at SANITIZER_LIMIT seconds
# (the summary says "time limit" where one was):
# A. the fuzzer's walk preset at short lengths (--small --walks), seed 45: memcheck 400, racecheck 180, synccheck 150;
# B. the fuzzer's small space, seed 46: memcheck 1,500, racecheck 300, synccheck 600; then gpu_decode's random caches:
#    memcheck on 400, racecheck on 120 (the test's fixed seed, so these are its first 400 and 120);
# C. the split-tail preset (--splits: 2,048-5,120 keys, a workspace in every case), seed 47: memcheck 12, racecheck 6,
#    synccheck 6; then gpu_varlen at short lengths, 200 proptest cases, under all three.
set -u
root=${OUT:-gpu-out}; base=$root/call-kbb; mkdir -p "$base"
rm -rf dist/gpu; tar -xJf dist/gpu.txz -C dist
start=$SECONDS
( OUT=$base/walks-san SANITIZER_LIMIT=170 FUZZ_SANITIZER_SEED=45 FUZZ_SANITIZER_ARGS='--small --walks' \
    FUZZ_SANITIZER_CASES='400 180 150' scripts/gpu-run.sh fuzz-sanitizer > /dev/null 2>&1 ) &
(
  OUT=$base/small-san SANITIZER_LIMIT=100 FUZZ_SANITIZER_SEED=46 FUZZ_SANITIZER_ARGS='--small' \
    FUZZ_SANITIZER_CASES='1500 300 600' scripts/gpu-run.sh fuzz-sanitizer > /dev/null 2>&1
  OUT=$base/decode-san SANITIZER_LIMIT=100 SANITIZER_TOOLS=memcheck DECODE_SANITIZER_CASES=400 \
    scripts/gpu-run.sh decode-sanitizer > /dev/null 2>&1
  OUT=$base/decode-race SANITIZER_LIMIT=$((520 - (SECONDS - start))) SANITIZER_TOOLS=racecheck DECODE_SANITIZER_CASES=120 \
    scripts/gpu-run.sh decode-sanitizer > /dev/null 2>&1
) &
(
  OUT=$base/splits-san SANITIZER_LIMIT=110 FUZZ_SANITIZER_SEED=47 FUZZ_SANITIZER_ARGS='--splits' \
    FUZZ_SANITIZER_CASES='12 6 6' scripts/gpu-run.sh fuzz-sanitizer > /dev/null 2>&1
  OUT=$base/varlen-san SANITIZER_LIMIT=$(( (520 - (SECONDS - start)) / 3 )) VARLEN_SANITIZER_CASES=200 \
    scripts/gpu-run.sh varlen-sanitizer > /dev/null 2>&1
) &
wait
echo "call kbb: $((SECONDS - start)) s" > "$base/time.txt"
for s in walks-san small-san decode-san decode-race splits-san varlen-san; do echo "== $s"; cat "$base/$s/summary.txt" 2>/dev/null; done > "$root/call-kbb-summary.txt"
cat "$base/time.txt" >> "$root/call-kbb-summary.txt"
tar -czf "$root/call-kbb.tgz" -C "$root" call-kbb && rm -rf "$base"
cut -c1-260 "$root/call-kbb-summary.txt" | tail -40
