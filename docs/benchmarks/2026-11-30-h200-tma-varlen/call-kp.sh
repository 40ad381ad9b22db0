#!/usr/bin/env bash
# Call KP: the same pack as calls KN and KO (0743e1e); what call KO left short:
# 1. racecheck on gpu_varlen's random cases (120; KO's racecheck spent its 130 s on the grid, clean, and was cut in
#    these) and synccheck on the varlen grid (658 cases, 228 packed by TMA: the CTA meets in the feed's start after
#    zeroing V, in a branch every thread takes alike);
# 2. validation's feed test (both O stores of the TMA kernel, now two kernels, against the cp.async kernel, bit for
#    bit; head dims 64-256, 2 and 40 heads) under memcheck and racecheck;
# 3. the fuzzer's whole space, 300 more cases on a new seed (28).
# Everything lands in $OUT/call-kp.tgz, the summaries in $OUT/call-kp-summary.txt.
set -u
root=${OUT:-gpu-out}; base=$root/call-kp
OUT=$base/race FLASHATTN_TEST_SMALL=1 FLASHATTN_VARLEN_CASES=120 SANITIZE_TEST_EXE=fuzz--gpu_varlen \
  SANITIZE_TEST=varlen_kernels_match_reference SANITIZER_TOOLS=racecheck SANITIZER_LIMIT=90 scripts/gpu-run.sh test-sanitizer
OUT=$base/sync FLASHATTN_TEST_SMALL=1 SANITIZE_TEST_EXE=fuzz--gpu_varlen \
  SANITIZE_TEST=varlen_grid_every_config SANITIZER_TOOLS=synccheck SANITIZER_LIMIT=90 scripts/gpu-run.sh test-sanitizer
OUT=$base/feed SANITIZE_TEST_EXE=flashattn--validation SANITIZE_TEST=launches_report_their_feed_and_the_feeds_agree \
  SANITIZER_TOOLS='memcheck racecheck' SANITIZER_LIMIT=60 scripts/gpu-run.sh test-sanitizer
OUT=$base/fuzz FUZZ_ARGS='--cases 300 --seed 28' scripts/gpu-run.sh fuzz
for s in race sync feed fuzz; do echo "== $s"; cat "$base/$s/summary.txt"; done > "$root/call-kp-summary.txt"
tar -czf "$root/call-kp.tgz" -C "$root" call-kp && rm -rf "$base"
grep -E "^==|sanitizer|fuzz \(" "$root/call-kp-summary.txt" | cut -c1-250
