#!/usr/bin/env bash
# The whole test suite on a machine without a GPU (what CI runs): installs the CUDA toolkit
# and libclang if missing, builds every crate (kernels included), runs every test. GPU tests
# are reported as ignored here; on a GPU host add `-- --include-ignored` or use gpu-run.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
start=$(date +%s)
cargo build --workspace --all-targets --locked
cargo test --workspace --locked --no-fail-fast "$@"
scripts/docs-check.sh
echo "test.sh: done in $(( $(date +%s) - start )) s"
