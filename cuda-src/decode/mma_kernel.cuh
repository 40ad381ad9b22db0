// Split-KV decode on the tensor cores, head dims 32 to 128 (decode_kernel.cuh's lane kernel
// serves 256).
//
// The lane kernel does a key's dot products and its share of P.V with FMAs, 64 of them a key and
// lane at head dim 128 beside as many shuffles, unpacks and softmax steps: on the H200 it issues
// an instruction in most cycles and reads K/V below the copy ceiling (call KAK,
// docs/benchmarks/2026-11-30-h200-decode.md). Here each warp takes blocks of 16 keys and runs
// them through m16n8k16 MMAs, with the CTA's query rows as the MMA's rows: S = Q.K^T is two n8
// tiles per k16 step of the head dim, and P.V one k16 step over the block's keys. The CTA's eight
// rows sit in rows g = lane / 4 of each fragment; rows g + 8 are zeros. Half of every MMA is
// padding, which costs nothing that matters here: a block's math is a few dozen instructions a
// warp, not the lane kernel's thousand.
//
// Each warp streams its own blocks (w, w + 4, ... of the split) with cp.async into its own ring
// of kStages K/V buffers, swizzled for ldmatrix (sm80/primitives.cuh), so warps never wait for
// each other until the merge; two __syncwarps order a block's copies before its reads and its
// reads before the buffer's refill. Splits begin at multiples of 16 keys, so a block never
// straddles a page (page sizes are multiples of 16): a paged block is one block-table read and
// one page address, looked up a block ahead.
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

template <typename Element_, int kHeadDim_>
struct MmaDecodeTraits {
    using Element = Element_;
    static constexpr int kHeadDim = kHeadDim_;
    static constexpr int kChunksPerRow = kHeadDim / kChunk;
    static constexpr int kRows = 8;        // query rows per CTA: fragment rows g = lane / 4
    static constexpr int kBlockKeys = 16;  // a warp's block: two n8 tiles of S, one k16 step of P.V
    static constexpr int kBlockBytes = kBlockKeys * kHeadDim * 2;  // its K, or its V
    static constexpr int kStageBytes = 2 * kBlockBytes;
    // Buffers in each warp's ring: as many as 48 KB a CTA holds, two to four (64 KB at head dim
    // 128: three CTAs an SM on the H100, one on the 100 KB SMs of sm_86/89/120).
    static constexpr int kStages = clamp_int(48 * 1024 / (kWarps * kStageBytes), 2, 4);
    static constexpr int kRingBytes = kWarps * kStages * kStageBytes;
    // The rings, then each warp's row maxima and sums for the merge. All of it dynamic: static
    // shared memory beside 48 KB of dynamic would need the opt-in that launch_opted_in gives only
    // above 48 KB of dynamic (call KAL: head dims 64 and 96 failed to launch with 256 bytes static).
    static constexpr int kSmemBytes = kRingBytes + 2 * kWarps * kRows * 4;
    static constexpr int kChunksPerLane = kBlockKeys * kChunksPerRow / 32;  // 16-byte copies of K (and of V)
    // Registers for three CTAs an SM; decode_splits (crates/flashattn/src/decode.rs) sizes the grid
    // for one, which keeps the memory busy.
    static constexpr int kMinCtasPerSm = 3;
    static_assert(kHeadDim % 32 == 0 && kHeadDim <= 128, "head dims 32, 64, 96 and 128");
    static_assert(kWarps * kRows * kHeadDim * 4 <= kRingBytes, "the warps' merge reuses the rings");
};

