#!/usr/bin/env bash
# Call KBA: a correctness soak of main's kernels on fresh seeds. The pack is
# b1679c5's (dist/gpu.txz; main's HEAD has the same code, only docs after it). Three streams side by side on the
# one GPU (nothing here is timed):
# A. flashattn-fuzz over the whole space: 2,000 cases or 460 s, seed 41;
# B. the walk preset (400 cases or 110 s, seed 42) and the split-tail preset (120 cases or 80 s, seed 43); then gpu_decode's random
#    caches (1,500, the test's fixed seed: its first 200 are the usual run, its first 1,000 earlier long runs') and gpu_varlen (400 proptest cases);
# C. compute-sanitizer on the fuzzer's small space and its walk preset with seed 44 (every earlier sanitizer run
#    of the fuzzer used seed 7): memcheck, racecheck, synccheck.
set -u
root=${OUT:-gpu-out}; base=$root/call-kba; mkdir -p "$base"
rm -rf dist/gpu; tar -xJf dist/gpu.txz -C dist
start=$SECONDS
( OUT=$base/fuzz FUZZ_ARGS='--cases 2000 --seconds 460 --seed 41' timeout 520 scripts/gpu-run.sh fuzz > /dev/null 2>&1 ) &
(
  OUT=$base/presets FUZZ_ARGS='--walks --cases 400 --seconds 110 --seed 42;--splits --cases 120 --seconds 80 --seed 43' \
    timeout 250 scripts/gpu-run.sh fuzz > /dev/null 2>&1
  OUT=$base/tests TEST_FILTER='gpu_decode|gpu_varlen' FLASHATTN_DECODE_CASES=1500 FLASHATTN_VARLEN_CASES=400 \
    timeout $((530 - (SECONDS - start))) scripts/gpu-run.sh tests > /dev/null 2>&1
) &
( OUT=$base/fuzz-san SANITIZER_LIMIT=85 FUZZ_SANITIZER_SEED=44 FUZZ_SANITIZER_CASES='120 50 50' \
    scripts/gpu-run.sh fuzz-sanitizer > /dev/null 2>&1 ) &
wait
echo "call kba: $((SECONDS - start)) s" > "$base/time.txt"
for s in fuzz presets tests fuzz-san; do echo "== $s"; cat "$base/$s/summary.txt" 2>/dev/null; done > "$root/call-kba-summary.txt"
cat "$base/time.txt" >> "$root/call-kba-summary.txt"
tar -czf "$root/call-kba.tgz" -C "$root" call-kba && rm -rf "$base"
grep -vE "^  [a-z_ +:()<=>.0-9%-]+ +[0-9]+ +\(" "$root/call-kba-summary.txt" | cut -c1-220 | tail -70
