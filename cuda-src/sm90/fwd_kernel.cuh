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
#include "sm90/qkv_tiles.cuh"
#include "sm90/traits.cuh"
#include "sm90/warpgroup_tile.cuh"
#include "sm90/wgmma.cuh"

#if defined(__CUDA_ARCH__) && !defined(__CUDA_ARCH_FEAT_SM90_ALL)
#error "the sm90 kernels use wgmma: compile them only with -gencode=arch=compute_90a,code=sm_90a"
#endif

namespace flashattn::sm90 {

using sm80::cp_async_16;
using sm80::cp_async_commit;
using sm80::cp_async_wait;

// Copies rows [0, kRows) of a tile from global memory into the swizzled atom layout, all threads
// of the CTA; rows >= valid_rows become zeros without being read. Each thread keeps one chunk
// column and steps kRowStep rows per pass; the swizzle repeats every 8 rows, so its swizzled
// offset is one number, or two when a pass steps only 4 rows (head dim 256 in one warpgroup: 32
// chunks per row, 128 threads): adding 4 to a row flips one bit of row % 8, and odd passes use
// the second offset. The thread's offsets are worked out once, where the copier is made, and a
// copy in the key loop only adds its tile's base: worked out per copy, they made the one-warpgroup
// tiles 2-3% slower at four CTAs an SM on the H200 (f16 B4 H16 S512, the 64-key tile: 2.3%;
// docs/benchmarks/2026-11-29-h200-pv-across-turn.md).
template <typename Traits, int kRows>
struct TileCopier {
    using Element = typename Traits::Element;
    static constexpr int kCPR = Traits::kChunksPerRow;
    static constexpr int kRowStep = Traits::kThreads / kCPR;
    static constexpr int kPasses = kRows / kRowStep;
    static constexpr bool kAlternating = kRowStep % 8 == 4;
    static_assert(Traits::kThreads % kCPR == 0 && (kRowStep % 8 == 0 || kAlternating) && kRows % kRowStep == 0,
                  "each loader keeps its chunk column, and its swizzle every one or two passes");

    int row0;          // the thread's first row
    uint32_t s_even;   // its swizzled byte offset in the tile, even passes
    uint32_t s_odd;    // and odd ones
    int64_t g_offset;  // its first chunk's element offset from the tile's first row
    int64_t g_step;    // elements between passes

    __device__ __forceinline__ explicit TileCopier(int64_t row_stride)
        : row0(threadIdx.x / kCPR),
          s_even(sw128_offset(kRows, row0, threadIdx.x % kCPR)),
          s_odd(kAlternating ? sw128_offset(kRows, row0 + kRowStep, threadIdx.x % kCPR) - kRowStep * kAtomRowBytes
                             : s_even),
          g_offset(row0 * row_stride + threadIdx.x % kCPR * 8),
          g_step(kRowStep * row_stride) {}

