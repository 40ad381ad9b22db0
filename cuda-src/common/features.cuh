// The instantiations of each forward configuration, by the runtime inputs they honour. Every
// optional input costs instructions in every CTA whether a call sets it or not (the varlen
// sequence lookup and the 64-bit window bounds in the prologue, the sink's second
// normalisation in the epilogue): on the one-wave S=512 seed grids that per-CTA cost was 4-7%
// of the kernel. So the plain call gets a kernel compiled without any of it, and the
// launcher (api/flashattn_api.cu, select_variant) picks the smallest variant that honours the
// call's inputs. A tile may leave its dense kernel out and run dense calls on the general one,
// where ptxas schedules that faster (tiles.rs, hopper_dense_on_general).
#pragma once

#include "flashattn.h"

namespace flashattn {

enum class Variant {
    kDense,     // one dense batch, causal or not, either alignment; nothing else
    kGeneral,   // plus variable length (cu_seqlens, seqused_k), sliding windows and sinks
    kScoreMod,  // plus softcap and ALiBi (common/mask.cuh), for the tiles marked in tiles.rs
};

// The smallest variant that honours every input of the call: what flashattn_fwd launches (and
// the probes, cuda-src/probes). The causal alignment is a runtime value of every variant.
inline Variant variant_for(const FlashAttnFwdParams &p) {
    if (p.softcap > 0.f || p.alibi_slopes != nullptr) return Variant::kScoreMod;
    const bool general = p.cu_seqlens_q != nullptr || p.window_left >= 0 || p.window_right >= 0 || p.sinks != nullptr;
    return general ? Variant::kGeneral : Variant::kDense;
}

template <Variant V>
struct Features {
    static constexpr bool kVarlen = V != Variant::kDense;
    static constexpr bool kWindow = V != Variant::kDense;
    static constexpr bool kSinks = V != Variant::kDense;
    static constexpr bool kScoreMod = V == Variant::kScoreMod;
    // Whether a call's tensors are packed varlen ones (cu_seqlens set, in a variant that reads
    // them): one batch of every sequence's rows.
    __host__ __device__ __forceinline__ static bool packed(const FlashAttnFwdParams &p) {
        return kVarlen && p.cu_seqlens_q != nullptr;
    }
};

}  // namespace flashattn
