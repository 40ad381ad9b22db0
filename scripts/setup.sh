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

# For crates/flashattn-candle only (called by scripts/test.sh and scripts/candle-gpu-pack.sh):
# candle-core's `cuda` feature builds cudarc with `dynamic-linking`, so every test or example
# binary links libcuda, libcublas, libcublasLt, libcurand and libnvrtc, and candle-kernels links
# libcudart. This puts, into the toolkit above, where a CUDA install has them (cudarc's and
# candle-kernels' builds search $CUDA_HOME/lib and $CUDA_HOME/lib/stubs):
# - lib/: the real cuBLAS, cuRAND and NVRTC 13.0 libraries, from their PyPI wheels (only the
#   shared libraries are unpacked), plus the unversioned names the linker looks for;
# - lib/stubs/: a generated libcuda.so.1 exporting every driver entry point of the toolkit's
#   cuda.h, each returning CUDA_ERROR_STUB_LIBRARY (34). No package these machines reach has the
#   driver library. Only a `dynamic-linking` build searches lib/stubs, so the main workspace
#   (cudarc loads libcuda at run time there) never sees it.
# Exports FLASHATTN_CANDLE_LD_LIBRARY_PATH (stubs, then lib), for running the candle crate's CPU
# tests here: the stub's cuInit fails, so candle reports no device; on a GPU host the driver's
# libcuda and PyTorch's CUDA libraries are used instead (scripts/gpu-run.sh candle).
CANDLE_WHEELS="nvidia-cublas==13.0.2.14 nvidia-curand==10.4.0.35 nvidia-cuda-nvrtc==13.0.88"
CANDLE_LIBS="libcublas.so.13 libcublasLt.so.13 libcurand.so.10 libnvrtc.so.13 libnvrtc-builtins.so.13.0"

flashattn_setup_candle() {
    local lib="$CUDA_ROOT/lib" stubs="$CUDA_ROOT/lib/stubs" missing=0 f
    for f in $CANDLE_LIBS; do [ -f "$lib/$f" ] || missing=1; done
    if [ $missing = 1 ]; then
        log "installing cuBLAS, cuRAND, NVRTC 13.0 shared libraries (for the candle crate's link) into $lib"
        local tmp; tmp=$(mktemp -d)
        # shellcheck disable=SC2086
        python3 -m pip download --quiet --disable-pip-version-check --no-deps -d "$tmp" $CANDLE_WHEELS
        # Unpack only the libraries: the wheels' headers and the alternative NVRTC build are unused.
        python3 - "$tmp" "$lib" $CANDLE_LIBS <<'PY'
import glob, os, sys, zipfile
tmp, lib, wanted = sys.argv[1], sys.argv[2], set(sys.argv[3:])
for whl in glob.glob(os.path.join(tmp, "*.whl")):
    with zipfile.ZipFile(whl) as z:
        for info in z.infolist():
            name = os.path.basename(info.filename)
            if name in wanted:
                dst = os.path.join(lib, name)
                with z.open(info) as src, open(dst + ".part", "wb") as out:
                    while chunk := src.read(1 << 20):
                        out.write(chunk)
                os.chmod(dst + ".part", 0o755)
                os.replace(dst + ".part", dst)
PY
        rm -rf "$tmp"
    fi
    # The linker's -lNAME wants libNAME.so; the wheels ship only the versioned files.
    for f in libcublas.so.13 libcublasLt.so.13 libcurand.so.10 libnvrtc.so.13 libcudart.so.13; do
        [ -f "$lib/$f" ] && ln -sfn "$f" "$lib/${f%%.so.*}.so"
    done
    if [ ! -f "$stubs/libcuda.so.1" ] || [ "$stubs/libcuda.so.1" -ot "$CUDA_ROOT/include/cuda.h" ]; then
        log "generating the stub driver library $stubs/libcuda.so.1"
        mkdir -p "$stubs"
        local work; work=$(mktemp -d)
        # Every driver entry point, under the names cudarc binds (cuda.h maps cuMemAlloc to cuMemAlloc_v2
        # and so on; the per-thread-stream build adds the _ptds/_ptsz names).
        { gcc -E -P -x c "$CUDA_ROOT/include/cuda.h"
          gcc -E -P -x c -DCUDA_API_PER_THREAD_DEFAULT_STREAM "$CUDA_ROOT/include/cuda.h"
          # The wheels carry no cudaProfiler.h; its entry points are named by their typedefs.
          cat "$CUDA_ROOT/include/cudaProfilerTypedefs.h"; } \
            | python3 -c '
import re, sys
text = sys.stdin.read()
names = set(re.findall(r"\bCUresult\s+(cu[A-Za-z0-9_]+)\s*\(", text))
names |= set(re.findall(r"\bPFN_(cuProfiler[A-Za-z]+)_v[0-9]+\b", text))
print("/* Generated by scripts/setup.sh: CUDA driver stub for linking without a GPU. */")
print("#define STUB_LIBRARY 34 /* CUDA_ERROR_STUB_LIBRARY */")
for n in sorted(names):
    print(f"int {n}(void) {{ return STUB_LIBRARY; }}")
' > "$work/libcuda_stub.c"
        gcc -shared -fPIC -O1 -Wl,-soname,libcuda.so.1 -o "$work/libcuda.so.1" "$work/libcuda_stub.c"
        mv "$work/libcuda.so.1" "$stubs/libcuda.so.1"
        ln -sfn libcuda.so.1 "$stubs/libcuda.so"
        log "stub exports $(grep -c '^int ' "$work/libcuda_stub.c") driver entry points"
        rm -rf "$work"
    fi
    export FLASHATTN_CANDLE_LD_LIBRARY_PATH="$stubs:$lib"
    # candle-kernels compiles for CUDA_COMPUTE_CAP or asks nvidia-smi (absent here): the lent
    # GPU is an H100.
    export CUDA_COMPUTE_CAP="${CUDA_COMPUTE_CAP:-90}"
}

# For scripts/sass-diff.sh only: cuobjdump and the nvdisasm it runs, which the toolkit above leaves
# out. No 13.0 wheel of them exists; 13.2's read 13.0's sm_80 and sm_90a objects.
flashattn_setup_cuobjdump() {
    if [ ! -x "$CUDA_ROOT/bin/cuobjdump" ] || [ ! -x "$CUDA_ROOT/bin/nvdisasm" ]; then
        log "installing cuobjdump and nvdisasm 13.2 into $CUDA_ROOT/bin"
        local tmp tool; tmp=$(mktemp -d)
        python3 -m pip install --quiet --disable-pip-version-check --no-deps --target "$tmp" \
            nvidia-cuda-cuobjdump==13.2.51 nvidia-cuda-nvdisasm==13.2.51
        for tool in cuobjdump nvdisasm; do
            cp "$tmp/nvidia/cu13/bin/$tool" "$CUDA_ROOT/bin/$tool.part"
            mv "$CUDA_ROOT/bin/$tool.part" "$CUDA_ROOT/bin/$tool"
        done
        rm -rf "$tmp"
    fi
}

install_libclang
install_cuda

export CUDA_HOME="$CUDA_ROOT"
export CUDA_PATH="$CUDA_ROOT"
case ":$PATH:" in *":$CUDA_ROOT/bin:"*) ;; *) export PATH="$CUDA_ROOT/bin:$PATH" ;; esac
log "CUDA_HOME=$CUDA_HOME"
if [ "${FLASHATTN_SETUP_CANDLE:-0}" = 1 ]; then flashattn_setup_candle; fi
