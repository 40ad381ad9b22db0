#!/usr/bin/env bash
# Call KO: the same pack as call KN (0743e1e). The sanitizers and the fuzzer:
# 1. varlen-sanitizer: memcheck and racecheck on gpu_varlen's grid and random cases at short lengths (every
#    configuration; packed calls on the one-tile Hopper tiles by TMA, V past each sequence's keys zeroed in the feed's
#    start, the CTA meeting in a branch every thread takes alike);
# 2. synccheck on gpu_varlen's random cases (60);
# 3. fuzz-sanitizer: racecheck (and memcheck) on the fuzzer's walk preset at Sq, Sk <= 300 over the 18 head-dim-64/128
#    tiles of fwd_kernel.cuh (launches above the SM count: the kernels that store O by TMA);
# 4. the fuzzer's whole space, 300 cases on a new seed (27).
# Everything lands in $OUT/call-ko.tgz, the summaries in $OUT/call-ko-summary.txt.
set -u
root=${OUT:-gpu-out}; base=$root/call-ko
tiles=
for t in bf16 f16; do
  for c in d64_m64n64w4s2 d64_m64n64w4s3 d64_m64n128w4s2 d64_m64n128w4s3 d64_m128n64w8s2 d64_m128n128w8s2 \
    d128_m64n64w4s2 d128_m128n64w8s2 d128_m128n128w8s2; do tiles+=${tiles:+,}sm90_${t}_$c; done
done
OUT=$base/varlen SANITIZER_TOOLS='memcheck racecheck' SANITIZER_LIMIT=130 scripts/gpu-run.sh varlen-sanitizer
OUT=$base/sync FLASHATTN_TEST_SMALL=1 FLASHATTN_VARLEN_CASES=60 SANITIZE_TEST_EXE=fuzz--gpu_varlen \
  SANITIZE_TEST=varlen_kernels_match_reference SANITIZER_TOOLS=synccheck SANITIZER_LIMIT=60 scripts/gpu-run.sh test-sanitizer
OUT=$base/walks FUZZ_SANITIZER_ARGS="--small --walks --config $tiles" FUZZ_SANITIZER_CASES='60 60 0' SANITIZER_LIMIT=70 \
  scripts/gpu-run.sh fuzz-sanitizer
OUT=$base/fuzz FUZZ_ARGS='--cases 300 --seed 27' scripts/gpu-run.sh fuzz
for s in varlen sync walks fuzz; do echo "== $s"; cat "$base/$s/summary.txt"; done > "$root/call-ko-summary.txt"
tar -czf "$root/call-ko.tgz" -C "$root" call-ko && rm -rf "$base"
cut -c1-170 "$root/call-ko-summary.txt" | tail -60
