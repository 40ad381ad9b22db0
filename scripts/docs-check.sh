#!/usr/bin/env bash
# What docs.rs does: document the library crates with DOCS_RS set and no CUDA toolkit
# anywhere (no nvcc on PATH, no CUDA_HOME). flashattn-sys then skips the kernel build, and the
# `cuda-13000` feature names the CUDA version cudarc would otherwise ask nvcc for.
set -euo pipefail
cd "$(dirname "$0")/.."
no_cuda_path=$(tr ':' '\n' <<<"$PATH" | grep -v -E 'cuda|cu13' | paste -sd: -)
start=$(date +%s)
env -u NVCC -u CUDA_HOME -u CUDA_PATH -u CUDA_ROOT PATH="$no_cuda_path" DOCS_RS=1 \
    CARGO_TARGET_DIR=target/docs-rs RUSTDOCFLAGS="-D warnings" \
    cargo doc --locked --no-deps -p flashattn-sys -p flashattn -p flashattn-ref --features flashattn/cuda-13000
if PATH="$no_cuda_path" command -v nvcc >/dev/null; then echo "docs-check: nvcc still on PATH" >&2; exit 1; fi
echo "docs-check: documented without nvcc in $(( $(date +%s) - start )) s"
