// The warp-specialized Hopper tiles the standalone probes run (timeline.cu, variant_entry.cu), by
// name: the head-dim-128 tiles of the H100 table and the head-dim-64 ones that walk persistently.
// Each probe compiles only these, apart from the library (its own nvcc call, sm_90a only).
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstring>

#include "sm90/ws_kernel.cuh"

namespace flashattn::sm90 {
// The cp.async fallback tile is not compiled here: a call that would need it fails instead.
template <typename Traits, Variant kVariant>
FlashAttnStatus launch_fwd(FlashAttnFwdParams *, cudaStream_t) {
    return FLASHATTN_STATUS_UNKNOWN_CONFIG;
}
}  // namespace flashattn::sm90

namespace flashattn::probe {

using Launcher = FlashAttnStatus (*)(FlashAttnFwdParams *, cudaStream_t);

template <typename T, int D, int N, int C, int S>
constexpr Launcher ws = sm90::launch_ws<sm90::WsTraits<T, D, N, C, S>, Variant::kDense, 0>;

struct ProbeTile {
    const char *name;  // the tile's configuration name without dtype and head dim
    int head_dim;
    Launcher f16, bf16;
};
inline constexpr ProbeTile kProbeTiles[] = {
    {"m128n176w12s2ws", 128, ws<__half, 128, 176, 2, 2>, ws<__nv_bfloat16, 128, 176, 2, 2>},
    {"m128n128w12s3ws", 128, ws<__half, 128, 128, 2, 3>, ws<__nv_bfloat16, 128, 128, 2, 3>},
    {"m192n80w16s4ws", 128, ws<__half, 128, 80, 3, 4>, ws<__nv_bfloat16, 128, 80, 3, 4>},
    {"m192n128w16s4ws", 64, ws<__half, 64, 128, 3, 4>, ws<__nv_bfloat16, 64, 128, 3, 4>},
    {"m128n128w12s4ws", 64, ws<__half, 64, 128, 2, 4>, ws<__nv_bfloat16, 64, 128, 2, 4>},
};

// The tile of that name and head dim, or null.
inline const ProbeTile *find_probe_tile(const char *name, int head_dim) {
    for (const ProbeTile &t : kProbeTiles)
        if (std::strcmp(t.name, name) == 0 && t.head_dim == head_dim) return &t;
    return nullptr;
}

}  // namespace flashattn::probe
