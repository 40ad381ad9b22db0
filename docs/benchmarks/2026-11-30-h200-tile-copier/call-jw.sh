#!/usr/bin/env bash
# Call JW: the rest of the fuzzer's default run on the landed build (the pack of e415cda; call JR
# ran its whole space): the --walks and --splits presets, 90 s each on new seeds, and the walk
# preset's small space under memcheck, racecheck and synccheck. Their warp-specialized kernels did
# not change in this session (last run on eb5dd93's pack); this closes the default run on one build.
# Results in $OUT/call-jw/ (summary.txt, printed last).
OUT=${OUT:-gpu-out}/call-jw FUZZ_ARGS='--walks --seconds 90 --seed 12;--splits --seconds 90 --seed 13' \
  FUZZ_SANITIZER_ARGS='--small --walks' FUZZ_SANITIZER_CASES='100 40 60' SANITIZER_LIMIT=40 \
  exec scripts/gpu-run.sh fuzz fuzz-sanitizer
