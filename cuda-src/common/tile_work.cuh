// What both forward kernels agree on, outside their math: which (query tile, head, batch) a CTA
// computes, where its rows of Q, K, V, O and LSE live, which keys it can see, and how a
// kernel is launched. The kernels differ only in how they compute a tile.
#pragma once

#include <cuda_runtime.h>
#include <math_constants.h>
#include <stdint.h>

#include "flashattn.h"

namespace flashattn {

template <typename Element>
struct TileWork {
    int row_begin;    // first query row of the tile
    int rows_here;    // query rows of the tile that exist (the last tile may be short)
    int diag_offset;  // bottom-right causal alignment: query i sees keys j <= i + diag_offset
    int key_end;      // keys [0, key_end) are visible to at least one row of the tile
    const Element *q;  // row row_begin of this head
    const Element *k;  // row 0 of this (GQA) KV head
    const Element *v;
    Element *o;   // row row_begin of this head
    float *lse;   // row row_begin of this head, or null

    // The grid is (query tiles, heads, batch). Causal tiles near the bottom do the most work,
    // and CTAs are dispatched in linear block order (x fastest): with the query tile on x,
    // every SM's first and second CTA would be the same tile index of different heads, some
    // SMs getting two of the longest tiles and others two of the shortest, and a single-wave
    // grid runs as long as the worst SM. Causal launches are therefore renumbered so the linear
    // order walks every (batch, head) of the longest tile first, then the next longest: each
    // dispatch round hands out tiles of equal length and later rounds fill in behind.
    __device__ __forceinline__ TileWork(const FlashAttnFwdParams &p, int block_m) {
        int m_block = blockIdx.x, head = blockIdx.y, batch = blockIdx.z;
        if (p.causal) {
            // Both launch layers bound heads x batch to INT32_MAX, so this product cannot wrap.
            const int heads_x_batch = gridDim.y * gridDim.z;
            const long long linear =
                blockIdx.x + static_cast<long long>(gridDim.x) * (blockIdx.y + gridDim.y * blockIdx.z);
            const int head_batch = static_cast<int>(linear % heads_x_batch);
            m_block = gridDim.x - 1 - static_cast<int>(linear / heads_x_batch);
            head = head_batch % gridDim.y;
            batch = head_batch / gridDim.y;
        }
        const int kv_head = head / (p.heads_q / p.heads_kv);
        row_begin = m_block * block_m;
        rows_here = min(block_m, p.seqlen_q - row_begin);
        diag_offset = p.seqlen_k - p.seqlen_q;
        q = static_cast<const Element *>(p.q) + batch * p.q_batch_stride + head * p.q_head_stride +
            row_begin * p.q_row_stride;
        k = static_cast<const Element *>(p.k) + batch * p.k_batch_stride + kv_head * p.k_head_stride;
        v = static_cast<const Element *>(p.v) + batch * p.v_batch_stride + kv_head * p.v_head_stride;
        o = static_cast<Element *>(p.o) + batch * p.o_batch_stride + head * p.o_head_stride +
            row_begin * p.o_row_stride;
        lse = p.lse ? p.lse + (static_cast<int64_t>(batch) * p.heads_q + head) * p.seqlen_q + row_begin : nullptr;
        key_end = p.seqlen_k;
        if (p.causal) key_end = min(key_end, row_begin + rows_here + diag_offset);
    }

    // Whether the key tile starting at key0 straddles the sequence end or the causal diagonal
    // for some row of this tile; the other tiles run mask-free. The per-element test inside
    // such a tile (key col visible to row iff col < seqlen_k and, causal, col <= row +
    // diag_offset) stays written out in each kernel's mask loop: behind a helper, ptxas
    // emitted about 15% more SASS for both kernels.
    __device__ __forceinline__ bool needs_mask(const FlashAttnFwdParams &p, int key0, int block_n) const {
        return key0 + block_n > p.seqlen_k || (p.causal && key0 + block_n - 1 > row_begin + diag_offset);
    }

    // A tile whose every row is masked gets O = 0 and LSE = -inf with no K/V traffic, from the
    // CTA's kThreads threads; returns whether it was one (then the CTA is done). kChunksPerRow:
    // 16-byte chunks per O row.
    template <int kChunksPerRow, int kThreads>
    __device__ __forceinline__ bool finish_if_fully_masked(const FlashAttnFwdParams &p) const {
        if (key_end > 0) return false;
        for (int i = threadIdx.x; i < rows_here * kChunksPerRow; i += kThreads) {
            const int row = i / kChunksPerRow, chunk = i % kChunksPerRow;
            *reinterpret_cast<uint4 *>(o + row * p.o_row_stride + chunk * 8) = make_uint4(0, 0, 0, 0);
        }
        if (lse)
            for (int row = threadIdx.x; row < rows_here; row += kThreads) lse[row] = -CUDART_INF_F;
        return true;
    }
};

// Launch `kernel` over (query tiles, heads, batch) with the tile's dynamic shared memory; every
// CUDA status goes back through params->cuda_error. A failed call also clears the runtime's
// per-thread last error: left set, the next healthy launch on this thread (ours or the
// caller's) would read it back from cudaGetLastError() and report a failure that is not its
// own. cudaLaunchKernelEx returns this launch's own status, so no earlier error leaks in here.
template <typename Kernel>
FlashAttnStatus launch_tiles(Kernel kernel, int block_m, int threads, int smem_bytes, FlashAttnFwdParams *params,
                             cudaStream_t stream) {
    auto fail = [params](cudaError_t err) {
        (void)cudaGetLastError();
        params->cuda_error = static_cast<int32_t>(err);
        return FLASHATTN_STATUS_CUDA_ERROR;
    };
    if (smem_bytes > 48 * 1024) {
        // Above 48 KB a kernel must opt in to dynamic shared memory; cheap and idempotent.
        const cudaError_t err = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem_bytes);
        if (err != cudaSuccess) return fail(err);
    }
    cudaLaunchConfig_t config = {};
    config.gridDim = dim3((params->seqlen_q + block_m - 1) / block_m, params->heads_q, params->batch);
    config.blockDim = dim3(threads);
    config.dynamicSmemBytes = static_cast<size_t>(smem_bytes);
    config.stream = stream;
    const cudaError_t err = cudaLaunchKernelEx(&config, kernel, *params);
    if (err != cudaSuccess) return fail(err);
    return FLASHATTN_STATUS_SUCCESS;
}

}  // namespace flashattn
