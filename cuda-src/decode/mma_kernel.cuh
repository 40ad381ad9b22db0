// Split-KV decode on the tensor cores, every head dim (32 to 256).
//
// The lane kernel this replaced did a key's dot products and its share of P.V with FMAs, 64 of
// them a key and lane at head dim 128 beside as many shuffles, unpacks and softmax steps: on the
// H200 it issued an instruction in most cycles and read K/V below the copy ceiling (call KAK,
// docs/benchmarks/2026-11-30-h200-decode.md). Here each warp takes blocks of 16 keys and runs
// them through m16n8k16 MMAs with the keys as the MMA's rows and the CTA's eight query rows as its
// columns: S^T = K.Q^T is one MMA per k16 step of the head dim, and O^T += V^T.P^T one per 16
// dims, with nothing padded. (Query rows as the MMA rows, the first version, filled half of each
// MMA with zeros: twice the MMAs, and 168 registers a thread, three CTAs an SM, which left batch
// 64 4-5% behind the lane kernel; call KAO.) P^T leaves the scores' accumulator layout for the B
// operand's by one movmatrix per 8 keys.
//
// Each warp streams its own blocks (w, w + 4, ... of the split) with cp.async into its own ring
// of kSlots buffers, swizzled for ldmatrix (sm80/primitives.cuh). A buffer holds a block's K or
// its V, not both: the copies go K0, V0, K1, V1, ..., and V_j is still landing while S_j is
// computed, so three buffers (48 KB a CTA at head dim 128, four CTAs an SM) keep as many bytes
// in flight as two buffers of K and V together did. Warps never wait for each other until the
// merge; __syncwarps order a buffer's copies before its reads and its reads before its refill.
// Splits begin at multiples of 16 keys, so a block never straddles a page (page sizes are
// multiples of 16): a paged block is one block-table read and one page address, looked up a
// block ahead.
#pragma once

#include <cuda_runtime.h>
#include <math_constants.h>

#include <cstdint>

#include "common/launch.cuh"
#include "decode/common.cuh"
#include "flashattn.h"
#include "sm80/primitives.cuh"

