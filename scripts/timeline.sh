#!/usr/bin/env bash
# The timeline probe (cuda-src/probes/timeline.cu): where a warp-specialized tile's time goes
# outside its key loop, per CTA and tile, in SM clock cycles.
#
# Here (no GPU): build the probe, sm_90a only, into dist/timeline (half a minute a tile):
#   scripts/timeline.sh build
# On the GPU host (no Rust, no nvcc needed), from the checkout root: run it on each
# "CONFIG DTYPE BATCH HEADS SEQLEN HEAD_DIM" and report (python3):
#   OUT=out scripts/timeline.sh run "m128n176w12s2ws bf16 8 16 2048 128" "m128n176w12s2ws bf16 2 16 8192 128"
# writes OUT/timeline-<shape>.bin, the report of each (scripts/timeline-report.py) beside it,
# and the reports one after another on stdout.
set -euo pipefail
cd "$(dirname "$0")/.."
case "${1:-}" in
build)
  source scripts/setup.sh
  mkdir -p dist
  start=$(date +%s)
  nvcc -std=c++17 -O3 -lineinfo -gencode=arch=compute_90a,code=sm_90a -DFLASHATTN_TIMELINE \
    -Icuda-src -Icuda-src/include -Xptxas=-warn-spills -L"$CUDA_HOME/lib" \
    -o dist/timeline cuda-src/probes/timeline.cu
  echo "dist/timeline built in $(( $(date +%s) - start )) s"
  ;;
run)
  shift
  out=${OUT:?set OUT to the output folder}
  mkdir -p "$out"
  for spec in "$@"; do
    read -r config dtype batch heads seqlen head_dim <<<"$spec"
    name="timeline-$config-$dtype-B$batch-H$heads-S$seqlen-D$head_dim"
    dist/timeline "$out/$name.bin" $spec | tee "$out/$name.txt"
    python3 scripts/timeline-report.py "$out/$name.bin" | tee -a "$out/$name.txt"
  done
  ;;
*)
  sed -n '2,12p' "$0" >&2
  exit 2
  ;;
esac
