// Split-KV decode: a few query rows against a long (contiguous or paged) KV cache, on the
// tensor cores (mma_kernel.cuh's split kernel, every head dim), then where the keys were split,
// this file's combine kernel. Decode reads K and V once and does little arithmetic, so both are
// built around the loads:
// - GQA packing: one CTA serves every query row that reads its KV head (the group's query
//   heads x seqlen_q, up to eight of them), so K/V is read once per KV head, not once per
//   query head.
// - Split-KV: the key range of a sequence is cut into `num_splits` parts, one CTA each, so a
//   batch-1 decode over a long cache still fills the GPU. Each part leaves a partial (O, LSE)
//   in the caller's f32 workspace and `combine_kernel` merges them with merge.cuh's
//   MergeRunning, over all parts at once. With one split the kernel writes O and LSE itself.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <math_constants.h>

#include <cstdint>

#include "common/launch.cuh"
#include "common/merge.cuh"
#include "decode/common.cuh"
#include "decode/mma_kernel.cuh"
#include "flashattn.h"
#include "sm80/primitives.cuh"

namespace flashattn::decode {

// Merge the splits' partial states of one row per CTA: LSE = log sum_s exp(LSE_s),
// O = sum_s exp(LSE_s - LSE) O_s. The splits are spread over the CTA's groups of kLanesPerSplit
// lanes (a batch-1 decode has few rows and many splits); each group merges its splits online
// (running maximum, rescaled sum), kBatch splits' LSE and O loaded together, so up to
// kGroups x kBatch splits cost one round of global loads, not the three of a max pass, a sum
// pass and a weighted pass; the groups then merge through shared memory.
template <typename Element, int kHeadDim>
__global__ void __launch_bounds__(kThreads) combine_kernel(const FlashAttnDecodeParams p) {
    constexpr int kChunks = kHeadDim / kChunk;
    constexpr int kLanesPerSplit = pow2_at_least(kChunks);
    constexpr int kGroups = kThreads / kLanesPerSplit;
    constexpr int kBatch = 8;  // a batch-1 call's 33 parts at head dim 128: one batch a group
    __shared__ float s_m[kGroups], s_total[kGroups];
    __shared__ float partial[kGroups][kHeadDim];

    // Launched before the split kernel finishes (programmatic dependent launch): this waits for
    // its completion and the visibility of its workspace writes. A plain launch returns at once.
    wait_for_prerequisite_grids();
    const int64_t rows_all = int64_t{p.batch} * p.heads_q * p.seqlen_q;
    const int64_t row = blockIdx.x;  // (b, h, i) with i fastest, as the LSE layout
    const float *lse_part = p.workspace + int64_t{p.num_splits} * rows_all * kHeadDim;
    const int group = threadIdx.x / kLanesPerSplit, c = threadIdx.x % kLanesPerSplit;
    const bool active = c < kChunks;

    // This group's splits, kBatch at a time; out = sum_s exp(LSE_s - run.m) O_s.
    MergeRunning run;
    float out[kChunk] = {};
    for (int s0 = group; s0 < p.num_splits; s0 += kGroups * kBatch) {
        float lse[kBatch], o[kBatch][kChunk];
#pragma unroll
        for (int j = 0; j < kBatch; ++j) {
            const int s = s0 + j * kGroups;
            // O is loaded whatever the LSE: every split wrote every row (O = 0, LSE = -inf when it
            // saw no key), and a load that waited for the LSE would be a second round trip.
            lse[j] = s < p.num_splits ? lse_part[s * rows_all + row] : -CUDART_INF_F;
            if (s < p.num_splits && active) {
                const float4 *src = reinterpret_cast<const float4 *>(p.workspace + (s * rows_all + row) * kHeadDim + c * kChunk);
#pragma unroll
                for (int e = 0; e < kChunk / 4; ++e) {
                    const float4 v = src[e];
                    o[j][4 * e] = v.x;
                    o[j][4 * e + 1] = v.y;
                    o[j][4 * e + 2] = v.z;
                    o[j][4 * e + 3] = v.w;
                }
            } else {
#pragma unroll
                for (int e = 0; e < kChunk; ++e) o[j][e] = 0.f;
            }
        }
        float weight[kBatch];
        const float rescale = run.fold(lse, weight);
#pragma unroll
        for (int e = 0; e < kChunk; ++e) out[e] *= rescale;
#pragma unroll
        for (int j = 0; j < kBatch; ++j)
#pragma unroll
            for (int e = 0; e < kChunk; ++e) out[e] = fmaf(weight[j], o[j][e], out[e]);
    }
    if (c == 0) {
        s_m[group] = run.m;
        s_total[group] = run.total;
    }
    if (active)
#pragma unroll
        for (int e = 0; e < kChunk; ++e) partial[group][c * kChunk + e] = out[e];
    __syncthreads();
    if (group != 0 || !active) return;

    // The groups' states, each itself a running merge.
    float weight[kGroups];
    MergeRunning all;
    all.fold(s_m, s_total, weight);
    float result[kChunk] = {};
    if (all.m != -CUDART_INF_F) {
#pragma unroll
        for (int g = 0; g < kGroups; ++g)
#pragma unroll
            for (int e = 0; e < kChunk; ++e) result[e] = fmaf(weight[g], partial[g][c * kChunk + e], result[e]);
#pragma unroll
        for (int e = 0; e < kChunk; ++e) result[e] /= all.total;
    }
    // A row no split saw a key of: O = 0, LSE = -inf.
    const float lse = all.lse();

    const int i = static_cast<int>(row % p.seqlen_q);
    const int h = static_cast<int>((row / p.seqlen_q) % p.heads_q);
    const int b = static_cast<int>(row / (int64_t{p.seqlen_q} * p.heads_q));
    if (p.lse && c == 0) p.lse[row] = lse;
    char *dst = static_cast<char *>(p.o) + (b * p.o_batch_stride + int64_t{i} * p.o_row_stride +
                                            int64_t{h} * p.o_head_stride + c * kChunk) *
                                               int64_t{sizeof(Element)};
    *reinterpret_cast<uint4 *>(dst) = pack(result, static_cast<const Element *>(nullptr));
}

// The split kernel over (splits, KV heads x row blocks of kRows, batch), as a programmatic
// dependent of the kernel ahead on the stream as the forward kernels are
// (FLASHATTN_DECODE_SERIAL_LAUNCH=1 launches it plainly); then, where it split the keys, the
// combine kernel, one CTA per query row.
template <typename Element, int kHeadDim, int kRows, typename SplitKernel>
cudaError_t launch_split_and_combine(const FlashAttnDecodeParams &p, cudaStream_t stream, SplitKernel split_kernel,
                                     int smem_bytes, KernelFacts &split_facts) {
    const int total_rows = (p.heads_q / p.heads_kv) * p.seqlen_q;
    const int row_blocks = (total_rows + kRows - 1) / kRows;
    cudaLaunchAttribute overlap = {};
    overlap.id = cudaLaunchAttributeProgrammaticStreamSerialization;
    overlap.val.programmaticStreamSerializationAllowed = 1;
    int device = -1;
    if (cudaGetDevice(&device) != cudaSuccess) (void)cudaGetLastError();
    cudaLaunchConfig_t config = {};
    config.gridDim = dim3(p.num_splits, p.heads_kv * row_blocks, p.batch);
    config.blockDim = dim3(kThreads);
    config.dynamicSmemBytes = static_cast<size_t>(smem_bytes);
    config.stream = stream;
    if (may_launch_as_dependent(split_kernel, device, split_facts, "FLASHATTN_DECODE_SERIAL_LAUNCH")) {
        config.attrs = &overlap;
        config.numAttrs = 1;
    }
    cudaError_t err = launch_opted_in(split_kernel, config, device, split_facts, p);
    if (err != cudaSuccess || p.num_splits == 1) return err;
    // One CTA per query row (at most INT32_MAX rows: decode_api.cu's launchable). Should this
    // launch fail, the split kernel is queued already and writes only the workspace; the call
    // reports the failure, and O is not written.
    config.gridDim = dim3(static_cast<unsigned>(int64_t{p.batch} * p.heads_q * p.seqlen_q));
    config.dynamicSmemBytes = 0;
    config.attrs = nullptr;
    config.numAttrs = 0;
    // Its CTAs get resident while the split kernel's last CTAs run, instead of launching after
    // the split kernel has drained (the gap is a few microseconds of a short decode call).
    const auto combine = combine_kernel<Element, kHeadDim>;
    // FLASHATTN_DECODE_SERIAL_COMBINE=1 launches it plainly, to time the difference.
    static KernelFacts facts;
    if (may_launch_as_dependent(combine, device, facts, "FLASHATTN_DECODE_SERIAL_COMBINE")) {
        config.attrs = &overlap;
        config.numAttrs = 1;
    }
    return cudaLaunchKernelEx(&config, combine, p);
}

// The launcher one instantiation file compiles per (dtype, head dim).
template <typename Element, int kHeadDim>
FlashAttnStatus launch_decode(FlashAttnDecodeParams *p, cudaStream_t stream) {
    using Traits = MmaDecodeTraits<Element, kHeadDim>;
    static KernelFacts facts;
    return launch_status(launch_split_and_combine<Element, kHeadDim, Traits::kRows>(
                             *p, stream, decode_mma_kernel<Traits>, Traits::kSmemBytes, facts),
                         &p->cuda_error);
}

}  // namespace flashattn::decode
