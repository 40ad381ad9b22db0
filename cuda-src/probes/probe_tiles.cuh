// The warp-specialized Hopper tiles the standalone probes run (timeline.cu, variant_entry.cu), by
// name: the head-dim-128 tiles of the H100 table and the head-dim-64 ones that walk persistently;
// with PROBE_FWD_TILES also the one-warpgroup tiles of fwd_kernel.cuh the H200 table gives the
// seed shapes. Each probe compiles only these, apart from the library (its own nvcc call, sm_90a
// only).
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstring>

#include "sm90/ws_kernel.cuh"

#ifdef PROBE_FWD_TILES
// (The warp-specialized tiles' fallbacks are then compiled too.)
#include "sm90/fwd_kernel.cuh"
#else
namespace flashattn::sm90 {
// The cp.async fallback tile is not compiled here: a call that would need it fails instead.
template <typename Traits, Variant kVariant>
FlashAttnStatus launch_fwd(FlashAttnFwdParams *, cudaStream_t) {
    return FLASHATTN_STATUS_UNKNOWN_CONFIG;
}
}  // namespace flashattn::sm90
#endif

namespace flashattn::probe {

using Launcher = FlashAttnStatus (*)(FlashAttnFwdParams *, cudaStream_t);

// A tile's kernel variant (common/features.cuh). The general and score-modifier variants are
// compiled only with PROBE_EVERY_VARIANT (three times the kernels and the build time): the
// timeline probe and a variant A/B of plain or causal calls need the dense one alone.
#ifdef PROBE_EVERY_VARIANT
constexpr bool kEveryVariant = true;
#else
constexpr bool kEveryVariant = false;
#endif
template <typename T, int D, int N, int C, int S, Variant V>
constexpr Launcher ws_launcher() {
    if constexpr (V == Variant::kDense || kEveryVariant)
        return sm90::launch_ws<sm90::WsTraits<T, D, N, C, S>, V, 0>;
    else
        return nullptr;  // not instantiated: its kernel is not compiled
}
template <typename T, int D, int N, int C, int S, Variant V>
constexpr Launcher ws = ws_launcher<T, D, N, C, S, V>();
// A tile of fwd_kernel.cuh: W warpgroups.
template <typename T, int D, int N, int W, int S, Variant V>
constexpr Launcher fwd_launcher() {
    if constexpr (V == Variant::kDense || kEveryVariant)
        return sm90::launch_fwd<sm90::FwdTraits<T, D, N, W, S>, V>;
    else
        return nullptr;
}
template <typename T, int D, int N, int W, int S, Variant V>
constexpr Launcher fwd = fwd_launcher<T, D, N, W, S, V>();

struct ProbeTile {
    const char *name;  // the tile's configuration name without dtype and head dim
    int head_dim;
    // Indexed [bf16]: f16 first.
    Launcher dense[2], general[2], score_mod[2];
};

template <int D, int N, int C, int S>
constexpr ProbeTile tile(const char *name) {
    return {name,
            D,
            {ws<__half, D, N, C, S, Variant::kDense>, ws<__nv_bfloat16, D, N, C, S, Variant::kDense>},
            {ws<__half, D, N, C, S, Variant::kGeneral>, ws<__nv_bfloat16, D, N, C, S, Variant::kGeneral>},
            {ws<__half, D, N, C, S, Variant::kScoreMod>, ws<__nv_bfloat16, D, N, C, S, Variant::kScoreMod>}};
}

template <int D, int N, int W, int S>
constexpr ProbeTile fwd_tile(const char *name) {
    return {name,
            D,
            {fwd<__half, D, N, W, S, Variant::kDense>, fwd<__nv_bfloat16, D, N, W, S, Variant::kDense>},
            {fwd<__half, D, N, W, S, Variant::kGeneral>, fwd<__nv_bfloat16, D, N, W, S, Variant::kGeneral>},
            {fwd<__half, D, N, W, S, Variant::kScoreMod>, fwd<__nv_bfloat16, D, N, W, S, Variant::kScoreMod>}};
}

inline constexpr ProbeTile kProbeTiles[] = {
    tile<128, 176, 2, 2>("m128n176w12s2ws"), tile<128, 128, 2, 3>("m128n128w12s3ws"),
    tile<128, 80, 3, 4>("m192n80w16s4ws"),   tile<64, 128, 3, 4>("m192n128w16s4ws"),
    tile<64, 128, 2, 4>("m128n128w12s4ws"),
#ifdef PROBE_FWD_TILES
    fwd_tile<64, 64, 1, 2>("m64n64w4s2"),    fwd_tile<64, 64, 1, 3>("m64n64w4s3"),
    fwd_tile<64, 128, 1, 2>("m64n128w4s2"),  fwd_tile<64, 128, 1, 3>("m64n128w4s3"),
#endif
};

// The tile of that name and head dim, or null.
inline const ProbeTile *find_probe_tile(const char *name, int head_dim) {
    for (const ProbeTile &t : kProbeTiles)
        if (std::strcmp(t.name, name) == 0 && t.head_dim == head_dim) return &t;
    return nullptr;
}

// What flashattn_fwd does once it has the tile: the causal section, then the variant the call
// needs (variant_for); UNSUPPORTED_FEATURE where this build of the probe has not compiled it.
inline FlashAttnStatus launch_like_fwd(const ProbeTile &t, FlashAttnFwdParams *p, cudaStream_t stream) {
    const int bf16 = p->dtype == FLASHATTN_DTYPE_BF16;
    Launcher launch = nullptr;
    switch (variant_for(*p)) {
        case Variant::kDense: launch = t.dense[bf16]; break;
        case Variant::kGeneral: launch = t.general[bf16]; break;
        case Variant::kScoreMod: launch = t.score_mod[bf16]; break;
    }
    if (launch == nullptr) return FLASHATTN_STATUS_UNSUPPORTED_FEATURE;
    p->causal_section = causal_section(*p);
    return launch(p, stream);
}

}  // namespace flashattn::probe
