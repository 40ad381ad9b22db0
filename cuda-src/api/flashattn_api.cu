// The C entry points of flashattn.h: the registry of compiled configurations and the dispatch
// from a params struct to one of them. Host code only; the kernels live in the generated
// per-(dtype, head dim) translation units.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cmath>
#include <initializer_list>

#include "common/tile_work.cuh"
#include "common/walk_deal.cuh"
#include "flashattn.h"
#include "sm80/traits.cuh"
#include "sm90/traits.cuh"

namespace {

using Launcher = FlashAttnStatus (*)(FlashAttnFwdParams *, cudaStream_t);

// max_compute_capability of code that reaches newer GPUs through its PTX.
constexpr int32_t FLASHATTN_ANY_NEWER_CC = 9999;

// One configuration's launchers, one per variant (common/features.cuh).
struct ConfigEntry {
    FlashAttnConfig info;
    Launcher launch_dense;    // one dense batch, causal or not (the general kernel on some tiles)
    Launcher launch_general;  // plus variable length, windows and sinks
    Launcher launch_mod;      // plus softcap and ALiBi, or null where the tile table leaves it out
    bool is_default;          // the built-in choice for its (dtype, head dim) when no config is named
};

// Rows come from the tables in cuda-src/tiles.rs (written out by crates/flashattn-sys/build/), filtered by the build's
// FLASHATTN_HEAD_DIMS / FLASHATTN_DTYPES / FLASHATTN_CUDA_ARCHS, one macro call per line.
// score_mods (0 or 1) says whether the generated files also instantiate the configuration's
// softcap/ALiBi kernel; only then is its launcher named, so no undefined symbol is left behind.
#define FLASHATTN_LAUNCHER(kernel, variant, ...) &flashattn::kernel::launch_fwd<__VA_ARGS__, flashattn::Variant::variant>
// dense (0 or 1) says whether the tile has its own dense kernel; without one, dense calls run
// the general kernel (tiles.rs, hopper_dense_on_general).
#define FLASHATTN_LAUNCHERS(kernel, score_mods, dense, ...)                                      \
    FLASHATTN_DENSE_LAUNCHER_##dense(kernel, __VA_ARGS__), FLASHATTN_LAUNCHER(kernel, kGeneral, __VA_ARGS__), \
        FLASHATTN_MOD_LAUNCHER_##score_mods(kernel, __VA_ARGS__)
#define FLASHATTN_DENSE_LAUNCHER_0(kernel, ...) FLASHATTN_LAUNCHER(kernel, kGeneral, __VA_ARGS__)
#define FLASHATTN_DENSE_LAUNCHER_1(kernel, ...) FLASHATTN_LAUNCHER(kernel, kDense, __VA_ARGS__)
#define FLASHATTN_MOD_LAUNCHER_0(kernel, ...) nullptr
#define FLASHATTN_MOD_LAUNCHER_1(kernel, ...) FLASHATTN_LAUNCHER(kernel, kScoreMod, __VA_ARGS__)
// Portable kernel: SASS for every target arch plus PTX of the newest, so it runs from the oldest
// target (FLASHATTN_PORTABLE_MIN_CC, defined by the generated file) to any newer GPU.
#define FLASHATTN_SM80_TRAITS(element, head_dim, block_m, block_n, warps, stages, kv_splits) \
    flashattn::sm80::FwdTraits<element, head_dim, block_m, block_n, warps, stages, kv_splits>
#define FLASHATTN_SM80_CONFIG(id, dtype, element, head_dim, block_m, block_n, warps, stages, kv_splits, name,  \
                              is_default, score_mods)                                                       \
    ConfigEntry{{id, dtype, head_dim, block_m, block_n, warps, stages, kv_splits, FLASHATTN_PORTABLE_MIN_CC, FLASHATTN_ANY_NEWER_CC,                   \
                 FLASHATTN_SM80_TRAITS(element, head_dim, block_m, block_n, warps, stages, kv_splits)::kSmemBytes, \
                 score_mods, name},                                                                          \
                FLASHATTN_LAUNCHERS(sm80, score_mods, 1,                                                     \
                    FLASHATTN_SM80_TRAITS(element, head_dim, block_m, block_n, warps, stages, kv_splits)),   \
                is_default},
