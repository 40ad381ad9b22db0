// The Hopper forward kernel (sm_90a): the portable kernel's algorithm with both GEMMs on
// warpgroup MMAs. Each warpgroup owns 64 query rows; Q, K and V are read by the tensor cores
// straight from shared memory in the 128-byte swizzle layout and P is a register operand, so
// no ldmatrix sits in the key loop. K/V arrive in a ring of buffers shared by the CTA's
// warpgroups, fed by TMA where tensor maps describe the tensors and by cp.async otherwise
// (fwd_feeds.cuh): one key loop, compiled as two kernels; the TMA kernel also stores O by TMA
// where the launch has more CTAs than the device has SMs. With one warpgroup per CTA, several
// CTAs share an SM and one's softmax runs under another's MMAs.
#pragma once

#include <cuda_runtime.h>
#include <math_constants.h>

#include <type_traits>

#include "common/tile_work.cuh"
#include "sm90/fwd_feeds.cuh"
#include "sm90/qkv_tiles.cuh"
#include "sm90/traits.cuh"
#include "sm90/warpgroup_tile.cuh"
#include "sm90/wgmma.cuh"

#if defined(__CUDA_ARCH__) && !defined(__CUDA_ARCH_FEAT_SM90_ALL)
#error "the sm90 kernels use wgmma: compile them only with -gencode=arch=compute_90a,code=sm_90a"
#endif