template <typename Traits>
__global__ void __launch_bounds__(kThreads, Traits::kMinCtasPerSm) decode_mma_kernel(const FlashAttnDecodeParams p) {
    using Element = typename Traits::Element;
    using MmaT = sm80::Mma<Element>;
    using PagedKey = KvCache::PagedKey;
    constexpr int kHeadDim = Traits::kHeadDim, kCPR = Traits::kChunksPerRow, kRows = Traits::kRows;
    constexpr int kBlockKeys = Traits::kBlockKeys, kStages = Traits::kStages;
    constexpr int kElem = sizeof(Element);

    // As the lane kernel: dependents in early only when a combine follows; nothing read before
    // the kernel ahead on the stream is done.
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

    // Q's row g as the A operand, raw (the scale goes into the exponent, as in the forward
    // kernels): registers 0 and 2 of each k16 step, rows g + 8 (registers 1 and 3) zero.
    const int rr = row0 + g;
    const bool row_real = rr < total_rows;
    uint32_t qa[kHeadDim / 16][4];
    {
        const int i = row_real ? rr / group : 0, h = kv_head * group + (row_real ? rr % group : 0);
        const Element *q_row = static_cast<const Element *>(p.q) + b * p.q_batch_stride + int64_t{i} * p.q_row_stride +
                               int64_t{h} * p.q_head_stride;
#pragma unroll
        for (int ks = 0; ks < kHeadDim / 16; ++ks) {
            qa[ks][0] = row_real ? *reinterpret_cast<const uint32_t *>(q_row + ks * 16 + 2 * t) : 0u;
            qa[ks][2] = row_real ? *reinterpret_cast<const uint32_t *>(q_row + ks * 16 + 8 + 2 * t) : 0u;
            qa[ks][1] = qa[ks][3] = 0u;
        }
    }
    // Causal is bottom-right aligned: query i sees keys j <= i + seqlen_k - seqlen_q.
    const int last_key = !row_real ? -1 : p.causal ? rr / group + seqlen_k - p.seqlen_q : seqlen_k - 1;
    const float scale_log2 = p.softmax_scale * kLog2e;

    // The warp's ring and each lane's part of a block's copies: chunk lane + 32 i of the block's
    // 16 x kCPR chunks, key (lane + 32 i) / kCPR, column (lane + 32 i) % kCPR.
    const uint32_t ring = sm80::smem_addr(smem) + static_cast<uint32_t>(warp * kStages * Traits::kStageBytes);
    const auto k_buffer = [&](int stage) { return ring + static_cast<uint32_t>(stage * Traits::kStageBytes); };
    const auto v_buffer = [&](int stage) { return k_buffer(stage) + static_cast<uint32_t>(Traits::kBlockBytes); };
    const KvCache cache(p, b, kv_head, kElem, 0);
    uint32_t hidden = 0;  // bit s: buffer s holds a block whose page is not one of the cache's (skipped)
    const auto issue = [&](int j, PagedKey at) {
        const int stage = j % kStages, key0 = block_key(j);
        const char *k_src, *v_src;
        bool inside = true;
        if (cache.table) {
            inside = cache.locate(at, k_src, v_src);
        } else {
            k_src = KvCache::step_by(cache.k, static_cast<uint32_t>(key0), cache.k_row);
            v_src = KvCache::step_by(cache.v, static_cast<uint32_t>(key0), cache.v_row);
        }
        hidden = (hidden & ~(1u << stage)) | (static_cast<uint32_t>(!inside) << stage);
#pragma unroll
        for (int i = 0; i < Traits::kChunksPerLane; ++i) {
            const int chunk = lane + 32 * i, key = chunk / kCPR, column = chunk % kCPR;
            const bool present = inside && key0 + key < key_end;
            const uint32_t at = static_cast<uint32_t>(sm80::swizzle<kCPR>(key, column) * 2);
            sm80::cp_async_16(k_buffer(stage) + at, KvCache::step_by(k_src, key, cache.k_row) + column * 16, present);
            sm80::cp_async_16(v_buffer(stage) + at, KvCache::step_by(v_src, key, cache.v_row) + column * 16, present);
        }
    };
    const auto look_up = [&](int j) {
        return cache.table && j < my_blocks ? cache.look_up(block_key(j), key_end) : PagedKey{};
    };

    // The first kStages - 1 blocks: their block-table entries read together, then their copies.
    {
        PagedKey first[kStages - 1];
#pragma unroll
        for (int j = 0; j < kStages - 1; ++j) first[j] = look_up(j);
#pragma unroll
        for (int j = 0; j < kStages - 1; ++j) {
            if (j < my_blocks) issue(j, first[j]);
            sm80::cp_async_commit();
        }
    }
    PagedKey pending = look_up(kStages - 1);  // read a block before its copies are issued

    // ldmatrix lanes (sm80/fwd_kernel.cuh's): K as the B operand of S (x4: both n8 tiles, chunks k
    // and k + 1), V transposed as the B operand of P.V (x4: the 16 keys, two d8 tiles).
    const sm80::SwizzledLane<kCPR> k_lane(lane % 8 + (lane / 16) * 8, (lane / 8) % 2);
    const sm80::SwizzledLane<kCPR> v_lane(lane % 8 + ((lane / 8) % 2) * 8, lane / 16);
    // Row g's running maximum (raw score units) and this lane's part of its sum (its four keys of
    // each block; the row's four lanes add theirs at the end), and O's fragments.
    float m = -CUDART_INF_F, l = 0.f;
    float acc_o[kHeadDim / 8][4];
#pragma unroll
    for (int dt = 0; dt < kHeadDim / 8; ++dt)
#pragma unroll
        for (int e = 0; e < 4; ++e) acc_o[dt][e] = 0.f;

    for (int j = 0; j < my_blocks; ++j) {
        __syncwarp();  // every lane is done reading block j - 1, whose buffer block j + kStages - 1 takes
        if (j + kStages - 1 < my_blocks) {
            issue(j + kStages - 1, pending);
            pending = look_up(j + kStages);
        }
        sm80::cp_async_commit();
        sm80::cp_async_wait<kStages - 1>();
        __syncwarp();  // every lane's copies of block j have landed
        const int stage = j % kStages, key0 = block_key(j);
        const bool block_hidden = (hidden >> stage) & 1u;

        float s[2][4] = {};
#pragma unroll
        for (int ks = 0; ks < kHeadDim / 16; ++ks) {
            uint32_t bk[4];
            sm80::ldmatrix_x4(bk, k_buffer(stage) + k_lane.at(ks * 2));
            MmaT::run(s[0], qa[ks], bk[0], bk[1]);
            MmaT::run(s[1], qa[ks], bk[2], bk[3]);
        }
        // Row g's scores of keys key0 + 8 nt + 2 t + e; masked ones -inf.
        float block_max = -CUDART_INF_F;
#pragma unroll
        for (int nt = 0; nt < 2; ++nt)
#pragma unroll
            for (int e = 0; e < 2; ++e) {
                const int key = key0 + nt * 8 + 2 * t + e;
                const bool visible = !block_hidden && key < key_end && key <= last_key;
                s[nt][e] = visible ? s[nt][e] : -CUDART_INF_F;
                block_max = fmaxf(block_max, s[nt][e]);
            }
        block_max = fmaxf(block_max, __shfl_xor_sync(0xffffffffu, block_max, 1));
        block_max = fmaxf(block_max, __shfl_xor_sync(0xffffffffu, block_max, 2));
        const float m_new = fmaxf(m, block_max);
        const float offset = sm80::exponent_offset(m_new, scale_log2);
        const bool moved = m_new > m;
        const float rescale = sm80::exp2_from_offset(m, scale_log2, offset);  // 0 from m = -inf; 1 unless moved
        float weight[2][2], sum = 0.f;
#pragma unroll
        for (int nt = 0; nt < 2; ++nt)
#pragma unroll
            for (int e = 0; e < 2; ++e) {
                weight[nt][e] = sm80::exp2_from_offset(s[nt][e], scale_log2, offset);
                sum += weight[nt][e];
            }
        l = l * rescale + sum;
        m = m_new;
        if (__any_sync(0xffffffffu, moved)) {
#pragma unroll
            for (int dt = 0; dt < kHeadDim / 8; ++dt) {
                acc_o[dt][0] *= rescale;
                acc_o[dt][1] *= rescale;
            }
        }
        // P.V: the two n8 tiles of S, packed, are the A operand of the block's k16 step (rows g + 8
        // zero); absent keys' V rows landed as zeros and their weights are 0.
        const uint32_t pa[4] = {MmaT::pack(weight[0][0], weight[0][1]), 0u, MmaT::pack(weight[1][0], weight[1][1]), 0u};
#pragma unroll
        for (int dt = 0; dt < kHeadDim / 8; dt += 2) {
            uint32_t bv[4];
            sm80::ldmatrix_x4_trans(bv, v_buffer(stage) + v_lane.at(dt));
            MmaT::run(acc_o[dt], pa, bv[0], bv[1]);
            MmaT::run(acc_o[dt + 1], pa, bv[2], bv[3]);
        }
    }
    sm80::cp_async_wait<0>();  // only empty groups can remain; none may land in the merge area
    l += __shfl_xor_sync(0xffffffffu, l, 1);
    l += __shfl_xor_sync(0xffffffffu, l, 2);

    // The warps' states through shared memory (the rings' bytes, once every warp is past its own),
    // the maximum in base-2 logits as write_rows takes it.
    __syncthreads();
    float(*s_acc)[kRows][kHeadDim] = reinterpret_cast<float(*)[kRows][kHeadDim]>(smem);
#pragma unroll
    for (int dt = 0; dt < kHeadDim / 8; ++dt) {
        s_acc[warp][g][dt * 8 + 2 * t] = acc_o[dt][0];
        s_acc[warp][g][dt * 8 + 2 * t + 1] = acc_o[dt][1];
    }
    if (t == 0) {
        s_m[warp][g] = m == -CUDART_INF_F ? -CUDART_INF_F : sm80::exponent_offset(m, scale_log2);
        s_l[warp][g] = l;
    }
    __syncthreads();
    write_rows<Element, kHeadDim, kRows>(p, cta, s_acc, s_m, s_l);
}

}  // namespace flashattn::decode