namespace flashattn::decode {

__host__ __device__ constexpr int clamp_int(int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; }

// Transposes an 8x8 matrix of 16-bit pairs held one register a lane (lane l: row l / 4, columns
// 2(l % 4) and 2(l % 4) + 1) in registers: the scores' C layout into the B operand's.
__device__ __forceinline__ uint32_t transpose_8x8(uint32_t x) {
    uint32_t y;
    asm volatile("movmatrix.sync.aligned.m8n8.trans.b16 %0, %1;\n" : "=r"(y) : "r"(x));
    return y;
}

template <typename Element_, int kHeadDim_>
struct MmaDecodeTraits {
    using Element = Element_;
    static constexpr int kHeadDim = kHeadDim_;
    static constexpr int kChunksPerRow = kHeadDim / kChunk;
    static constexpr int kRows = kRowsPerCta;
    static constexpr int kBlockKeys = decode::kBlockKeys;  // S^T's m16 rows, one k16 step of O^T
    static constexpr int kBufferBytes = kBlockKeys * kHeadDim * 2;  // a block's K, or its V
    // Buffers in each warp's ring: as many as 48 KB a CTA holds, three to eight (48 KB at head dim
    // 128: four CTAs an SM on the H100, two on the 100 KB SMs of sm_86/89/120; 96 KB at 256).
    static constexpr int kSlots = clamp_int(48 * 1024 / (kWarps * kBufferBytes), 3, 8);
    static constexpr int kRingBytes = kWarps * kSlots * kBufferBytes;
    // The rings, then each warp's row maxima and sums for the merge. All of it dynamic: static
    // shared memory beside 48 KB of dynamic would need the opt-in that launch_opted_in gives only
    // above 48 KB of dynamic (call KAL: head dims 64 and 96 failed to launch with 256 bytes static).
    static constexpr int kSmemBytes = kRingBytes + 2 * kWarps * kRows * 4;
    static constexpr int kChunksPerLane = kBlockKeys * kChunksPerRow / 32;  // 16-byte copies of a buffer
    // Registers for four CTAs an SM (128 a thread), as many as shared memory allows up to head dim
    // 128, and for two at 256 (ptxas: 80-128 a thread up to 128, about 220 at 256);
    // decode_splits (crates/flashattn/src/decode.rs) sizes the grid of a small batch for two.
    static constexpr int kMinCtasPerSm = kHeadDim <= 128 ? 4 : 2;
    static_assert(kHeadDim % 32 == 0 && kHeadDim <= 256, "head dims 32 to 256, multiples of 32");
    static_assert(kWarps * kRows * (kHeadDim + 4) * 4 <= kRingBytes, "the warps' merge reuses the rings");
};

template <typename Traits>
__global__ void __launch_bounds__(kThreads, Traits::kMinCtasPerSm) decode_mma_kernel(const FlashAttnDecodeParams p) {
    using Element = typename Traits::Element;
    using MmaT = sm80::Mma<Element>;
    using PagedKey = KvCache::PagedKey;
    constexpr int kHeadDim = Traits::kHeadDim, kCPR = Traits::kChunksPerRow, kRows = Traits::kRows;
    constexpr int kBlockKeys = Traits::kBlockKeys, kSlots = Traits::kSlots;
    constexpr int kElem = sizeof(Element);

    // The combine kernel, when one follows, may get resident while this grid's last CTAs run;
    // nothing is read before the kernel ahead on the stream is done (common/launch.cuh).
    if (p.num_splits > 1) allow_dependent_launch();
    wait_for_prerequisite_grids();
    const SplitCta<kRows> cta(p);
    const int split = cta.split, kv_head = cta.kv_head, b = cta.b;
    const int group = cta.group, row0 = cta.row0, total_rows = cta.total_rows;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int g = lane / 4, t = lane % 4;

    extern __shared__ __align__(128) char smem[];
    float(*s_m)[kRows] = reinterpret_cast<float(*)[kRows]>(smem + Traits::kRingBytes);
    float(*s_l)[kRows] = s_m + kWarps;

    // Keys of this sequence and this split's share, in whole blocks but the last.
    const int seqlen_k = cta.sequence_keys(p);
    const int share = (seqlen_k + p.num_splits - 1) / p.num_splits;
    const int per_split = (share + kBlockKeys - 1) / kBlockKeys * kBlockKeys;
    const int key_begin = static_cast<int>(min(int64_t{split} * per_split, int64_t{seqlen_k}));
    const int key_end = min(key_begin + per_split, seqlen_k);
    const int n_blocks = (key_end - key_begin + kBlockKeys - 1) / kBlockKeys;
    const int my_blocks = (n_blocks - warp + kWarps - 1) / kWarps;  // blocks warp, warp + kWarps, ...
    const auto block_key = [&](int j) { return key_begin + (warp + kWarps * j) * kBlockKeys; };

    // Q^T as the B operand of S^T, raw (the scale goes into the exponent, as in the forward
    // kernels): column g is row row0 + g, registers {dims 16 ks + 2t.., dims 16 ks + 8 + 2t..}.
    uint32_t qb[kHeadDim / 16][2];
    {
        const int rr = row0 + g;
        const bool real = rr < total_rows;
        const int i = real ? rr / group : 0, h = kv_head * group + (real ? rr % group : 0);
        const Element *q_row = static_cast<const Element *>(p.q) + b * p.q_batch_stride + int64_t{i} * p.q_row_stride +
                               int64_t{h} * p.q_head_stride;
#pragma unroll
        for (int ks = 0; ks < kHeadDim / 16; ++ks) {
            qb[ks][0] = real ? *reinterpret_cast<const uint32_t *>(q_row + ks * 16 + 2 * t) : 0u;
            qb[ks][1] = real ? *reinterpret_cast<const uint32_t *>(q_row + ks * 16 + 8 + 2 * t) : 0u;
        }
    }
    // This lane's score columns are rows row0 + 2t + c, c = 0, 1; the last key each sees (causal
    // is bottom-right aligned: query i sees keys j <= i + seqlen_k - seqlen_q; -1 for no row).
    int last_key[2];
#pragma unroll
    for (int c = 0; c < 2; ++c) {
        const int rr = row0 + 2 * t + c;
        last_key[c] = rr >= total_rows ? -1 : p.causal ? rr / group + seqlen_k - p.seqlen_q : seqlen_k - 1;
    }
    const float scale_log2 = p.softmax_scale * kLog2e;

    // The warp's ring. Buffer n of the copies (K of block n / 2 when n is even, its V when odd)
    // lands in slot n % kSlots; each lane copies chunks lane + 32 i of the buffer's 16 x kCPR,
    // key (lane + 32 i) / kCPR, column (lane + 32 i) % kCPR.
    const uint32_t ring = sm80::smem_addr(smem) + static_cast<uint32_t>(warp * kSlots * Traits::kBufferBytes);
    const auto slot_at = [&](int slot) { return ring + static_cast<uint32_t>(slot * Traits::kBufferBytes); };
    const KvCache cache(p, b, kv_head, kElem, 0);
    const auto copy_buffer = [&](int slot, const char *src, int64_t row_stride, bool inside, int key0) {
#pragma unroll
        for (int i = 0; i < Traits::kChunksPerLane; ++i) {
            const int chunk = lane + 32 * i, key = chunk / kCPR, column = chunk % kCPR;
            const bool present = inside && key0 + key < key_end;
            const uint32_t at = static_cast<uint32_t>(sm80::swizzle<kCPR>(key, column) * 2);
            sm80::cp_async_16(slot_at(slot) + at, KvCache::step_by(src, key, row_stride) + column * 16, present);
        }
    };
    const auto look_up = [&](int j) {
        return cache.table && j < my_blocks ? cache.look_up(block_key(j), key_end) : PagedKey{};
    };
    // A block's K is copied first: its page is located then, and its V's source kept for the copy
    // that follows. A block whose page is not one of the cache's lands as zeros with its bit in
    // `hidden` (bit j % 32; at most four blocks are in flight) set, and its keys are skipped.
    PagedKey pending = look_up(0);  // the next block's table entry, read before its copies are issued
    const char *v_source = nullptr;
    bool v_inside = true;
    uint32_t hidden = 0;
    const auto copy_k = [&](int j, int slot) {
        if (j >= my_blocks) return;
        const int key0 = block_key(j);
        const char *k_src;
        bool inside = true;
        if (cache.table) {
            inside = cache.locate(pending, k_src, v_source);
            pending = look_up(j + 1);
        } else {
            k_src = KvCache::step_by(cache.k, static_cast<uint32_t>(key0), cache.k_row);
            v_source = KvCache::step_by(cache.v, static_cast<uint32_t>(key0), cache.v_row);
        }
        v_inside = inside;
        hidden = (hidden & ~(1u << (j % 32))) | (static_cast<uint32_t>(!inside) << (j % 32));
        copy_buffer(slot, k_src, cache.k_row, inside, key0);
    };
    const auto copy_v = [&](int j, int slot) {
        if (j < my_blocks) copy_buffer(slot, v_source, cache.v_row, v_inside, block_key(j));
    };
    // Copy n (K of block n / 2 when n is even, its V when odd) into `slot`, its own commit group.
    const auto copy = [&](int n, int slot) {
        if (n % 2 == 0) {
            copy_k(n / 2, slot);
        } else {
            copy_v(n / 2, slot);
        }
        sm80::cp_async_commit();
    };
    const auto next_slot = [](int slot, int step) { return slot + step >= kSlots ? slot + step - kSlots : slot + step; };

    // The first kSlots - 1 copies.
#pragma unroll
    for (int n = 0; n < kSlots - 1; ++n) copy(n, n);

    // ldmatrix lanes (matrices: keys 0-7 and 8-15 of one chunk pair, in the A operand's order): K
    // as the A operand of S^T (chunks 2 ks and 2 ks + 1 of the block's keys), V transposed as the
    // A operand of O^T (16 dims of the block's keys).
    const sm80::SwizzledLane<kCPR> k_lane(lane % 8 + ((lane / 8) % 2) * 8, lane / 16);
    const sm80::SwizzledLane<kCPR> v_lane(lane % 8 + (lane / 16) * 8, (lane / 8) % 2);
    // Per column c (row row0 + 2t + c): the running maximum in raw score units and this lane's
    // part of the sum (keys g and g + 8 of each block; the column's eight lanes add theirs at the
    // end). O^T's fragments: dims 16 i + g (registers 0, 1) and 16 i + g + 8 (2, 3), columns 0, 1.
    float m[2] = {-CUDART_INF_F, -CUDART_INF_F}, l[2] = {0.f, 0.f};
    float acc_o[kHeadDim / 16][4];
#pragma unroll
    for (int i = 0; i < kHeadDim / 16; ++i)
#pragma unroll
        for (int e = 0; e < 4; ++e) acc_o[i][e] = 0.f;

    // Copy n = 2j + kSlots - 1 goes where copy 2j - 1 (V_{j - 1}) was, and 2j + kSlots where
    // K_j was; k_slot = 2j % kSlots.
    int k_slot = 0;
    for (int j = 0; j < my_blocks; ++j) {
        const int key0 = block_key(j);
        __syncwarp();  // every lane is done reading V_{j - 1}
        copy(2 * j + kSlots - 1, k_slot == 0 ? kSlots - 1 : k_slot - 1);
        sm80::cp_async_wait<kSlots - 1>();
        __syncwarp();  // every lane's copies of K_j have landed

        // S^T: keys key0 + g + 8h in register 2h + c, columns c. Two accumulators, even and odd
        // k16 steps, halve the chain of dependent MMAs.
        float s[4] = {}, s_odd[4] = {};
#pragma unroll
        for (int ks = 0; ks < kHeadDim / 16; ++ks) {
            uint32_t ka[4];
            sm80::ldmatrix_x4(ka, slot_at(k_slot) + k_lane.at(ks * 2));
            MmaT::run(ks % 2 == 0 ? s : s_odd, ka, qb[ks][0], qb[ks][1]);
        }
#pragma unroll
        for (int e = 0; e < 4; ++e) s[e] += s_odd[e];
        const bool block_hidden = (hidden >> (j % 32)) & 1u;
        float weight[4];
#pragma unroll
        for (int c = 0; c < 2; ++c) {
            float block_max = -CUDART_INF_F;
#pragma unroll
            for (int h = 0; h < 2; ++h) {
                const int key = key0 + g + 8 * h;
                const bool visible = !block_hidden && key < key_end && key <= last_key[c];
                s[2 * h + c] = visible ? s[2 * h + c] : -CUDART_INF_F;
                block_max = fmaxf(block_max, s[2 * h + c]);
            }
            block_max = fmaxf(block_max, __shfl_xor_sync(0xffffffffu, block_max, 4));
            block_max = fmaxf(block_max, __shfl_xor_sync(0xffffffffu, block_max, 8));
            block_max = fmaxf(block_max, __shfl_xor_sync(0xffffffffu, block_max, 16));
            const float m_new = fmaxf(m[c], block_max);
            const float offset = exponent_offset(m_new, scale_log2);
            const float rescale = exp2_from_offset(m[c], scale_log2, offset);  // 0 from m = -inf; 1 unless moved
            weight[c] = exp2_from_offset(s[c], scale_log2, offset);
            weight[2 + c] = exp2_from_offset(s[2 + c], scale_log2, offset);
            l[c] = l[c] * rescale + weight[c] + weight[2 + c];
            if (__any_sync(0xffffffffu, m_new > m[c])) {
#pragma unroll
                for (int i = 0; i < kHeadDim / 16; ++i) {
                    acc_o[i][c] *= rescale;
                    acc_o[i][2 + c] *= rescale;
                }
            }
            m[c] = m_new;
        }
        // P^T as the B operand of O^T: keys 2t.. and 2t + 8.. of column g, from the accumulator's
        // keys g and g + 8 of columns 2t, 2t + 1.
        const uint32_t pb0 = transpose_8x8(MmaT::pack(weight[0], weight[1]));
        const uint32_t pb1 = transpose_8x8(MmaT::pack(weight[2], weight[3]));

        __syncwarp();  // every lane is done reading K_j
        copy(2 * j + kSlots, k_slot);
        const int v_slot = next_slot(k_slot, 1);
        sm80::cp_async_wait<kSlots - 1>();
        __syncwarp();  // every lane's copies of V_j have landed
        // Absent keys' V rows landed as zeros and their weights are 0.
#pragma unroll
        for (int i = 0; i < kHeadDim / 16; ++i) {
            uint32_t va[4];
            sm80::ldmatrix_x4_trans(va, slot_at(v_slot) + v_lane.at(2 * i));
            MmaT::run(acc_o[i], va, pb0, pb1);
        }
        k_slot = next_slot(k_slot, 2);
    }
    sm80::cp_async_wait<0>();  // only empty groups can remain; none may land in the merge area
#pragma unroll
    for (int c = 0; c < 2; ++c)
#pragma unroll
        for (int mask = 4; mask < 32; mask *= 2) l[c] += __shfl_xor_sync(0xffffffffu, l[c], mask);

    // The warps' states through shared memory (the rings' bytes, once every warp is past its own),
    // the maximum in base-2 logits as write_rows takes it.
    __syncthreads();
    // Rows padded by four floats: a lane's column pair 2t, 2t + 1 lands in banks 8t + g + 4c, so
    // the warp's transposed stores do not conflict.
    constexpr int kRowStride = kHeadDim + 4;
    float(*s_acc)[kRows][kRowStride] = reinterpret_cast<float(*)[kRows][kRowStride]>(smem);
#pragma unroll
    for (int i = 0; i < kHeadDim / 16; ++i)
#pragma unroll
        for (int c = 0; c < 2; ++c) {
            s_acc[warp][2 * t + c][16 * i + g] = acc_o[i][c];
            s_acc[warp][2 * t + c][16 * i + g + 8] = acc_o[i][2 + c];
        }
    if (g == 0) {
#pragma unroll
        for (int c = 0; c < 2; ++c) {
            s_m[warp][2 * t + c] = m[c] == -CUDART_INF_F ? -CUDART_INF_F : exponent_offset(m[c], scale_log2);
            s_l[warp][2 * t + c] = l[c];
        }
    }
    __syncthreads();
    write_rows<Element, kHeadDim, kRows, kRowStride>(p, cta, s_acc, s_m, s_l);
}

}  // namespace flashattn::decode