namespace flashattn::sm90 {

// One tile's computation, fed by Feed (fwd_feeds.cuh) from the kernel argument `args`.
// kVariant: the runtime inputs this instantiation honours (common/features.cuh).
template <typename Traits, Variant kVariant, template <typename, typename> class Feed, typename Args>
__device__ __forceinline__ void compute_tile(const FlashAttnFwdParams &p, const Args &args) {
    using F = Features<kVariant>;
    using Work = TileWork<typename Traits::Element, F>;
    constexpr int kBlockN = Traits::kBlockN;
    constexpr int kStages = Traits::kStages;

    extern __shared__ unsigned char smem_raw[];
    const QkvTiles<Traits> smem(smem_raw);

    // Launched as a programmatic dependent (common/launch.cuh): nothing in global memory is
    // touched before the kernel ahead on the stream is done.
    wait_for_prerequisite_grids();
    const int3 tile = Work::tile_coords(p);
    const Work work(p, Traits::kBlockM, tile);
    if (work.template finish_if_fully_masked<Traits::kChunksPerRow, Traits::kThreads>(p)) return;
    const int warp = (threadIdx.x / 32) % 4;  // within the warpgroup
    const int lane = threadIdx.x % 32;
    const int g = lane / 4;
    const int warpgroup = warpgroup_index();

    // Key tiles are walked from the last one down, so the masked tiles come first (and, with a
    // window, the one or two at its left edge last); only tiles some row sees are visited.
    const int n_block_max = work.keys.n_block_max(kBlockN);
    const int n_blocks = n_block_max - work.keys.n_block_min(kBlockN);
    const Feed<Traits, Work> feed(args, smem, work, tile, n_block_max, n_blocks);
    feed.start(p);

    WarpgroupTile<Traits, F> wg(p, work, warpgroup, warp, lane);
    using Scores = typename WarpgroupTile<Traits, F>::Scores;
    using PFrag = typename WarpgroupTile<Traits, F>::PFrag;

    if constexpr (!Traits::kOverlapQK) {
        for (int iter = 0; iter < n_blocks; ++iter) {
            const int stage = iter % kStages;
            feed.await_k(iter);
            feed.refill(iter + kStages - 1);  // into the buffer the last tile freed

            Scores acc_s;
            wg.issue_qk(acc_s, smem.q_tile(), smem.k_tile(stage));
            wgmma_wait<0>();
            hold(acc_s);
            PFrag p_frag;
            wg.to_p(acc_s, wg.rescale(acc_s, p, (n_block_max - 1 - iter) * kBlockN), p_frag);
            feed.await_v(iter);
            wg.hold_o();
            wg.issue_pv(p_frag, smem.v_tile(stage));
            wgmma_wait<0>();
            wg.hold_o();
            hold(p_frag);
        }
    } else {
        // Q.K^T of the next key tile runs on the tensor cores while this tile's softmax runs on
        // the other units (FlashAttention-3's intra-warpgroup overlap). Two S accumulators, the
        // loop unrolled by two so each has fixed registers. Three buffers: while tile j's V and
        // tile j+1's K are read, tile j+2 streams into the third.
        Scores acc_a, acc_b;
        feed.await_k(0);
        wg.issue_qk(acc_a, smem.q_tile(), smem.k_tile(0));
        wgmma_wait<0>();
        hold(acc_a);
        auto step = [&](int iter, Scores &cur, Scores &next) {
            const bool has_next = iter + 1 < n_blocks;
            const auto offsets = wg.rescale(cur, p, (n_block_max - 1 - iter) * kBlockN);
            // O is pinned here, ahead of the next Q.K^T: pinning it again inside that wgmma's
            // pipeline stage (before P.V) also triggers C7515.
            wg.hold_o();
            if (has_next) {
                feed.await_k(iter + 1);
                feed.refill(iter + 2);  // into tile iter-1's buffer
                wg.issue_qk(next, smem.q_tile(), smem.k_tile((iter + 1) % kStages));
            }
            PFrag p_frag;
            wg.to_p(cur, offsets, p_frag);
            feed.await_v(iter);
            wg.issue_pv(p_frag, smem.v_tile(iter % kStages));
            wgmma_wait<0>();
            wg.hold_o();
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
    feed.drain();
    __syncthreads();  // every warp is done with Q and the last K/V stage
    const uint32_t o_smem = smem.q_tile();
    wg.finish(p, work, o_smem, g);
    feed.before_o_barrier();
    __syncthreads();
    feed.store_o(p, o_smem);
}

// Q, K and V by cp.async: tensors no tensor map describes (fwd_feeds.cuh).
template <typename Traits, Variant kVariant>
__global__ void __launch_bounds__(Traits::kThreads, Traits::min_blocks_per_sm(kVariant))
    fwd_kernel(const FlashAttnFwdParams p) {
    compute_tile<Traits, kVariant, CpAsyncFeed>(p, p);
}

// Q, K and V by TMA, where tensor maps describe them (dense tensors, or packed varlen ones). One
// thread's copies instead of every thread's: on the lent H200 against the cp.async kernel (variant
// probe, docs/benchmarks/2026-11-30-h200-tma-feed.md) f16 S=512 D=64 B4 H16 2% faster, B8 H16 8%,
// the long shapes' 64-row and 128-row tiles 10-37%, latency-bound one-wave launches within 1%.
// kOByTma: O by TMA stores (fwd_feeds.cuh, TmaFeed).
template <typename Traits, Variant kVariant, bool kOByTma>
__global__ void __launch_bounds__(Traits::kThreads, Traits::min_blocks_per_sm(kVariant, !kOByTma))
    fwd_tma_kernel(const __grid_constant__ FwdTmaArgs args) {
    // The maps are kernel parameters, written by no kernel: fetched before the wait for the grid
    // ahead, not on the first copy's path.
    if (threadIdx.x == 0) {
        prefetch_tensor_map(&args.q);
        prefetch_tensor_map(&args.k);
        prefetch_tensor_map(&args.v);
        if constexpr (kOByTma) prefetch_tensor_map(&args.o);
    }
    compute_tile<Traits, kVariant, TmaFeedStoringO<kOByTma>::template Feed>(args.params, args);
}

// One instantiation of the TMA kernel over `grid`, with that kernel's own facts.
template <typename Traits, Variant kVariant, bool kOByTma>
FlashAttnStatus launch_tma(dim3 grid, FlashAttnFwdParams *params, cudaStream_t stream, const FwdTmaArgs &args) {
    static KernelFacts facts;
    return launch_tiles(fwd_tma_kernel<Traits, kVariant, kOByTma>, grid, Traits::kThreads, Traits::kTmaSmemLaunchBytes,
                        params, stream, facts, args);
}

// The TMA kernel where tensor maps describe Q, K and V (dense or packed varlen); the cp.async
// kernel otherwise (fwd_feeds.cuh).
template <typename Traits, Variant kVariant>
FlashAttnStatus launch_fwd(FlashAttnFwdParams *params, cudaStream_t stream) {
    const FlashAttnFwdParams &p = *params;
    const bool packed = Features<kVariant>::packed(p);
    const auto [batch, rows_q, rows_k] = map_rows(p, packed);
    FwdTmaArgs args;
    args.params = p;
    if (encode_q_map(&args.q, p, batch, rows_q, Traits::kHeadDim, Traits::kBlockM) &&
        encode_kv_maps(&args.k, &args.v, p, batch, rows_k, Traits::kHeadDim, Traits::kBlockN)) {
        // O by TMA only where some SM runs more than one tile: the store's wait for its
        // shared-memory reads then frees the SM early for the next tile, while a launch of one
        // CTA an SM or fewer ends sooner with every thread's posted 16-byte stores (variant probe,
        // docs/benchmarks/2026-11-30-h200-o-store.md: 1-3% faster above the SM count, 0-5%
        // slower at or below it). Not packed: a box past a sequence's last row would overwrite
        // the next sequence's.
        const dim3 grid = tile_grid(p, Traits::kBlockM);
        const int64_t ctas = int64_t{grid.x} * grid.y * grid.z;
        const int sms = current_device_sm_count();
        const bool o_by_tma = !packed && sms > 0 && ctas > sms &&
                              encode_o_map(&args.o, p, batch, rows_q, Traits::kHeadDim, Traits::kBlockM);
        params->feed_used = FLASHATTN_FEED_TMA;
        return o_by_tma ? launch_tma<Traits, kVariant, true>(grid, params, stream, args)
                        : launch_tma<Traits, kVariant, false>(grid, params, stream, args);
    }
    static KernelFacts facts;
    return launch_tiles(fwd_kernel<Traits, kVariant>, Traits::kBlockM, Traits::kThreads, Traits::kSmemLaunchBytes,
                        params, stream, facts, *params);
}

}  // namespace flashattn::sm90