// Hopper kernel: sm_90a machine code, which runs on compute capability 9.0 only.
#define FLASHATTN_SM90_TRAITS(element, head_dim, block_n, warpgroups, stages) \
    flashattn::sm90::FwdTraits<element, head_dim, block_n, warpgroups, stages>
#define FLASHATTN_SM90_CONFIG(id, dtype, element, head_dim, block_n, warpgroups, stages, name, score_mods, dense)   \
    ConfigEntry{{id, dtype, head_dim, FLASHATTN_SM90_TRAITS(element, head_dim, block_n, warpgroups, stages)::kBlockM, \
                 block_n, FLASHATTN_SM90_TRAITS(element, head_dim, block_n, warpgroups, stages)::kWarps, stages, 1, 90, \
                 90, FLASHATTN_SM90_TRAITS(element, head_dim, block_n, warpgroups, stages)::kSmemLaunchBytes,          \
                 score_mods, name},                                                                                  \
                FLASHATTN_LAUNCHERS(sm90, score_mods, dense,                                                         \
                    FLASHATTN_SM90_TRAITS(element, head_dim, block_n, warpgroups, stages)),                          \
                false},

// Warp-specialized Hopper kernel: all three variants of its own; a call whose tensors no tensor
// map describes runs on its fallback tile's kernel of the same variant (sm90/traits.cuh,
// WsTraits::Fallback, registry id fallback_id), so it takes every call.
#define FLASHATTN_SM90_WS_TRAITS(element, head_dim, block_n, consumers, stages) \
    flashattn::sm90::WsTraits<element, head_dim, block_n, consumers, stages>
#define FLASHATTN_SM90_WS_LAUNCHER(variant, fallback_id, ...) \
    &flashattn::sm90::launch_ws<__VA_ARGS__, flashattn::Variant::variant, fallback_id>
#define FLASHATTN_SM90_WS_CONFIG(id, dtype, element, head_dim, block_n, consumers, stages, name, fallback_id)     \
    ConfigEntry{                                                                                                     \
        {id, dtype, head_dim, FLASHATTN_SM90_WS_TRAITS(element, head_dim, block_n, consumers, stages)::kBlockM,       \
         block_n, FLASHATTN_SM90_WS_TRAITS(element, head_dim, block_n, consumers, stages)::kWarps, stages, 1, 90, 90, \
         FLASHATTN_SM90_WS_TRAITS(element, head_dim, block_n, consumers, stages)::kSmemLaunchBytes, 1, name},         \
        FLASHATTN_SM90_WS_LAUNCHER(kDense, fallback_id,                                                              \
                                   FLASHATTN_SM90_WS_TRAITS(element, head_dim, block_n, consumers, stages)),         \
        FLASHATTN_SM90_WS_LAUNCHER(kGeneral, fallback_id,                                                            \
                                   FLASHATTN_SM90_WS_TRAITS(element, head_dim, block_n, consumers, stages)),         \
        FLASHATTN_SM90_WS_LAUNCHER(kScoreMod, fallback_id,                                                           \
                                   FLASHATTN_SM90_WS_TRAITS(element, head_dim, block_n, consumers, stages)),         \
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
    // The kernels' key and row arithmetic is 32-bit with up to a tile of slack past a length
    // (common/mask.cuh); the Rust layer's MAX_SEQLEN is the same bound.
    constexpr int32_t kMaxSeqlen = INT32_MAX - 1024;
    if (p.seqlen_q > kMaxSeqlen || p.seqlen_k > kMaxSeqlen || p.total_q > kMaxSeqlen || p.total_k > kMaxSeqlen)
        return false;
    // Grid y and z carry heads and batch; the causal tile renumbering counts (head, batch) pairs
    // in 32 bits.
    if (p.heads_q > 65535 || p.batch > 65535) return false;
    if (static_cast<int64_t>(p.heads_q) * p.batch > INT32_MAX) return false;
    if (!(std::isfinite(p.softmax_scale) && p.softmax_scale > 0.f)) return false;
    // Masks and score modifiers: windows are -1 (unbounded) or a size; the softcap is 0 (off) or
    // a finite positive cap; the per-head f32 vectors are 4-byte aligned.
    if (p.window_left < -1 || p.window_right < -1) return false;
    if (p.causal_top_left != 0 && p.causal_top_left != 1) return false;
    if (!(std::isfinite(p.softcap) && p.softcap >= 0.f)) return false;
    if ((reinterpret_cast<uintptr_t>(p.alibi_slopes) & 3) != 0 || (reinterpret_cast<uintptr_t>(p.sinks) & 3) != 0)
        return false;
    // Variable length: both prefix sums or neither; seqused_k only with them; 4-byte aligned
    // int32 vectors and at least one packed row each (their contents are the caller's contract,
    // and the kernels clamp them into the tensors).
    if ((p.cu_seqlens_q == nullptr) != (p.cu_seqlens_k == nullptr)) return false;
    if (p.seqused_k && !p.cu_seqlens_q) return false;
    if (p.cu_seqlens_q && (p.total_q <= 0 || p.total_k <= 0)) return false;
    for (const int32_t *vec : {p.cu_seqlens_q, p.cu_seqlens_k, p.seqused_k})
        if ((reinterpret_cast<uintptr_t>(vec) & 3) != 0) return false;
    if (!aligned16(p.q) || !aligned16(p.k) || !aligned16(p.v) || !aligned16(p.o)) return false;
    const int64_t strides[] = {p.q_batch_stride, p.q_row_stride, p.q_head_stride, p.k_batch_stride,
                               p.k_row_stride,   p.k_head_stride, p.v_batch_stride, p.v_row_stride,
                               p.v_head_stride,  p.o_batch_stride, p.o_row_stride,  p.o_head_stride};
    for (int64_t s : strides)
        if (s < 0 || s % 8 != 0) return false;  // 16-byte copies of 2-byte elements
    return true;
}

