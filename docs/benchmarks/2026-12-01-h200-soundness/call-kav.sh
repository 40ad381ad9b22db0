#!/usr/bin/env bash
# Call KAV: the pack of b1679c5 (main at 5f5f4d8, the soundness and kernel-unit commits of the fifty-seventh session,
# plus wip/merge-lse-in-place.patch applied: the merge kernel's LSEs read by lane 0 and shuffled to the warp), the
# correctness half, two gpu-run.sh runs side by side on the one GPU (the tests do not time anything):
# A. tests: every GPU test of the pack (validation's new test: buffers of a non-primary context refused, cudarc's
#    parked driver errors reported; gpu_merge's in-place merge; gpu_decode; gpu_grid; gpu_varlen; ...);
# B. fuzz: 150 cases of the whole space on a new seed; then compute-sanitizer: memcheck on gpu_merge, memcheck and
#    racecheck on 40 random decode caches, memcheck, racecheck and synccheck on the fuzzer's small space.
# Here: FLASHATTN_CUDA_ARCHS=90a scripts/gpu-pack.sh in a worktree at b1679c5 (dist/gpu.txz).
set -u
root=${OUT:-gpu-out}; base=$root/call-kav; mkdir -p "$base"
rm -rf dist/gpu; tar -xJf dist/gpu.txz -C dist
start=$SECONDS
( OUT=$base/tests timeout 540 scripts/gpu-run.sh tests > "$base/tests.out" 2>&1 ) &
(
  OUT=$base/fuzz FUZZ_ARGS='--cases 150 --seed 31' scripts/gpu-run.sh fuzz > /dev/null 2>&1
  OUT=$base/merge-san SANITIZER_TOOLS=memcheck SANITIZER_LIMIT=60 SANITIZE_TEST_EXE=fuzz--gpu_merge \
    SANITIZE_TEST=merged_halves_match_attention_over_all_keys scripts/gpu-run.sh test-sanitizer > /dev/null 2>&1
  OUT=$base/decode-san SANITIZER_TOOLS='memcheck racecheck' SANITIZER_LIMIT=75 DECODE_SANITIZER_CASES=40 \
    scripts/gpu-run.sh decode-sanitizer > /dev/null 2>&1
  OUT=$base/fuzz-san SANITIZER_LIMIT=80 FUZZ_SANITIZER_ARGS='--small' \
    FUZZ_SANITIZER_CASES='150 60 30' scripts/gpu-run.sh fuzz-sanitizer > /dev/null 2>&1
) &
wait
echo "call kav: $((SECONDS - start)) s" > "$base/time.txt"
for s in tests fuzz merge-san decode-san fuzz-san; do echo "== $s"; cat "$base/$s/summary.txt" 2>/dev/null; done > "$root/call-kav-summary.txt"
cat "$base/time.txt" >> "$root/call-kav-summary.txt"
tar -czf "$root/call-kav.tgz" -C "$root" call-kav && rm -rf "$base"
grep -vE "^  [a-z_ +:()<=>.0-9%-]+ +[0-9]+ +\(" "$root/call-kav-summary.txt" | cut -c1-220 | tail -70
