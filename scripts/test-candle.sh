#!/usr/bin/env bash
# crates/flashattn-candle (issue 15) and the candle + flashattn co-build check (issue 11), on a
# machine without a GPU; called by scripts/test.sh. The candle crate is a workspace of its own
# (candle's `cuda` feature makes cudarc link libcuda; see its Cargo.toml), sharing target/.
#
#   scripts/test-candle.sh            # build (candle-kernels' nvcc included), CPU tests, co-build check
set -euo pipefail
cd "$(dirname "$0")/.."
export FLASHATTN_SETUP_CANDLE=1   # link libraries and the stub libcuda, CUDA_COMPUTE_CAP
source scripts/setup.sh
manifest=crates/flashattn-candle/Cargo.toml
# The main workspace's target/ (as crates/flashattn-candle/.cargo/config.toml says for a cargo
# run inside that folder): flashattn-sys's kernels are built once for both.
export CARGO_TARGET_DIR="$PWD/target"
start=$(date +%s)

# One build of every target (the crate, its tests and example, and the co-build check crate):
# each distinct package selection gives candle-kernels' build script another feature set and
# another 12-20 minute nvcc run, so everything below reuses this selection's artifacts.
t=$(date +%s)
cargo build --manifest-path "$manifest" --workspace --all-targets --locked
echo "test-candle.sh: candle-kernels (nvcc, compute cap $CUDA_COMPUTE_CAP), the crate, tests, example and co-build check built in $(( $(date +%s) - t )) s"

# Test binaries need libcuda.so.1 and the CUDA libraries to load: here the stub (every call
# returns CUDA_ERROR_STUB_LIBRARY, so candle finds no device) and the wheels' libraries.
LD_LIBRARY_PATH="$FLASHATTN_CANDLE_LD_LIBRARY_PATH${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
  cargo test --manifest-path "$manifest" --workspace --locked --no-fail-fast

# Issue 11: candle-core 0.11 (`cuda`) and flashattn in one build, on one cudarc. The build above
# compiled flashattn-cobuild-check (a superset of `cargo check`); this confirms what it linked.
versions=$(cargo tree --manifest-path "$manifest" --locked -p flashattn-cobuild-check -i cudarc --depth 0 -e normal 2>&1) || {
  echo "co-build check: more than one cudarc in the build:"; echo "$versions"; exit 1; }
features=$(cargo tree --manifest-path "$manifest" --locked -p flashattn-cobuild-check -e features -i cudarc --depth 1 2>/dev/null \
  | grep -oE 'cudarc feature "[a-z-]+(linking|loading)"' | sort -u | tr '\n' ' ')
echo "co-build check: $versions, linking features: $features- passed"
echo "test-candle.sh: done in $(( $(date +%s) - start )) s"