// Whether the call needs the score-modifier kernel: softcap or ALiBi.
bool needs_score_mods(const FlashAttnFwdParams &p) { return flashattn::variant_for(p) == flashattn::Variant::kScoreMod; }

// The launcher of `entry` for the call's variant (find_config has checked that the
// score-modifier one exists when it is needed).
Launcher select_variant(const ConfigEntry &entry, const FlashAttnFwdParams &p) {
    switch (flashattn::variant_for(p)) {
        case flashattn::Variant::kScoreMod: return entry.launch_mod;
        case flashattn::Variant::kGeneral: return entry.launch_general;
        case flashattn::Variant::kDense: break;
    }
    return entry.launch_dense;
}

const ConfigEntry *find_config(const FlashAttnFwdParams &p, FlashAttnStatus *status) {
    const bool mods = needs_score_mods(p);
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
        if (mods && !e.launch_mod) {
            *status = FLASHATTN_STATUS_UNSUPPORTED_FEATURE;
            return nullptr;
        }
        return &e;
    }
    // The default of this (dtype, head dim), else its first configuration; with score
    // modifiers only configurations that have them count.
    const ConfigEntry *first = nullptr;
    bool dtype_known = false, head_dim_known = false;
    for (const ConfigEntry &e : kConfigs) {
        if (e.info.dtype != p.dtype) continue;
        dtype_known = true;
        if (e.info.head_dim != p.head_dim) continue;
        head_dim_known = true;
        if (mods && !e.launch_mod) continue;
        if (e.is_default) return &e;
        if (!first) first = &e;
    }
    if (!first)
        *status = !dtype_known      ? FLASHATTN_STATUS_UNSUPPORTED_DTYPE
                  : !head_dim_known ? FLASHATTN_STATUS_UNSUPPORTED_HEAD_DIM
                                    : FLASHATTN_STATUS_UNSUPPORTED_FEATURE;
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
    params->schedule_used = FLASHATTN_SCHEDULE_TILE_PER_CTA;  // a walking launcher says otherwise
    params->feed_used = FLASHATTN_FEED_CP_ASYNC;               // and a TMA-fed one
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
    params->causal_section = flashattn::causal_section(*params);
    return select_variant(*entry, *params)(params, static_cast<cudaStream_t>(stream));
}

int64_t flashattn_fwd_workspace_floats(int32_t head_dim, int32_t sm_count) {
    if (head_dim <= 0 || sm_count <= 0) return 0;
    return flashattn::split_tail_workspace_floats(head_dim, sm_count);
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
        case FLASHATTN_STATUS_UNSUPPORTED_FEATURE:
            return "softcap or ALiBi asked of a configuration compiled without score modifiers";
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