    __device__ __forceinline__ void operator()(uint32_t tile, const Element *src, int valid_rows) const {
        auto dst = [&](int k) { return tile + (k % 2 ? s_odd : s_even) + k * kRowStep * kAtomRowBytes; };
        const Element *g = src + g_offset;
        if (valid_rows >= kRows) {
#pragma unroll
            for (int k = 0; k < kPasses; ++k) cp_async_16(dst(k), g + k * g_step);
        } else {
#pragma unroll
            for (int k = 0; k < kPasses; ++k) {
                const bool valid = row0 + k * kRowStep < valid_rows;
                // An invalid row still needs a legal address operand; row 0 of the tile always exists.
                cp_async_16(dst(k), valid ? g + k * g_step : src, valid);
            }
        }
    }
};

// kVariant: the runtime inputs this instantiation honours (common/features.cuh).
template <typename Traits, Variant kVariant>
__global__ void __launch_bounds__(Traits::kThreads, Traits::kMinBlocksPerSM) fwd_kernel(const FlashAttnFwdParams p) {
    using Element = typename Traits::Element;
    using F = Features<kVariant>;
    constexpr int kBlockM = Traits::kBlockM;
    constexpr int kBlockN = Traits::kBlockN;
    constexpr int kStages = Traits::kStages;
    constexpr int kCPR = Traits::kChunksPerRow;

    extern __shared__ unsigned char smem_raw[];
    const QkvTiles<Traits> smem(smem_raw);

    // Launched as a programmatic dependent (common/launch.cuh): nothing in global memory is
    // touched before the kernel ahead on the stream is done.
    wait_for_prerequisite_grids();
    const TileWork<Element, F> work(p, kBlockM);
    if (work.finish_if_fully_masked<kCPR, Traits::kThreads>(p)) return;
    const int warp = (threadIdx.x / 32) % 4;  // within the warpgroup
    const int lane = threadIdx.x % 32;
    const int g = lane / 4;
    const int warpgroup = warpgroup_index();

    // Key tiles are walked from the last one down, so the masked tiles come first (and, with a
    // window, the one or two at its left edge last); only tiles some row sees are visited.
    const int n_block_max = work.keys.n_block_max(kBlockN);
    const int n_blocks = n_block_max - work.keys.n_block_min(kBlockN);
    const TileCopier<Traits, kBlockN> copy_k(p.k_row_stride), copy_v(p.v_row_stride);
    auto load_k = [&](int n_block, int stage) {
        const int key0 = n_block * kBlockN;
        copy_k(smem.k_tile(stage), work.k + key0 * p.k_row_stride, work.len.k - key0);
    };
    auto load_v = [&](int n_block, int stage) {
        const int key0 = n_block * kBlockN;
        copy_v(smem.v_tile(stage), work.v + key0 * p.v_row_stride, work.len.k - key0);
    };
    auto load_kv = [&](int n_block, int stage) {
        load_k(n_block, stage);
        load_v(n_block, stage);
    };

    // Commit groups: {Q, K of the first tile}, {its V}, then one per later tile. The short
    // sequences are latency-bound and the first Q.K^T waits for nothing but its operands; the
    // first V lands under it. Later tiles keep one group each, so wait_group counts stay exact.
    TileCopier<Traits, kBlockM>(p.q_row_stride)(smem.q_tile(), work.q, work.rows_here);
    load_k(n_block_max - 1, 0);
    cp_async_commit();
    load_v(n_block_max - 1, 0);
    cp_async_commit();
#pragma unroll
    for (int s = 1; s < kStages - 1; ++s) {
        if (s < n_blocks) load_kv(n_block_max - 1 - s, s);
        cp_async_commit();
    }

    WarpgroupTile<Traits, F> wg(p, work, warpgroup, warp, lane);
    using Scores = typename WarpgroupTile<Traits, F>::Scores;
    using PFrag = typename WarpgroupTile<Traits, F>::PFrag;

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

            Scores acc_s;
            wg.issue_qk(acc_s, smem.q_tile(), smem.k_tile(stage));
            wgmma_wait<0>();
            hold(acc_s);
            PFrag p_frag;
            wg.to_p(acc_s, wg.rescale(acc_s, p, (n_block_max - 1 - iter) * kBlockN), p_frag);
            if (iter == 0) {
                cp_async_wait<kStages - 1>();  // the first V (the prefetch above may be in flight)
                tiles_landed();
            }
            hold(wg.acc_o);
            wg.issue_pv(p_frag, smem.v_tile(stage));
            wgmma_wait<0>();
            hold(wg.acc_o);
            hold(p_frag);
        }
    } else {
        // Q.K^T of the next key tile runs on the tensor cores while this tile's softmax runs on
        // the other units (FlashAttention-3's intra-warpgroup overlap). Two S accumulators, the
        // loop unrolled by two so each has fixed registers. Three buffers: while tile j's V and
        // tile j+1's K are read, tile j+2 streams into the third.
        Scores acc_a, acc_b;
        cp_async_wait<kStages - 1>();  // Q and the first K
        tiles_landed();
        wg.issue_qk(acc_a, smem.q_tile(), smem.k_tile(0));
        wgmma_wait<0>();
        hold(acc_a);
        auto step = [&](int iter, Scores &cur, Scores &next) {
            const bool has_next = iter + 1 < n_blocks;
            const auto offsets = wg.rescale(cur, p, (n_block_max - 1 - iter) * kBlockN);
            // O is pinned here, ahead of the next Q.K^T: pinning it again inside that wgmma's
            // pipeline stage (before P.V) also triggers C7515.
            hold(wg.acc_o);
            if (has_next) {
                cp_async_wait<0>();
                tiles_landed();  // tile iter+1 landed; tile iter-1's buffer is free
                if (iter + 2 < n_blocks) load_kv(n_block_max - 1 - (iter + 2), (iter + 2) % kStages);
                cp_async_commit();
                wg.issue_qk(next, smem.q_tile(), smem.k_tile((iter + 1) % kStages));
            }
            PFrag p_frag;
            wg.to_p(cur, offsets, p_frag);
            if (iter == 0 && !has_next) {
                cp_async_wait<0>();  // the first V (with a next tile, the wait above covered it)
                tiles_landed();
            }
            wg.issue_pv(p_frag, smem.v_tile(iter % kStages));
            wgmma_wait<0>();
            hold(wg.acc_o);
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
    const uint32_t o_smem = smem.q_tile();
    wg.finish(p, work, o_smem, g);
    __syncthreads();
    store_o_rows<Traits>(o_smem, work.o, p.o_row_stride, 0, work.rows_here, threadIdx.x, Traits::kThreads);
}

template <typename Traits, Variant kVariant>
FlashAttnStatus launch_fwd(FlashAttnFwdParams *params, cudaStream_t stream) {
    static KernelFacts facts;
    return launch_tiles(fwd_kernel<Traits, kVariant>, Traits::kBlockM, Traits::kThreads, Traits::kSmemLaunchBytes,
                        params, stream, facts, *params);
}

}  // namespace flashattn::sm90
