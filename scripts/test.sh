#!/usr/bin/env bash
# The whole test suite on a machine without a GPU (what CI runs): installs the CUDA toolkit
# and libclang if missing, builds every crate (kernels included), runs every test. GPU tests
# are reported as ignored here; on a GPU host add `-- --include-ignored` or use gpu-run.sh.
# Then scripts/test-candle.sh: the candle crate (about 25 min more on a clean machine, most of it
# candle-kernels' nvcc; see docs/build.md).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
start=$(date +%s)
cargo build --workspace --all-targets --locked
cargo test --workspace --locked --no-fail-fast "$@"
# The SDPA baseline script's torch-free helpers (shape keys, suite file, cold sets, --warm-ms).
python3 crates/flashattn-bench/python/sdpa_baseline.py --self-test
# gpu-run.sh's summary of a failed sanitizer run, on sample reports.
python3 scripts/sanitizer-findings.py --self-test
scripts/docs-check.sh
# The timeline and variant A/B probes still build against the kernels (sm_90a, about 2 min).
scripts/probes-check.sh
# scripts/sass-diff.sh tells identical machine code from different (installs cuobjdump; seconds).
scripts/sass-diff.sh --self-test target
# No warp-specialized kernel spills (each has no stack frame; seconds).
scripts/ws-stack-check.sh "${CARGO_TARGET_DIR:-target}"
# crates/flashattn-candle is a workspace of its own (candle's `cuda` feature must not reach the
# crates above): its build, CPU tests and the candle + flashattn co-build check.
# FLASHATTN_SKIP_CANDLE=1 leaves it out.
if [ "${FLASHATTN_SKIP_CANDLE:-0}" != 1 ]; then scripts/test-candle.sh; fi
echo "test.sh: done in $(( $(date +%s) - start )) s"
