#!/usr/bin/env bash
# The standalone probes (cuda-src/probes) still build against the kernels: they are no part of the
# library's build, so a kernel change that breaks them would go unnoticed until a GPU session
# needed them. Builds the timeline probe and the variant A/B probe (this checkout's kernels as two
# variants) into dist/; no GPU needed. Part of scripts/test.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/timeline.sh build
scripts/variant-ab.sh build this=. again=.
