// The C entry points of flashattn.h: the registry of compiled configurations and the dispatch
// from a params struct to one of them. Host code only; the kernels live in the generated
// per-(dtype, head dim) translation units.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cmath>

#include "flashattn.h"
#include "sm80/traits.cuh"
#include "sm90/traits.cuh"

namespace {

using Launcher = FlashAttnStatus (*)(FlashAttnFwdParams *, cudaStream_t);

// max_compute_capability of code that reaches newer GPUs through its PTX.
constexpr int32_t FLASHATTN_ANY_NEWER_CC = 9999;

struct ConfigEntry {
    FlashAttnConfig info;
    Launcher launch;
    bool is_default;  // the built-in choice for its (dtype, head dim) when no config is named
};

// Rows come from the tables in cuda-src/tiles.rs (written out by crates/flashattn-sys/build/), filtered by the build's
// FLASHATTN_HEAD_DIMS / FLASHATTN_DTYPES / FLASHATTN_CUDA_ARCHS, one macro call per line.
// Portable kernel: SASS for every target arch plus PTX of the newest, so it runs from the oldest
// target (FLASHATTN_PORTABLE_MIN_CC, defined by the generated file) to any newer GPU.
#define FLASHATTN_SM80_TRAITS(element, head_dim, block_m, block_n, warps, stages, kv_splits) \
    flashattn::sm80::FwdTraits<element, head_dim, block_m, block_n, warps, stages, kv_splits>
#define FLASHATTN_SM80_CONFIG(id, dtype, element, head_dim, block_m, block_n, warps, stages, kv_splits, name,  \
                              is_default)                                                                   \
    ConfigEntry{{id, dtype, head_dim, block_m, block_n, warps, stages, kv_splits, FLASHATTN_PORTABLE_MIN_CC, FLASHATTN_ANY_NEWER_CC,                   \
                 FLASHATTN_SM80_TRAITS(element, head_dim, block_m, block_n, warps, stages, kv_splits)::kSmemBytes, \
                 name},                                                                                      \
                &flashattn::sm80::launch_fwd<                                                                \
                    FLASHATTN_SM80_TRAITS(element, head_dim, block_m, block_n, warps, stages, kv_splits)>,     \
                is_default},
// Hopper kernel: sm_90a machine code, which runs on compute capability 9.0 only.
#define FLASHATTN_SM90_TRAITS(element, head_dim, block_n, warpgroups, stages) \
    flashattn::sm90::FwdTraits<element, head_dim, block_n, warpgroups, stages>
#define FLASHATTN_SM90_CONFIG(id, dtype, element, head_dim, block_n, warpgroups, stages, name)                      \
    ConfigEntry{{id, dtype, head_dim, FLASHATTN_SM90_TRAITS(element, head_dim, block_n, warpgroups, stages)::kBlockM, \
                 block_n, FLASHATTN_SM90_TRAITS(element, head_dim, block_n, warpgroups, stages)::kWarps, stages, 1, 90, \
                 90, FLASHATTN_SM90_TRAITS(element, head_dim, block_n, warpgroups, stages)::kSmemLaunchBytes, name},    \
                &flashattn::sm90::launch_fwd<FLASHATTN_SM90_TRAITS(element, head_dim, block_n, warpgroups, stages)>,    \
                false},

const ConfigEntry kConfigs[] = {
#include "flashattn_configs.inc"
};
constexpr int kConfigCount = static_cast<int>(sizeof(kConfigs) / sizeof(kConfigs[0]));

bool aligned16(const void *ptr) { return (reinterpret_cast<uintptr_t>(ptr) & 15) == 0; }

// Defence in depth: the Rust layer validates first and with precise messages; this keeps a
// C caller from reaching the kernel with something it cannot handle.
bool params_are_launchable(const FlashAttnFwdParams &p) {
    if (!p.q || !p.k || !p.v || !p.o) return false;
    if (p.batch <= 0 || p.seqlen_q <= 0 || p.seqlen_k <= 0 || p.heads_q <= 0 || p.heads_kv <= 0) return false;
    if (p.heads_q % p.heads_kv != 0) return false;
    // Grid y and z carry heads and batch; the causal tile renumbering counts (head, batch) pairs
    // in 32 bits.
    if (p.heads_q > 65535 || p.batch > 65535) return false;
    if (static_cast<int64_t>(p.heads_q) * p.batch > INT32_MAX) return false;
    if (!(std::isfinite(p.softmax_scale) && p.softmax_scale > 0.f)) return false;
    if (!aligned16(p.q) || !aligned16(p.k) || !aligned16(p.v) || !aligned16(p.o)) return false;
    const int64_t strides[] = {p.q_batch_stride, p.q_row_stride, p.q_head_stride, p.k_batch_stride,
                               p.k_row_stride,   p.k_head_stride, p.v_batch_stride, p.v_row_stride,
                               p.v_head_stride,  p.o_batch_stride, p.o_row_stride,  p.o_head_stride};
    for (int64_t s : strides)
        if (s < 0 || s % 8 != 0) return false;  // 16-byte copies of 2-byte elements
    return true;
}

