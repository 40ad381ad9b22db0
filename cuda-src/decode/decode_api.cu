// flashattn_decode (flashattn.h): host-side checks and the dispatch to the (dtype, head dim)
// launchers that the generated instantiation files compile (decode_kernel.cuh).
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "decode/common.cuh"
#include "flashattn.h"

namespace flashattn::decode {

template <typename Element, int kHeadDim>
FlashAttnStatus launch_decode(FlashAttnDecodeParams *p, cudaStream_t stream);

namespace {

bool aligned16(const void *ptr) { return (reinterpret_cast<uintptr_t>(ptr) & 15) == 0; }

// Defence in depth for C callers; the Rust layer validates first, with precise errors.
bool launchable(const FlashAttnDecodeParams &p) {
    if (!p.q || !p.k || !p.v || !p.o) return false;
    if (p.batch <= 0 || p.batch > 65535 || p.seqlen_q <= 0 || p.seqlen_k < 0 || p.heads_q <= 0 || p.heads_kv <= 0 ||
        p.heads_q % p.heads_kv != 0 || p.num_splits <= 0 || p.num_splits > 65535)
        return false;
    const int64_t row_blocks = (int64_t{p.heads_q / p.heads_kv} * p.seqlen_q + kRowsPerCta - 1) / kRowsPerCta;
    if (row_blocks * p.heads_kv > 65535) return false;
    // The combine kernel's grid is one CTA a query row.
    if (int64_t{p.batch} * p.heads_q * p.seqlen_q > INT32_MAX) return false;
    // The split kernel's key arithmetic is 32-bit: a split's share rounded up to whole blocks,
    // its end, and the keys of its warps' last blocks past that end (the last split's furthest).
    const int64_t share = (int64_t{p.seqlen_k} + p.num_splits - 1) / p.num_splits;
    const int64_t per_split = (share + kBlockKeys - 1) / kBlockKeys * kBlockKeys;
    const int64_t last_begin = std::min((p.num_splits - int64_t{1}) * per_split, int64_t{p.seqlen_k});
    if (int64_t{p.seqlen_k} + p.num_splits - 1 > INT32_MAX || last_begin + per_split + kWarps * kBlockKeys > INT32_MAX)
        return false;
    if (p.num_splits > 1 && !p.workspace) return false;
    if (p.block_table && (p.page_size <= 0 || p.page_size % kBlockKeys != 0 || p.num_pages <= 0)) return false;
    if (!aligned16(p.q) || !aligned16(p.k) || !aligned16(p.v) || !aligned16(p.o) || !aligned16(p.workspace))
        return false;
    const int64_t strides[] = {p.q_batch_stride, p.q_row_stride, p.q_head_stride, p.k_batch_stride,
                               p.k_row_stride,   p.k_head_stride, p.v_batch_stride, p.v_row_stride,
                               p.v_head_stride,  p.o_batch_stride, p.o_row_stride, p.o_head_stride};
    for (int64_t s : strides)
        if (s < 0 || s % 8 != 0) return false;
    // Finite and positive, as the forward API's: the tensor-core kernel keeps row maxima in raw
    // score units, which only a positive scale preserves.
    return std::isfinite(p.softmax_scale) && p.softmax_scale > 0.f;
}

}  // namespace
}  // namespace flashattn::decode

extern "C" int64_t flashattn_decode_workspace_floats(int32_t batch, int32_t seqlen_q, int32_t heads_q,
                                                      int32_t head_dim, int32_t num_splits) {
    if (batch <= 0 || seqlen_q <= 0 || heads_q <= 0 || head_dim <= 0 || num_splits <= 1) return 0;
    // Partial O and LSE per split and row (the layout common.cuh's write_rows writes and
    // decode_kernel.cuh's combine reads).
    return int64_t{num_splits} * batch * heads_q * seqlen_q * (int64_t{head_dim} + 1);
}

extern "C" FlashAttnStatus flashattn_decode(FlashAttnDecodeParams *params, void *stream) {
    using namespace flashattn::decode;
    if (!params) return FLASHATTN_STATUS_INVALID_PARAMS;
    params->cuda_error = 0;
    if (!launchable(*params)) return FLASHATTN_STATUS_INVALID_PARAMS;
    const auto s = static_cast<cudaStream_t>(stream);
#define FLASHATTN_DECODE_INSTANCE(dtype_enum, element, dim) \
    if (params->dtype == dtype_enum && params->head_dim == dim) return launch_decode<element, dim>(params, s);
#include "flashattn_decode.inc"
#undef FLASHATTN_DECODE_INSTANCE
    return FLASHATTN_STATUS_UNSUPPORTED_HEAD_DIM;
}
