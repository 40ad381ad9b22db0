// flashattn_merge_states (flashattn.h): merge two partial attention results over disjoint key
// sets into one. Memory-bound and tiny next to attention itself, so it is written for clarity:
// one warp per (batch, row, head), 16-byte loads and stores, f32 arithmetic.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cmath>

#include "common/launch.cuh"
#include "common/merge.cuh"
#include "flashattn.h"

namespace flashattn::merge {

constexpr int kWarpsPerBlock = 8;

template <typename Element>
__device__ __forceinline__ float to_float(Element x);
template <>
__device__ __forceinline__ float to_float(__half x) { return __half2float(x); }
template <>
__device__ __forceinline__ float to_float(__nv_bfloat16 x) { return __bfloat162float(x); }

template <typename Element>
__device__ __forceinline__ Element from_float(float x);
template <>
__device__ __forceinline__ __half from_float(float x) { return __float2half_rn(x); }
template <>
__device__ __forceinline__ __nv_bfloat16 from_float(float x) { return __float2bfloat16_rn(x); }

template <typename Element>
__global__ void __launch_bounds__(kWarpsPerBlock * 32) merge_kernel(const FlashAttnMergeParams p) {
    constexpr int kPerChunk = 16 / sizeof(Element);
    const int lane = threadIdx.x % 32;
    const int64_t rows = static_cast<int64_t>(p.batch) * p.seqlen * p.heads;
    const int64_t warps = static_cast<int64_t>(gridDim.x) * kWarpsPerBlock;
    for (int64_t row = blockIdx.x * static_cast<int64_t>(kWarpsPerBlock) + threadIdx.x / 32; row < rows;
         row += warps) {
        // row enumerates (b, s, h) with h fastest; LSE is [batch, heads, seqlen].
        const int64_t h = row % p.heads, s = (row / p.heads) % p.seqlen, b = row / (p.heads * int64_t{p.seqlen});
        const int64_t lse_at = (b * p.heads + h) * p.seqlen + s;
        // Lane 0 reads both LSEs and hands them to the warp: an in-place merge (p.lse ==
        // p.lse_a or p.lse_b) then reads each LSE in the thread that overwrites it, and before.
        float lse_a = 0.f, lse_b = 0.f;
        if (lane == 0) {
            lse_a = p.lse_a[lse_at];
            lse_b = p.lse_b[lse_at];
        }
        lse_a = __shfl_sync(0xffffffffu, lse_a, 0);
        lse_b = __shfl_sync(0xffffffffu, lse_b, 0);
        const MergeWeights w(lse_a, lse_b);
        if (p.lse && lane == 0) p.lse[lse_at] = w.lse;
        const auto *oa = static_cast<const Element *>(p.o_a) + b * p.a_batch_stride + s * p.a_row_stride + h * p.a_head_stride;
        const auto *ob = static_cast<const Element *>(p.o_b) + b * p.b_batch_stride + s * p.b_row_stride + h * p.b_head_stride;
        auto *o = static_cast<Element *>(p.o) + b * p.o_batch_stride + s * p.o_row_stride + h * p.o_head_stride;
        for (int d = lane * kPerChunk; d < p.head_dim; d += 32 * kPerChunk) {
            const uint4 va = *reinterpret_cast<const uint4 *>(oa + d);
            const uint4 vb = *reinterpret_cast<const uint4 *>(ob + d);
            const Element *ea = reinterpret_cast<const Element *>(&va);
            const Element *eb = reinterpret_cast<const Element *>(&vb);
            uint4 out;
            Element *eo = reinterpret_cast<Element *>(&out);
#pragma unroll
            for (int i = 0; i < kPerChunk; ++i) eo[i] = from_float<Element>(w.apply(to_float(ea[i]), to_float(eb[i])));
            *reinterpret_cast<uint4 *>(o + d) = out;
        }
    }
}

bool aligned16(const void *ptr) { return (reinterpret_cast<uintptr_t>(ptr) & 15) == 0; }

// Defence in depth for C callers; the Rust layer validates first, with precise errors.
bool launchable(const FlashAttnMergeParams &p) {
    if (!p.o_a || !p.o_b || !p.o || !p.lse_a || !p.lse_b) return false;
    if (p.batch <= 0 || p.seqlen <= 0 || p.heads <= 0 || p.head_dim <= 0 || p.head_dim % 8 != 0) return false;
    // A lane's 32-bit column index steps 256 past the row's last chunk.
    if (p.head_dim > INT32_MAX - 256) return false;
    if (!aligned16(p.o_a) || !aligned16(p.o_b) || !aligned16(p.o)) return false;
    const auto aligned4 = [](const float *ptr) { return (reinterpret_cast<uintptr_t>(ptr) & 3) == 0; };
    if (!aligned4(p.lse_a) || !aligned4(p.lse_b) || !aligned4(p.lse)) return false;
    const int64_t strides[] = {p.a_batch_stride, p.a_row_stride, p.a_head_stride, p.b_batch_stride, p.b_row_stride,
                               p.b_head_stride,  p.o_batch_stride, p.o_row_stride, p.o_head_stride};
    for (int64_t s : strides)
        if (s < 0 || s % 8 != 0) return false;
    return true;
}

template <typename Element>
FlashAttnStatus launch(FlashAttnMergeParams *p, cudaStream_t stream) {
    const int64_t rows = static_cast<int64_t>(p->batch) * p->seqlen * p->heads;
    // Enough warps to cover the rows, capped where a grid-stride loop takes over.
    const int64_t blocks = (rows + kWarpsPerBlock - 1) / kWarpsPerBlock;
    cudaLaunchConfig_t config = {};
    config.gridDim = dim3(static_cast<unsigned>(blocks < 65535 * 32 ? blocks : 65535 * 32));
    config.blockDim = dim3(kWarpsPerBlock * 32);
    config.stream = stream;
    return launch_status(cudaLaunchKernelEx(&config, merge_kernel<Element>, *p), &p->cuda_error);
}

}  // namespace flashattn::merge

extern "C" FlashAttnStatus flashattn_merge_states(FlashAttnMergeParams *params, void *stream) {
    using namespace flashattn::merge;
    if (!params) return FLASHATTN_STATUS_INVALID_PARAMS;
    params->cuda_error = 0;
    if (!launchable(*params)) return FLASHATTN_STATUS_INVALID_PARAMS;
    const auto s = static_cast<cudaStream_t>(stream);
    switch (params->dtype) {
        case FLASHATTN_DTYPE_F16: return launch<__half>(params, s);
        case FLASHATTN_DTYPE_BF16: return launch<__nv_bfloat16>(params, s);
    }
    return FLASHATTN_STATUS_UNSUPPORTED_DTYPE;
}
