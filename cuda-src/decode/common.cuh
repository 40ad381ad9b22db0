// The units of decode's split kernel (mma_kernel.cuh) that are not its mainloop: element packing
// (the combine kernel's too), the KV cache's addressing, the CTA's place in the grid, and its last
// step, which merges its warps' softmax states per row and writes O and LSE or the split's
// partial result.
//
// A CTA serves kRows rows of one KV head's query group: row r is query (r / group) of query head
// (kv_head * group + r % group), so the rows of one query position are adjacent and a causal
// limit changes once per group.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <math_constants.h>

#include <cstdint>

#include "common/softmax.cuh"
#include "flashattn.h"

namespace flashattn::decode {

constexpr int kWarps = 4;
constexpr int kThreads = kWarps * 32;
constexpr int kChunk = 8;  // elements per 16-byte load
constexpr int kRowsPerCta = 8;  // query rows a split-kernel CTA serves: the MMAs' n8 columns
constexpr int kBlockKeys = 16;  // keys a warp takes at a time: the MMAs' m16 rows (splits and pages align to it)

__device__ __forceinline__ void unpack(const uint4 &raw, const __half *, float (&out)[kChunk]) {
    const __half2 *h = reinterpret_cast<const __half2 *>(&raw);
#pragma unroll
    for (int i = 0; i < kChunk / 2; ++i) {
        const float2 f = __half22float2(h[i]);
        out[2 * i] = f.x;
        out[2 * i + 1] = f.y;
    }
}

// A bf16 is the high half of an f32: one shift or one mask a value (__bfloat1622float2 takes a
// byte permute and a multiply for the high one).
__device__ __forceinline__ void unpack(const uint4 &raw, const __nv_bfloat16 *, float (&out)[kChunk]) {
    const uint32_t words[4] = {raw.x, raw.y, raw.z, raw.w};
#pragma unroll
    for (int i = 0; i < kChunk / 2; ++i) {
        out[2 * i] = __uint_as_float(words[i] << 16);
        out[2 * i + 1] = __uint_as_float(words[i] & 0xffff0000u);
    }
}

__device__ __forceinline__ uint4 pack(const float (&in)[kChunk], const __half *) {
    uint4 raw;
    __half2 *h = reinterpret_cast<__half2 *>(&raw);
#pragma unroll
    for (int i = 0; i < kChunk / 2; ++i) h[i] = __floats2half2_rn(in[2 * i], in[2 * i + 1]);
    return raw;
}

__device__ __forceinline__ uint4 pack(const float (&in)[kChunk], const __nv_bfloat16 *) {
    uint4 raw;
    __nv_bfloat162 *h = reinterpret_cast<__nv_bfloat162 *>(&raw);
#pragma unroll
    for (int i = 0; i < kChunk / 2; ++i) h[i] = __floats2bfloat162_rn(in[2 * i], in[2 * i + 1]);
    return raw;
}

__host__ __device__ constexpr int pow2_at_least(int n) { return n <= 1 ? 1 : 2 * pow2_at_least((n + 1) / 2); }

// Division by a divisor fixed for the whole kernel (the page size) in three instructions
// instead of a ~20-instruction integer division per key: n / d = (umulhi(m, n) + n) >> s with
// s = ceil(log2 d) and m = floor(2^32 (2^s - d) / d) + 1 (Granlund and Montgomery), exact for
// 0 <= n < 2^31.
struct FastDivmod {
    uint32_t divisor = 1, multiplier = 1, shift = 0;

