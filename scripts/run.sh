#!/usr/bin/env bash
# The main job: on a GPU, a short correctness and timing report for a few shapes; without
# one, a one-line notice and the CPU reference on a small problem.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
exec cargo run --release --locked -q -p flashattn-fuzz --bin flashattn-selftest
