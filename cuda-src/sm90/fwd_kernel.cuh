// The Hopper forward kernel (sm_90a): the portable kernel's algorithm with both GEMMs on
// warpgroup MMAs. Each warpgroup owns 64 query rows; Q, K and V are read by the tensor cores
// straight from shared memory in the 128-byte swizzle layout and P is a register operand, so
// no ldmatrix sits in the key loop. K/V arrive by cp.async into a ring of buffers shared by the
// CTA's warpgroups. With one warpgroup per CTA, two or three CTAs share an SM and one's softmax
// runs under another's MMAs.
#pragma once

#include <cuda_runtime.h>
#include <math_constants.h>

#include <type_traits>

#include "common/tile_work.cuh"
#include "sm80/primitives.cuh"
#include "sm90/traits.cuh"
#include "sm90/wgmma.cuh"

#if defined(__CUDA_ARCH__) && !defined(__CUDA_ARCH_FEAT_SM90_ALL)
#error "the sm90 kernels use wgmma: compile them only with -gencode=arch=compute_90a,code=sm_90a"
#endif

namespace flashattn::sm90 {

using sm80::cp_async_16;
using sm80::cp_async_commit;
using sm80::cp_async_wait;
using sm80::exp2_from_offset;
using sm80::exponent_offset;
using sm80::kFusedExpLimit;
using sm80::smem_addr;

// Copy rows [0, kRows) of a tile from global memory into the swizzled atom layout at shared
// address `tile`, all threads of the CTA; rows >= valid_rows become zeros without being read.
// Each thread keeps one chunk column and steps kRowStep rows per pass; the swizzle repeats every
// 8 rows, so its swizzled address is computed once, or twice when a pass steps only 4 rows (head
// dim 256 in one warpgroup: 32 chunks per row, 128 threads): adding 4 to a row flips one bit of
// row % 8, and odd passes use the second address.
template <typename Traits, int kRows>
__device__ __forceinline__ void load_tile(uint32_t tile, const typename Traits::Element *src, int64_t row_stride,
                                          int valid_rows) {
    constexpr int kCPR = Traits::kChunksPerRow;
    constexpr int kRowStep = Traits::kThreads / kCPR;
    constexpr int kPasses = kRows / kRowStep;
    constexpr bool kAlternating = kRowStep % 8 == 4;
    static_assert(Traits::kThreads % kCPR == 0 && (kRowStep % 8 == 0 || kAlternating) && kRows % kRowStep == 0,
                  "each loader keeps its chunk column, and its swizzle every one or two passes");
    const int row0 = threadIdx.x / kCPR;
    const int chunk = threadIdx.x % kCPR;
    const uint32_t s_even = tile + sw128_offset(kRows, row0, chunk);
    const uint32_t s_odd = kAlternating ? tile + sw128_offset(kRows, row0 + kRowStep, chunk) - kRowStep * kAtomRowBytes
                                        : s_even;
    auto dst = [&](int k) { return (k % 2 ? s_odd : s_even) + k * kRowStep * kAtomRowBytes; };
    const auto *g = src + row0 * row_stride + chunk * 8;
    const int64_t step = kRowStep * row_stride;
    if (valid_rows >= kRows) {
#pragma unroll
        for (int k = 0; k < kPasses; ++k) cp_async_16(dst(k), g + k * step);
    } else {
#pragma unroll
        for (int k = 0; k < kPasses; ++k) {
            const bool valid = row0 + k * kRowStep < valid_rows;
            // An invalid row still needs a legal address operand; row 0 of the tile always exists.
            cp_async_16(dst(k), valid ? g + k * step : src, valid);
        }
    }
}

// kVariant: the runtime inputs this instantiation honours (common/features.cuh).
template <typename Traits, Variant kVariant>
__global__ void __launch_bounds__(Traits::kThreads, Traits::kMinBlocksPerSM) fwd_kernel(const FlashAttnFwdParams p) {
    using Element = typename Traits::Element;
    using F = Features<kVariant>;
    using Pack = sm80::Mma<Element>;
    constexpr int kBlockM = Traits::kBlockM;
    constexpr int kBlockN = Traits::kBlockN;
    constexpr int kStages = Traits::kStages;
    constexpr int kAtoms = Traits::kAtoms;
    constexpr int kNTiles = kBlockN / 8;  // n8 column tiles of S
    constexpr int kCPR = Traits::kChunksPerRow;

    extern __shared__ unsigned char smem_raw[];
    // wgmma's swizzle is a function of address bits, so tiles must start on 1024-byte boundaries.
    const uint32_t raw_base = smem_addr(smem_raw);
    const uint32_t smem_base = (raw_base + kSwizzleBytes - 1) & ~static_cast<uint32_t>(kSwizzleBytes - 1);
    const uint32_t q_smem = smem_base;
    auto k_smem = [&](int stage) { return smem_base + Traits::kQBytes + stage * 2 * Traits::kTileBytes; };
    auto v_smem = [&](int stage) { return k_smem(stage) + Traits::kTileBytes; };

    const TileWork<Element, F> work(p, kBlockM);
    if (work.finish_if_fully_masked<kCPR, Traits::kThreads>(p)) return;
    const int warp = (threadIdx.x / 32) % 4;  // within the warpgroup
    const int lane = threadIdx.x % 32;
    const int g = lane / 4;
    const int t = lane % 4;
    const int warpgroup = threadIdx.x / 128;
    const int warp_row0 = warpgroup * 64 + warp * 16;  // first of this warp's 16 rows

    // Key tiles are walked from the last one down, so the masked tiles come first (and, with a
    // window, the one or two at its left edge last); only tiles some row sees are visited.
    const int n_block_max = work.keys.n_block_max(kBlockN);
    const int n_blocks = n_block_max - work.keys.n_block_min(kBlockN);
    auto load_k = [&](int n_block, int stage) {
        const int key0 = n_block * kBlockN;
        load_tile<Traits, kBlockN>(k_smem(stage), work.k + key0 * p.k_row_stride, p.k_row_stride, work.len.k - key0);
    };
    auto load_v = [&](int n_block, int stage) {
        const int key0 = n_block * kBlockN;
        load_tile<Traits, kBlockN>(v_smem(stage), work.v + key0 * p.v_row_stride, p.v_row_stride, work.len.k - key0);
    };
    auto load_kv = [&](int n_block, int stage) {
        load_k(n_block, stage);
        load_v(n_block, stage);
    };

    // Commit groups: {Q, K of the first tile}, {its V}, then one per later tile. The short
    // sequences are latency-bound and the first Q.K^T waits for nothing but its operands; the
    // first V lands under it. Later tiles keep one group each, so wait_group counts stay exact.
    load_tile<Traits, kBlockM>(q_smem, work.q, p.q_row_stride, work.rows_here);
    load_k(n_block_max - 1, 0);
    cp_async_commit();
    load_v(n_block_max - 1, 0);
    cp_async_commit();
#pragma unroll
    for (int s = 1; s < kStages - 1; ++s) {
        if (s < n_blocks) load_kv(n_block_max - 1 - s, s);
        cp_async_commit();
    }

    // This lane's rows are row0 and row0 + 8.
    const RowMask<8> mask(p, work.keys, warp_row0 + g);
    using Mod = ScoreMod<Element, F::kScoreMod>;
    const Mod mod(p, work.len, work.head, work.row_begin + warp_row0 + g);
    // c: scale * log2(e) on raw scores, or softcap * log2(e) on tanh-capped ones.
    const float scale_log2 = mod.exp_factor(p);
    float acc_o[kAtoms][8][4];
#pragma unroll
    for (int a = 0; a < kAtoms; ++a)
#pragma unroll
        for (int nt = 0; nt < 8; ++nt)
#pragma unroll
            for (int i = 0; i < 4; ++i) acc_o[a][nt][i] = 0.f;
    // This thread's rows are g and g + 8 of its warp's slice; sums are partial (its columns)
    // until the epilogue.
    float row_max[2] = {-CUDART_INF_F, -CUDART_INF_F};
    float row_sum[2] = {0.f, 0.f};

    // S = Q K^T for the key tile in `stage`: [64, kBlockN] per warpgroup, both operands K-major
    // from shared memory; a k16 step is 32 bytes along the swizzled row, or the next atom.
    auto issue_qk = [&](float(&acc_s)[kNTiles][4], int stage) {
        wgmma_fence();
#pragma unroll
        for (int ks = 0; ks < Traits::kQKSteps; ++ks) {
            const uint32_t q_addr =
                q_smem + (ks / 4) * kBlockM * kAtomRowBytes + warpgroup * 64 * kAtomRowBytes + (ks % 4) * 32;
            const uint32_t k_addr = k_smem(stage) + (ks / 4) * kBlockN * kAtomRowBytes + (ks % 4) * 32;
            Wgmma<Element>::ss(acc_s, sw128_desc(q_addr, 16, kSwizzleBytes), sw128_desc(k_addr, 16, kSwizzleBytes),
                               ks > 0);
        }
        wgmma_commit();
    };

    // The online softmax of key tile `n_block`, exactly the portable kernel's arithmetic (see its
    // comments on the fused exponent and the skipped rescale), in two halves. First: mask, new
    // row max, and O and the row sums rescaled to it; O must not be in flight. Second: the
    // exponentials, their row sums and P packed as the A operand of P.V. The overlapped schedule
    // issues the next Q.K^T between the halves: ptxas serializes wgmmas (warning C7515) when a
    // non-wgmma instruction writes an accumulator of a wgmma in the same pipeline stage, and
    // the rescale writes P.V's accumulator.
    struct RowOffsets {
        float m_use[2];
        bool fused_exp;
    };
    auto softmax_rescale = [&](float(&acc_s)[kNTiles][4], int n_block) {
        // Score modifiers and mask rewrite S here, before the next Q.K^T is issued.
        apply_score_mask<F::kWindow>(acc_s, p, mask, mod, 0, n_block * kBlockN, t, kBlockN);
        float m_use[2], alpha[2];
        bool offsets_small = true;
#pragma unroll
        for (int r = 0; r < 2; ++r) {
            float m_new = row_max[r];
#pragma unroll
            for (int nt = 0; nt < kNTiles; ++nt) m_new = fmaxf(m_new, fmaxf(acc_s[nt][2 * r], acc_s[nt][2 * r + 1]));
            m_new = fmaxf(m_new, __shfl_xor_sync(0xffffffff, m_new, 1));
            m_new = fmaxf(m_new, __shfl_xor_sync(0xffffffff, m_new, 2));
            m_use[r] = exponent_offset(m_new, scale_log2);
            alpha[r] = exp2_from_offset(row_max[r], scale_log2, m_use[r]);
            row_max[r] = m_new;
            offsets_small = offsets_small && fabsf(m_use[r]) < kFusedExpLimit;
        }
#pragma unroll
        for (int r = 0; r < 2; ++r) {
            row_sum[r] *= alpha[r];
            if (__any_sync(0xffffffff, alpha[r] != 1.f)) {
#pragma unroll
                for (int a = 0; a < kAtoms; ++a)
#pragma unroll
                    for (int nt = 0; nt < 8; ++nt) {
                        acc_o[a][nt][2 * r] *= alpha[r];
                        acc_o[a][nt][2 * r + 1] *= alpha[r];
                    }
            }
        }
        return RowOffsets{{m_use[0], m_use[1]}, __all_sync(0xffffffff, offsets_small) != 0};
    };
    // S is only read here, never rewritten in place: in the overlapped schedule a write to any
    // register that some wgmma uses as an accumulator, inside the next Q.K^T's pipeline stage,
    // also triggers C7515.
    auto softmax_to_p = [&](const float(&acc_s)[kNTiles][4], const RowOffsets &offsets,
                            uint32_t(&p_frag)[Traits::kPVSteps][4]) {
        auto exponentiate = [&](auto fused) {
            constexpr bool kFused = decltype(fused)::value;
            float partial[2] = {0.f, 0.f};
#pragma unroll
            for (int nt = 0; nt < kNTiles; ++nt) {
                float e[4];
#pragma unroll
                for (int i = 0; i < 4; ++i) e[i] = exp2_from_offset<kFused>(acc_s[nt][i], scale_log2, offsets.m_use[i / 2]);
                partial[0] += e[0] + e[1];
                partial[1] += e[2] + e[3];
                // Two adjacent n8 tiles of S, packed to 16 bits, are one k16 A fragment.
                p_frag[nt / 2][(nt % 2) * 2] = Pack::pack(e[0], e[1]);
                p_frag[nt / 2][(nt % 2) * 2 + 1] = Pack::pack(e[2], e[3]);
            }
            row_sum[0] += partial[0];
            row_sum[1] += partial[1];
        };
        if (offsets.fused_exp)
            exponentiate(std::true_type{});
        else
            exponentiate(std::false_type{});
    };

    // O += P V with P from registers and V as the MN-major B operand straight from its tile.
    // The rescale and the packing must land before the fence (see hold); callers pin O. Up to
    // head dim 128 one wgmma per k16 step covers every column of O (N = head dim): O's atoms
    // are consecutive n8 tiles of one accumulator, and the descriptor's leading offset walks
    // V's atoms. Wider heads take 128 columns at a time.
    constexpr int kPVAtoms = kAtoms > 2 ? 2 : kAtoms;  // 64-column atoms per P.V wgmma
    auto issue_pv = [&](uint32_t(&p_frag)[Traits::kPVSteps][4], int stage) {
        hold(p_frag);
        wgmma_fence();
#pragma unroll
        for (int a = 0; a < kAtoms; a += kPVAtoms)
#pragma unroll
            for (int kk = 0; kk < Traits::kPVSteps; ++kk) {
                const uint32_t v_addr = v_smem(stage) + a * kBlockN * kAtomRowBytes + kk * 16 * kAtomRowBytes;
                auto &o_cols = *reinterpret_cast<float(*)[kPVAtoms * 8][4]>(&acc_o[a]);
                Wgmma<Element>::rs(o_cols, p_frag[kk], sw128_desc(v_addr, kBlockN * kAtomRowBytes, kSwizzleBytes));
            }
        wgmma_commit();
    };

    // Every shared-memory copy this thread made so far has landed and, after the barrier, is
    // visible to every warpgroup's tensor-core reads; every warpgroup has also finished the MMAs
    // it waited for before arriving.
    auto tiles_landed = [&]() {
        fence_proxy_async();
        __syncthreads();
    };

    if constexpr (!Traits::kOverlapQK) {
        for (int iter = 0; iter < n_blocks; ++iter) {
            const int stage = iter % kStages;
            if (iter == 0)
                cp_async_wait<kStages - 1>();  // Q and the first K (its V may still be in flight)
            else
                cp_async_wait<kStages - 2>();
            tiles_landed();  // this stage landed; the one refilled next is free
            const int ahead = iter + kStages - 1;
            if (ahead < n_blocks) load_kv(n_block_max - 1 - ahead, ahead % kStages);
            cp_async_commit();

            float acc_s[kNTiles][4];
            issue_qk(acc_s, stage);
            wgmma_wait<0>();
            hold(acc_s);
            uint32_t p_frag[Traits::kPVSteps][4];
            softmax_to_p(acc_s, softmax_rescale(acc_s, n_block_max - 1 - iter), p_frag);
            if (iter == 0) {
                cp_async_wait<kStages - 1>();  // the first V (the prefetch above may be in flight)
                tiles_landed();
            }
            hold(acc_o);
            issue_pv(p_frag, stage);
            wgmma_wait<0>();
            hold(acc_o);
            hold(p_frag);
        }
    } else {
        // Q.K^T of the next key tile runs on the tensor cores while this tile's softmax runs on
        // the other units (FlashAttention-3's intra-warpgroup overlap). Two S accumulators, the
        // loop unrolled by two so each has fixed registers. Three buffers: while tile j's V and
        // tile j+1's K are read, tile j+2 streams into the third.
        float acc_a[kNTiles][4], acc_b[kNTiles][4];
        cp_async_wait<kStages - 1>();  // Q and the first K
        tiles_landed();
        issue_qk(acc_a, 0);
        wgmma_wait<0>();
        hold(acc_a);
        auto step = [&](int iter, float(&cur)[kNTiles][4], float(&next)[kNTiles][4]) {
            const bool has_next = iter + 1 < n_blocks;
            const RowOffsets offsets = softmax_rescale(cur, n_block_max - 1 - iter);
            // O is pinned here, ahead of the next Q.K^T: pinning it again inside that wgmma's
            // pipeline stage (before P.V) also triggers C7515.
            hold(acc_o);
            if (has_next) {
                cp_async_wait<0>();
                tiles_landed();  // tile iter+1 landed; tile iter-1's buffer is free
                if (iter + 2 < n_blocks) load_kv(n_block_max - 1 - (iter + 2), (iter + 2) % kStages);
                cp_async_commit();
                issue_qk(next, (iter + 1) % kStages);
            }
            uint32_t p_frag[Traits::kPVSteps][4];
            softmax_to_p(cur, offsets, p_frag);
            if (iter == 0 && !has_next) {
                cp_async_wait<0>();  // the first V (with a next tile, the wait above covered it)
                tiles_landed();
            }
            issue_pv(p_frag, iter % kStages);
            wgmma_wait<0>();
            hold(acc_o);
            hold(p_frag);
            hold(next);
        };
        for (int iter = 0; iter < n_blocks; iter += 2) {
            step(iter, acc_a, acc_b);
            if (iter + 1 < n_blocks) step(iter + 1, acc_b, acc_a);
        }
    }

    // Epilogue: finish the row sums across the quad, normalise, and stage O through the Q
    // buffer so global stores are whole 16-byte chunks.
    cp_async_wait<0>();
    __syncthreads();  // every warp is done with Q and the last K/V stage
    const uint32_t o_smem = q_smem;
    const bool has_sink = work.has_sink(p);
    const float sink = work.sink(p);
#pragma unroll
    for (int r = 0; r < 2; ++r) {
        row_sum[r] += __shfl_xor_sync(0xffffffff, row_sum[r], 1);
        row_sum[r] += __shfl_xor_sync(0xffffffff, row_sum[r], 2);
        const RowFinish fin = finish_row(row_max[r], row_sum[r], scale_log2, mod.lse_factor(p), has_sink, sink);
        const float inv = fin.inv;
        const int local_row = warp_row0 + g + r * 8;
        if (work.lse && t == 0 && local_row < work.rows_here) work.lse[local_row] = fin.lse();
#pragma unroll
        for (int a = 0; a < kAtoms; ++a)
#pragma unroll
            for (int nt = 0; nt < 8; ++nt) {
                const uint32_t packed = Pack::pack(acc_o[a][nt][2 * r] * inv, acc_o[a][nt][2 * r + 1] * inv);
                asm volatile("st.shared.b32 [%0], %1;\n" ::"r"(o_smem + sw128_offset(kBlockM, local_row, a * 8 + nt) +
                                                                4 * t),
                             "r"(packed));
            }
    }
    __syncthreads();
    for (int i = threadIdx.x; i < work.rows_here * kCPR; i += Traits::kThreads) {
        const int row = i / kCPR, chunk = i % kCPR;
        uint4 v;
        asm volatile("ld.shared.v4.b32 {%0, %1, %2, %3}, [%4];\n"
                     : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                     : "r"(o_smem + sw128_offset(kBlockM, row, chunk)));
        *reinterpret_cast<uint4 *>(work.o + row * p.o_row_stride + chunk * 8) = v;
    }
}

template <typename Traits, Variant kVariant>
FlashAttnStatus launch_fwd(FlashAttnFwdParams *params, cudaStream_t stream) {
    static SmemOptIns opted_in{0};
    return launch_tiles(fwd_kernel<Traits, kVariant>, Traits::kBlockM, Traits::kThreads, Traits::kSmemLaunchBytes,
                        params, stream, opted_in);
}

}  // namespace flashattn::sm90
