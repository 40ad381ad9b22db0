#!/usr/bin/env bash
# Call KQ: the same pack as calls KN-KP (0743e1e): validation's feed test (both O stores of the TMA kernel against the
# cp.async kernel, bit for bit) under racecheck with a longer limit (call KP's 60 s cut it). Results in $OUT/call-kq/.
OUT=${OUT:-gpu-out}/call-kq SANITIZE_TEST_EXE=flashattn--validation SANITIZE_TEST=launches_report_their_feed_and_the_feeds_agree \
  SANITIZER_TOOLS=racecheck SANITIZER_LIMIT=170 exec scripts/gpu-run.sh test-sanitizer
