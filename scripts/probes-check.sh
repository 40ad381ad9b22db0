#!/usr/bin/env bash
# The standalone probes (cuda-src/probes) still build against the kernels: they are no part of the
# library's build, so a kernel change that breaks them would go unnoticed until a GPU session
# needed them. Builds the timeline probe and the variant A/B probe (this checkout's kernels as two
# variants) into dist/, and builds and runs the split tail's deal check (host code only); no GPU
# needed. Part of scripts/test.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/timeline.sh build
scripts/variant-ab.sh build this=. again=.
source scripts/setup.sh >/dev/null 2>&1
nvcc -std=c++17 -O2 -Icuda-src -Icuda-src/include -L"$CUDA_HOME/lib" -o dist/split-tail-check \
  cuda-src/probes/split_tail_check.cu
dist/split-tail-check