const ConfigEntry *find_config(const FlashAttnFwdParams &p, FlashAttnStatus *status) {
    if (p.config_id >= 0) {
        if (p.config_id >= kConfigCount) {
            *status = FLASHATTN_STATUS_UNKNOWN_CONFIG;
            return nullptr;
        }
        const ConfigEntry &e = kConfigs[p.config_id];
        if (e.info.dtype != p.dtype || e.info.head_dim != p.head_dim) {
            *status = FLASHATTN_STATUS_UNKNOWN_CONFIG;
            return nullptr;
        }
        return &e;
    }
    const ConfigEntry *first = nullptr;
    bool dtype_known = false;
    for (const ConfigEntry &e : kConfigs) {
        if (e.info.dtype != p.dtype) continue;
        dtype_known = true;
        if (e.info.head_dim != p.head_dim) continue;
        if (e.is_default) return &e;
        if (!first) first = &e;
    }
    if (!first) *status = dtype_known ? FLASHATTN_STATUS_UNSUPPORTED_HEAD_DIM : FLASHATTN_STATUS_UNSUPPORTED_DTYPE;
    return first;
}

}  // namespace

extern "C" {

int32_t flashattn_abi_version(void) { return FLASHATTN_ABI_VERSION; }

int32_t flashattn_fwd_config_count(void) { return kConfigCount; }

FlashAttnStatus flashattn_fwd_config(int32_t id, FlashAttnConfig *out) {
    if (!out || id < 0 || id >= kConfigCount) return FLASHATTN_STATUS_UNKNOWN_CONFIG;
    *out = kConfigs[id].info;
    return FLASHATTN_STATUS_SUCCESS;
}

FlashAttnStatus flashattn_fwd(FlashAttnFwdParams *params, void *stream) {
    if (!params) return FLASHATTN_STATUS_INVALID_PARAMS;
    params->cuda_error = 0;
    params->config_used = -1;
    if (params->dtype != FLASHATTN_DTYPE_F16 && params->dtype != FLASHATTN_DTYPE_BF16)
        return FLASHATTN_STATUS_UNSUPPORTED_DTYPE;
    FlashAttnStatus status = FLASHATTN_STATUS_SUCCESS;
    const ConfigEntry *entry = find_config(*params, &status);
    if (!entry) return status;
    params->config_used = entry->info.id;
    if (params->compute_capability < entry->info.min_compute_capability ||
        params->compute_capability > entry->info.max_compute_capability)
        return FLASHATTN_STATUS_UNSUPPORTED_ARCH;
    if (!params_are_launchable(*params)) return FLASHATTN_STATUS_INVALID_PARAMS;
    return entry->launch(params, static_cast<cudaStream_t>(stream));
}

const char *flashattn_status_string(FlashAttnStatus status) {
    switch (status) {
        case FLASHATTN_STATUS_SUCCESS: return "success";
        case FLASHATTN_STATUS_INVALID_PARAMS: return "invalid parameters";
        case FLASHATTN_STATUS_UNSUPPORTED_HEAD_DIM: return "no kernel compiled for this head dim";
        case FLASHATTN_STATUS_UNSUPPORTED_DTYPE: return "no kernel compiled for this dtype";
        case FLASHATTN_STATUS_UNSUPPORTED_ARCH: return "no compiled kernel supports this compute capability";
        case FLASHATTN_STATUS_UNKNOWN_CONFIG: return "unknown kernel configuration for this dtype and head dim";
        case FLASHATTN_STATUS_CUDA_ERROR: return "CUDA error";
    }
    return "unknown status";
}

const char *flashattn_cuda_error_string(int32_t cuda_error) {
    return cudaGetErrorString(static_cast<cudaError_t>(cuda_error));
}

const char *flashattn_cuda_error_name(int32_t cuda_error) {
    return cudaGetErrorName(static_cast<cudaError_t>(cuda_error));
}

}  // extern "C"
