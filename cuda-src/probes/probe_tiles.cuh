// The warp-specialized Hopper tiles the standalone probes run (timeline.cu, variant_entry.cu), by
// name: the head-dim-128 tiles of the H100 table and the head-dim-64 ones that walk persistently;
// with PROBE_FWD_TILES also the tiles of fwd_kernel.cuh: the one-warpgroup ones the H200 table
// gives the seed shapes, and the two-warpgroup ones and those of head dims 128 and 256. Each probe compiles only these, apart from the library (its own nvcc call, sm_90a
// only).
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstring>
#include <type_traits>

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
struct ProbeTile {
    const char *name;  // the tile's configuration name without dtype and head dim
    int head_dim;
    // Indexed [bf16]: f16 first.
    Launcher dense[2], general[2], score_mod[2];
};

// The launcher of one kernel: Traits is sm90::WsTraits (ws_kernel.cuh) or sm90::FwdTraits
// (fwd_kernel.cuh), whose parameters read alike (element, head dim, keys, warpgroups, buffers).
template <template <typename, int, int, int, int> class Traits, typename T, int D, int N, int G, int S, Variant V>
constexpr Launcher launcher() {
    using Tile = Traits<T, D, N, G, S>;
    if constexpr (V != Variant::kDense && !kEveryVariant)
        return nullptr;  // not instantiated: its kernel is not compiled
    else if constexpr (std::is_same_v<Tile, sm90::WsTraits<T, D, N, G, S>>)
        return sm90::launch_ws<Tile, V, 0>;
    else
        return sm90::launch_fwd<Tile, V>;
}

template <template <typename, int, int, int, int> class Traits, int D, int N, int G, int S>
constexpr ProbeTile tile(const char *name) {
    using H = __half;
    using B = __nv_bfloat16;
    return {name,
            D,
            {launcher<Traits, H, D, N, G, S, Variant::kDense>(), launcher<Traits, B, D, N, G, S, Variant::kDense>()},
            {launcher<Traits, H, D, N, G, S, Variant::kGeneral>(), launcher<Traits, B, D, N, G, S, Variant::kGeneral>()},
            {launcher<Traits, H, D, N, G, S, Variant::kScoreMod>(),
             launcher<Traits, B, D, N, G, S, Variant::kScoreMod>()}};
}

inline constexpr ProbeTile kProbeTiles[] = {
    tile<sm90::WsTraits, 128, 176, 2, 2>("m128n176w12s2ws"),
    tile<sm90::WsTraits, 128, 128, 2, 3>("m128n128w12s3ws"),
    tile<sm90::WsTraits, 128, 80, 3, 4>("m192n80w16s4ws"),
    tile<sm90::WsTraits, 64, 128, 3, 4>("m192n128w16s4ws"),
    tile<sm90::WsTraits, 64, 128, 2, 4>("m128n128w12s4ws"),
#ifdef PROBE_FWD_TILES
    tile<sm90::FwdTraits, 64, 64, 1, 2>("m64n64w4s2"),
    tile<sm90::FwdTraits, 64, 64, 1, 3>("m64n64w4s3"),
    tile<sm90::FwdTraits, 64, 128, 1, 2>("m64n128w4s2"),
    tile<sm90::FwdTraits, 64, 128, 1, 3>("m64n128w4s3"),
    tile<sm90::FwdTraits, 64, 64, 2, 2>("m128n64w8s2"),
    tile<sm90::FwdTraits, 64, 128, 2, 2>("m128n128w8s2"),
    tile<sm90::FwdTraits, 128, 64, 1, 2>("m64n64w4s2"),
    tile<sm90::FwdTraits, 128, 64, 2, 2>("m128n64w8s2"),
    tile<sm90::FwdTraits, 128, 128, 2, 2>("m128n128w8s2"),
    tile<sm90::FwdTraits, 256, 64, 1, 2>("m64n64w4s2"),
    tile<sm90::FwdTraits, 256, 64, 1, 3>("m64n64w4s3"),
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