    __device__ __forceinline__ explicit FastDivmod(int d) : divisor(d) {
        while ((1u << shift) < divisor) ++shift;
        multiplier = static_cast<uint32_t>(((uint64_t{1} << 32) * ((uint64_t{1} << shift) - divisor)) / divisor + 1);
    }
    __device__ __forceinline__ int div(int n) const {
        return static_cast<int>((__umulhi(multiplier, static_cast<uint32_t>(n)) + static_cast<uint32_t>(n)) >> shift);
    }
};

// Where this lane's chunks of the keys of one (sequence, KV head) live. The contiguous cache
// indexes rows directly (the kernel advances its row addresses); the paged cache goes through the
// block table, whose entries for a step's keys are looked up one step ahead (`look_up`), so the
// table read does not sit in front of every K/V copy. A page number outside [0, num_pages) is
// never dereferenced: its keys are skipped, so a corrupt table cannot make the kernel read out of
// bounds.
struct KvCache {
    const char *k, *v;                    // this lane's chunk of row 0 (of the sequence or of page 0)
    int64_t k_page, v_page, k_row, v_row;  // bytes: page (paged) and row strides
    const int32_t *table;                 // this sequence's block table row; null: contiguous
    FastDivmod page_size;
    uint32_t num_pages;

    __device__ __forceinline__ KvCache(const FlashAttnDecodeParams &p, int b, int kv_head, int elem, int lane_bytes)
        : page_size(p.block_table ? p.page_size : 1) {
        table = p.block_table ? p.block_table + b * p.block_table_batch_stride : nullptr;
        const int64_t k_seq = table ? 0 : b * p.k_batch_stride, v_seq = table ? 0 : b * p.v_batch_stride;
        k = static_cast<const char *>(p.k) + (k_seq + kv_head * p.k_head_stride) * elem + lane_bytes;
        v = static_cast<const char *>(p.v) + (v_seq + kv_head * p.v_head_stride) * elem + lane_bytes;
        k_page = p.k_batch_stride * elem;
        v_page = p.v_batch_stride * elem;
        k_row = p.k_row_stride * elem;
        v_row = p.v_row_stride * elem;
        num_pages = static_cast<uint32_t>(p.num_pages);
    }

    // A key of a paged cache as the block table places it (page 0 for a key past the end).
    struct PagedKey {
        int page = 0, row = 0;  // block-table entry, row within the page
    };
    __device__ __forceinline__ PagedKey look_up(int key, int key_end) const {
        const int index = page_size.div(key);
        return {key < key_end ? table[index] : 0, key - index * static_cast<int>(page_size.divisor)};
    }

    // The lane's K and V source addresses of a looked-up key; false when its page is not one of
    // the cache's (the addresses are then page 0's, never read).
    __device__ __forceinline__ bool locate(PagedKey at, const char *&k_src, const char *&v_src) const {
        const bool inside = static_cast<uint32_t>(at.page) < num_pages;
        const uint32_t page = inside ? static_cast<uint32_t>(at.page) : 0u, row = static_cast<uint32_t>(at.row);
        k_src = step_by(step_by(k, page, k_page), row, k_row);
        v_src = step_by(step_by(v, page, v_page), row, v_row);
        return inside;
    }

    // base + n x stride for a 32-bit n and a 64-bit stride in two multiply-adds (a wide one on
    // the low word, one on the high word); the generic 64-bit product and sum take about five.
    __device__ __forceinline__ static const char *step_by(const char *base, uint32_t n, int64_t stride) {
        const uint64_t s = static_cast<uint64_t>(stride);
        uint64_t at = reinterpret_cast<uint64_t>(base) + uint64_t{n} * static_cast<uint32_t>(s);
        at += uint64_t{n * static_cast<uint32_t>(s >> 32)} << 32;
        return reinterpret_cast<const char *>(at);
    }
};

// The CTA a split kernel runs as, in launch_split_and_combine's grid (splits, KV heads x row
// blocks of kRows, batch): its part of the key range, its KV head, its sequence and its rows.
template <int kRows>
struct SplitCta {
    int split, kv_head, b, group, row0, total_rows;

