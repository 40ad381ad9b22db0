// The warp-specialized Hopper forward kernel (sm_90a): the same per-warpgroup math as
// fwd_kernel.cuh (warpgroup_tile.cuh), fed differently. A producer warpgroup hands its registers to
// the two or three consumer warpgroups and one of its threads issues every copy (issue_copies):
// per tile Q (in parts, q_parts), and K and V of each key tile as TMA boxes into a ring of buffers
// (ws_shared_memory.cuh has where everything lies),
// each buffer's arrival counted in bytes by a full barrier and its release by the consumers counted
// by an empty barrier, K's and V's apart (a K buffer is free once Q.K^T has read it, a turn before
// P.V frees V's, and the K that refills it starts loading then). No consumer thread issues a load
// or waits at a CTA-wide barrier in the key loop, so the copies run ahead by the whole ring while
// the consumers compute, taking turns at the tensor cores (TurnRing).
//
// kPersistent: one CTA per SM walks its tiles (TileSchedule, stepped by the producer, which
// announces each tile to the consumers) with the ring, the barriers' phases and the consumers'
// turns running on across them, so the next tile's first K/V tile and its Q land while this tile's
// last key tiles and epilogue run (each consumer releases its part of Q ahead of its last P.V, so O
// needs a shared-memory tile of its own, WsTraits::kSeparateO, or leaves from registers,
// WsTraits::kOFromRegisters). Compiled for every variant of the tiles at head dims 64 and 128,
// launched where a call has more tiles than SMs and every row sees a key, one dense batch (score
// modifiers and sinks are fine; causal where the fold's deal is expected to pay,
// common/walk_deal.cuh; windows in the plain order), and at head dim 128 only up to
// WsTraits::kWalkMaxKeys keys a tile, or where, given a workspace, it splits its tail (SplitTail:
// the last full tiles' keys across the SMs, merge_split_tail).
// Without it the kernel computes one tile per CTA, the same code with the walk compiled away.
//
// Every variant (common/features.cuh): tensor maps describe dense [batch, seqlen, heads,
// head_dim] tensors, or packed varlen [total, heads, head_dim] ones as one batch of total rows,
// a tile's boxes starting at its sequence's first row. Tensors no tensor map describes run on
// the configuration's fallback tile (traits.cuh, WsTraits::Fallback).
//
// A box reads whole tiles. Past the tensor's end TMA fills zeros; past a packed sequence's end
// it reads the next sequence's rows, which is harmless for Q (those rows of S are never stored)
// and for K (the mask overwrites their scores with -inf) but not for V: P = 0 times an Inf or
// NaN there (a neighbour's data, or cache slots past seqused_k that were never written) is NaN.
// So in varlen calls the last key tile's rows past the sequence's keys are zeroed in shared
// memory before any P.V reads them (zero_first_v_tail).
#pragma once

#include <cuda_runtime.h>

#include "common/tile_scheduler.cuh"
#include "common/tile_work.cuh"
#include "common/timeline.cuh"
#include "common/walk_deal.cuh"
// The fallback's launcher (launch_fwd) is only declared here, in traits.cuh: its kernel is
// compiled once, in the fallback configuration's own file. Including fwd_kernel.cuh would compile
// a second copy in this file's module, registered under the same host function.
#include "sm90/tma.cuh"
#include "sm90/traits.cuh"
#include "sm90/wgmma.cuh"
#include "sm90/ws_consumer.cuh"
#include "sm90/ws_producer.cuh"
#include "sm90/ws_shared_memory.cuh"
#include "sm90/ws_tile.cuh"

