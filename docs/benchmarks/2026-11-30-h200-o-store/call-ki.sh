#!/usr/bin/env bash
# Call KI: the same pack as call KH (0587210), racecheck and synccheck on gpu_varlen's random cases at short lengths
# (call KH's racecheck of the whole varlen grid ran past its 80 s limit): varlen_kernels_match_reference, 120 cases
# over every configuration (the one-tile-per-CTA Hopper tiles among them, now fed by TMA, zeroing V past each
# sequence's keys). Results in $OUT/call-ki/.
OUT=${OUT:-gpu-out}/call-ki FLASHATTN_TEST_SMALL=1 FLASHATTN_VARLEN_CASES=120 \
  SANITIZE_TEST_EXE=fuzz--gpu_varlen SANITIZE_TEST=varlen_kernels_match_reference \
  SANITIZER_TOOLS='racecheck synccheck' SANITIZER_LIMIT=150 \
  exec scripts/gpu-run.sh test-sanitizer
