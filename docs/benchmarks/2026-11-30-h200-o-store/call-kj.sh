#!/usr/bin/env bash
# Call KJ: the same pack as call KH (0587210), racecheck on gpu_varlen's whole grid at short lengths
# (varlen_grid_every_config: every configuration on the length mixes, 228 of its 658 cases fed by TMA), with the
# rest of this session's device time as its limit. Results in $OUT/call-kj/.
OUT=${OUT:-gpu-out}/call-kj FLASHATTN_TEST_SMALL=1 \
  SANITIZE_TEST_EXE=fuzz--gpu_varlen SANITIZE_TEST=varlen_grid_every_config \
  SANITIZER_TOOLS='racecheck' SANITIZER_LIMIT=270 \
  exec scripts/gpu-run.sh test-sanitizer