namespace flashattn::sm90 {

template <typename Traits, Variant kVariant, bool kPersistent>
__global__ void __launch_bounds__(Traits::kThreads, 1) ws_kernel(const __grid_constant__ WsArgs args) {
    // The persistent walk releases Q after a tile's last Q.K^T, so O needs a tile of its own or
    // goes from registers (traits.cuh). It never runs packed varlen tensors (the launcher's
    // rule): their V-tail barrier is used once per CTA.
    static_assert(!kPersistent || Traits::kWalks);
    using F = Features<kVariant>;
    using Work = TileWork<typename Traits::Element, F>;
    using Consumer = WsConsumer<Traits, kVariant, kPersistent>;
    const FlashAttnFwdParams &p = args.params;

    extern __shared__ unsigned char smem_raw[];
    const WsSharedMemory<Traits, kPersistent> smem(smem_raw);
    const bool packed = !kPersistent && F::packed(p);

    // The producer's first copies need the maps in the TMA unit: fetched while this CTA still
    // waits for the grid ahead and sets up its barriers, not on the first copy's path.
    if (threadIdx.x == 0) {
        timeline_mark(0, kMarkEntry);
        timeline_value(0, kMarkEntryNs, timeline_ns());
        timeline_value(0, kMarkSm, timeline_sm());
        prefetch_tensor_map(&args.q);
        prefetch_tensor_map(&args.k);
        prefetch_tensor_map(&args.v);
        if (args.o_by_tma) prefetch_tensor_map(&args.o);
    }
    // Launched as a programmatic dependent (common/launch.cuh): nothing in global memory is
    // touched (a varlen tile's sequence is read from cu_seqlens) before the kernel ahead on the
    // stream is done.
    wait_for_prerequisite_grids();
    if (threadIdx.x == 0) timeline_mark(0, kMarkGridReady);
    // Every thread works out the CTA's first tile, before the barrier setup, under thread 0's
    // initialisation rather than on the way to the first copy; the producer steps the schedule
    // to the walk's later tiles and announces them to the consumers.
    TileSchedule<kPersistent, Consumer::kSplitShortTiles, Consumer::kSplitTail> schedule(Traits::kBlockM);
    int3 coords = schedule.template coords<Work>(p, args.deal);
    WsTile<Traits, F> tile(p, coords, packed);
    auto next_tile = [&] {
        if (!schedule.next(p, args.deal)) return false;
        coords = schedule.template coords<Work>(p, args.deal);
        if constexpr (Consumer::kSplitTail)
            tile = WsTile<Traits, F>(p, coords, packed, schedule.piece_keys(args.deal));
        else
            tile = WsTile<Traits, F>(p, coords, packed);
        return true;
    };

    if (threadIdx.x == 0) smem.init_barriers(Consumer::kSplitShortTiles);
    __syncthreads();
    if (threadIdx.x == 0) timeline_mark(0, kMarkBarriersReady);

    const int warpgroup = warpgroup_index();
    if (warpgroup == 0) {
        warpgroup_release_registers<Traits::kProducerRegs>();
        if (threadIdx.x == 0) {
            issue_copies<kPersistent, Consumer::kSplitTail>(args, smem, tile, coords, next_tile);
        } else if (packed && threadIdx.x / 32 == 1) {
            zero_first_v_tail(smem, tile);
        }
        return;
    }

    warpgroup_claim_registers<Traits::kConsumerRegs>();
    Consumer(args, smem, tile, warpgroup).run();
}

// The CTAs of a persistent walk (one CTA per SM walking the tiles; 0: one CTA per tile), and
// its deal in `deal`. Persistent where the kernel has it and the launch has more tiles than SMs,
// one dense batch in which every row sees a key; causal launches where their fold is expected to
// pay (causal_fold_deal); with O from registers, only where O's tensor map vouches for its
// 16-byte alignment (`o_by_tma`) and each tile sees few enough keys for the walk to pay
// (WsTraits::kWalkMaxKeys), or it splits its tail.
template <typename Traits>
int choose_walk(const FlashAttnFwdParams &p, dim3 grid, bool packed, bool o_by_tma, WalkDeal *deal) {
    int walk_ctas = 0;
    if constexpr (Traits::kWalks) {
        const long long tiles = static_cast<long long>(grid.x) * grid.y * grid.z;
        // A windowed tile's rows see its rows' span and the window's width at most (Diagonal's
        // bounds; causal: no right side): the walk's key limit holds for those.
        const bool windowed = p.window_left >= 0 || p.window_right >= 0;
        const Diagonal window(p, SeqLens{p.seqlen_q, p.seqlen_k});
        const long long seen = std::min<long long>(window.hi - window.lo + Traits::kBlockM, p.seqlen_k);
        // Past the key limit a walk pays where it splits its tail (SplitTail): one CTA per tile
        // leaves a partial last wave too.
        const bool within_key_limit = !Traits::kOFromRegisters || seen <= Traits::kWalkMaxKeys;
        const bool may_split = Traits::kOFromRegisters && o_by_tma && !windowed && !p.causal && p.workspace;
        const bool walk_pays = !Traits::kOFromRegisters || (o_by_tma && (within_key_limit || may_split));
        // A walk must never skip a tile, whose Q the producer announces: only calls in which every
        // row sees a key (and with keys at all). Causal: top-left, or no more queries than keys;
        // windowed: each row's diagonal key exists (no more queries than keys).
        const bool every_row_sees =
            windowed ? p.seqlen_q <= p.seqlen_k : !p.causal || p.causal_top_left || p.seqlen_q <= p.seqlen_k;
        const bool walks = every_row_sees && !packed && p.seqlen_k > 0 && walk_pays;
        const int sm_count = walks ? current_device_sm_count() : 0;
        if (sm_count > 0 && tiles > sm_count) {
            walk_ctas = sm_count;
            const bool split = may_split && split_tail_deal(p, Traits::kBlockM, Traits::kBlockN, grid, walk_ctas, deal);
            // Windowed tiles see about the same keys: they keep the plain round robin (kNone).
            if (!split && !within_key_limit)
                walk_ctas = 0;
            else if (!split && !windowed && !p.causal)
                *deal = short_tile_deal(p, Traits::kBlockM, grid, walk_ctas, Traits::kWalkSplitsShortTiles);
            if (!windowed && p.causal && !causal_fold_deal(p, Traits::kBlockM, Traits::kBlockN, grid, walk_ctas, deal))
                walk_ctas = 0;
        }
    }
    return walk_ctas;
}

// Builds the tensor maps and launches; a call whose tensors no tensor map describes (a zero or
// odd stride, no driver entry point) runs the fallback tile's kernel of the same variant instead
// and reports that configuration, kFallbackId, in params->config_used.
template <typename Traits, Variant kVariant, int kFallbackId>
FlashAttnStatus launch_ws(FlashAttnFwdParams *params, cudaStream_t stream) {
    static KernelFacts facts;
    WsArgs args;
    args.params = *params;
    args.deal = WalkDeal::none();
    const FlashAttnFwdParams &p = *params;
    const bool packed = Features<kVariant>::packed(p);
    const auto [batch, rows_q, rows_k] = map_rows(p, packed);
    const bool kv_mapped = encode_kv_maps(&args.k, &args.v, p, batch, rows_k, Traits::kHeadDim, Traits::kBlockN);
    // O's map: dense tensors only (see WsArgs::o_by_tma).
    args.o_by_tma = kv_mapped && !packed && encode_o_map(&args.o, p, batch, rows_q, Traits::kHeadDim, 64);
    const dim3 grid = tile_grid(p, Traits::kBlockM);
    const int walk_ctas = choose_walk<Traits>(p, grid, packed, args.o_by_tma, &args.deal);
    const bool walk = walk_ctas > 0;
    // Q's map, whose box is one part of Q: the walk's and the one-tile-per-CTA kernel's differ.
    const bool mapped =
        kv_mapped && encode_q_map(&args.q, p, batch, rows_q, Traits::kHeadDim, Traits::kBlockM / q_parts<Traits>(walk));
    if (!mapped) {
        // A dense call takes the fallback's general kernel, which every tile compiles (some
        // compile no dense one: tiles.rs, hopper_dense_on_general).
        constexpr Variant kFallbackVariant = kVariant == Variant::kDense ? Variant::kGeneral : kVariant;
        params->config_used = kFallbackId;
        return launch_fwd<typename Traits::Fallback, kFallbackVariant>(params, stream);
    }
    params->feed_used = FLASHATTN_FEED_TMA;
    if constexpr (Traits::kWalks) {
        static KernelFacts persistent_facts;
        // Plainly: as a programmatic dependent it ran 3-4.5% slower (common/launch.cuh).
        if (walk) {
            params->schedule_used = walk_schedule(args.deal.kind);
            return launch_tiles(ws_kernel<Traits, kVariant, true>, dim3(walk_ctas), Traits::kThreads,
                                Traits::kPersistentSmemLaunchBytes, params, stream, persistent_facts, args,
                                LaunchOrder::kPlain);
        }
    }
    return launch_tiles(ws_kernel<Traits, kVariant, false>, grid, Traits::kThreads, Traits::kSmemLaunchBytes, params,
                        stream, facts, args);
}

}  // namespace flashattn::sm90
