#!/usr/bin/env bash
# One-time (idempotent) set-up for a machine without a GPU: a CUDA 13.0 toolkit from
# PyPI wheels and libclang for bindgen. Prints the environment to export; source-able.
#
#   source scripts/setup.sh      # installs what is missing and exports CUDA_HOME, PATH
set -euo pipefail

CUDA_VERSION_TAG=13.0.88
TOOLCHAIN_ROOT="${FLASHATTN_TOOLCHAIN_DIR:-$HOME/.cache/flashattn-rs}"
CUDA_PREFIX="$TOOLCHAIN_ROOT/cuda-$CUDA_VERSION_TAG"
CUDA_ROOT="$CUDA_PREFIX/nvidia/cu13"

log() { printf '[setup] %s\n' "$*" >&2; }

need_sudo() { if [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null; then echo sudo; fi; }

install_libclang() {
    # libclang-cpp is a different library; bindgen loads libclang.so or libclang-NN.so.
    if compgen -G '/usr/lib/llvm-*/lib/libclang.so*' >/dev/null || compgen -G '/usr/lib/*/libclang-[0-9]*.so*' >/dev/null; then
        return
    fi
    log "installing libclang-dev (bindgen needs libclang)"
    local s; s=$(need_sudo)
    $s apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive $s apt-get install -y -qq libclang-dev >/dev/null
}

install_cuda() {
    if [ -x "$CUDA_ROOT/bin/nvcc" ] && [ -f "$CUDA_ROOT/lib/libcudart_static.a" ] && [ -x "$CUDA_ROOT/nvvm/bin/cicc" ]; then
        return
    fi
    log "installing CUDA $CUDA_VERSION_TAG (nvcc, nvvm, crt, runtime, cccl) from PyPI into $CUDA_PREFIX"
    mkdir -p "$CUDA_PREFIX"
    local py; py=$(command -v python3 || command -v python)
    "$py" -m pip install --quiet --disable-pip-version-check --no-deps --target "$CUDA_PREFIX" \
        nvidia-cuda-nvcc==13.0.88 nvidia-nvvm==13.0.88 nvidia-cuda-crt==13.0.88 \
        nvidia-cuda-runtime==13.0.96 nvidia-cuda-cccl==13.0.85
    "$CUDA_ROOT/bin/nvcc" --version | tail -n 2 >&2
}

install_libclang
install_cuda

export CUDA_HOME="$CUDA_ROOT"
export CUDA_PATH="$CUDA_ROOT"
case ":$PATH:" in *":$CUDA_ROOT/bin:"*) ;; *) export PATH="$CUDA_ROOT/bin:$PATH" ;; esac
log "CUDA_HOME=$CUDA_HOME"