    __device__ __forceinline__ explicit SplitCta(const FlashAttnDecodeParams &p) {
        split = blockIdx.x;
        const int row_blocks = gridDim.y / p.heads_kv;
        kv_head = blockIdx.y / row_blocks;
        b = blockIdx.z;
        group = p.heads_q / p.heads_kv;
        row0 = (blockIdx.y % row_blocks) * kRows;
        total_rows = group * p.seqlen_q;
    }
    // Keys of this CTA's sequence: seqlen_k, or its seqlens_k entry clamped into [0, seqlen_k]
    // (read from global memory: only after wait_for_prerequisite_grids).
    __device__ __forceinline__ int sequence_keys(const FlashAttnDecodeParams &p) const {
        int keys = p.seqlen_k;
        if (p.seqlens_k) keys = min(max(p.seqlens_k[b], 0), p.seqlen_k);
        return keys;
    }
};

// The CTA's rows once each warp has left its state in shared memory: per row its maximum in base-2
// logits (s_m, -inf where it saw no key), its sum of exponentials relative to that maximum (s_l)
// and its O row on the same scale, not yet divided (s_acc). The warps are merged per row; one split
// writes O and LSE, a split of several its partial O and LSE to the workspace for combine_kernel.
template <typename Element, int kHeadDim, int kRows, int kRowStride>
__device__ __forceinline__ void write_rows(const FlashAttnDecodeParams &p, const SplitCta<kRows> &cta,
                                           const float (*s_acc)[kRows][kRowStride], const float (*s_m)[kRows],
                                           const float (*s_l)[kRows]) {
    constexpr int kChunks = kHeadDim / kChunk;
    constexpr int kElem = sizeof(Element);
    const int split = cta.split, b = cta.b, kv_head = cta.kv_head, row0 = cta.row0;
    const int group = cta.group, total_rows = cta.total_rows;
    const bool single = p.num_splits == 1;
    for (int item = threadIdx.x; item < kRows * kChunks; item += kThreads) {
        const int r = item / kChunks, c = item % kChunks;
        const int rr = row0 + r;
        if (rr >= total_rows) continue;
        float m_all = -CUDART_INF_F;
#pragma unroll
        for (int w = 0; w < kWarps; ++w) m_all = fmaxf(m_all, s_m[w][r]);
        float l_all = 0.f, out[kChunk] = {};
        if (m_all != -CUDART_INF_F) {
#pragma unroll
            for (int w = 0; w < kWarps; ++w) {
                const float scale = s_m[w][r] == -CUDART_INF_F ? 0.f : exp2f(s_m[w][r] - m_all);
                l_all += s_l[w][r] * scale;
#pragma unroll
                for (int e = 0; e < kChunk; ++e) out[e] += s_acc[w][r][c * kChunk + e] * scale;
            }
#pragma unroll
            for (int e = 0; e < kChunk; ++e) out[e] /= l_all;
        }
        // A row that saw no key here: O = 0, LSE = -inf (the combine gives it no weight).
        const float lse = m_all == -CUDART_INF_F ? -CUDART_INF_F : (m_all + log2f(l_all)) * kLn2;
        const int i = rr / group, h = kv_head * group + rr % group;
        const int64_t lse_at = (int64_t{b} * p.heads_q + h) * p.seqlen_q + i;
        if (single) {
            char *dst = static_cast<char *>(p.o) +
                        (b * p.o_batch_stride + int64_t{i} * p.o_row_stride + int64_t{h} * p.o_head_stride + c * kChunk) *
                            kElem;
            *reinterpret_cast<uint4 *>(dst) = pack(out, static_cast<const Element *>(nullptr));
            if (p.lse && c == 0) p.lse[lse_at] = lse;
        } else {
            // Workspace: partial O [split][batch * heads_q * seqlen_q][head_dim], then LSE [split][...].
            const int64_t rows_all = int64_t{p.batch} * p.heads_q * p.seqlen_q;
            float *o_part = p.workspace + (split * rows_all + lse_at) * kHeadDim + c * kChunk;
#pragma unroll
            for (int e = 0; e < kChunk; e += 4)
                *reinterpret_cast<float4 *>(o_part + e) = make_float4(out[e], out[e + 1], out[e + 2], out[e + 3]);
            if (c == 0) p.workspace[int64_t{p.num_splits} * rows_all * kHeadDim + split * rows_all + lse_at] = lse;
        }
    }
}

}  // namespace flashattn::decode
