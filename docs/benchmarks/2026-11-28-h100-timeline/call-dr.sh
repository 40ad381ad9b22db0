#!/usr/bin/env bash
# Call DR (after the review): main's build d743eaa (dist/gpu.txz; kernels as 9a7b251's) through
# gpu-run.sh's own steps: ws_short_last_tiles (the walking head-dim-128 cases among them) under
# memcheck, racecheck and synccheck by the test-sanitizer step, whose sanitize function now notes
# the test's cases line (--nocapture), and the grid sanitizer on its small shapes (memcheck only).
# From the checkout root on the GPU host; results in $OUT/call-dr/.
set -uo pipefail
OUT=${OUT:-gpu-out}/call-dr SANITIZE_TEST=ws_short_last_tiles SANITIZER_LIMIT=150 scripts/gpu-run.sh test-sanitizer
OUT=${OUT:-gpu-out}/call-dr-grid SANITIZER_TOOLS=memcheck SANITIZER_LIMIT=120 scripts/gpu-run.sh sanitizer
