// The producer role of the warp-specialized kernel (ws_kernel.cuh): its copying thread
// (issue_copies) and, in varlen calls, the warp that zeroes the first V tile's rows past the
// keys (zero_first_v_tail).
#pragma once

#include <cuda_runtime.h>

#include "common/tile_work.cuh"
#include "common/timeline.cuh"
#include "sm90/qkv_tiles.cuh"
#include "sm90/tma.cuh"
#include "sm90/traits.cuh"
#include "sm90/ws_shared_memory.cuh"
#include "sm90/ws_tile.cuh"

namespace flashattn::sm90 {

// The producer's second warp in a varlen call (one tile per CTA, never kPersistent): where the
// tile's first key tile, the ring's first, reaches past the sequence's keys, its V rows past them
// zeroed before any consumer's P.V reads them (ws_kernel.cuh says why).
template <typename Traits, bool kPersistent, typename F>
__device__ __forceinline__ void zero_first_v_tail(const WsSharedMemory<Traits, kPersistent> &smem,
                                                  const WsTile<Traits, F> &tile) {
    if (tile.work.skipped() || !tile.zero_tail) return;
    // Buffer 0 cannot be refilled before the consumers release it, which they do only after
    // waiting for v_tail_zeroed.
    barrier_wait(smem.v_full(0), 0);
    zero_tile_rows<Traits, 32>(smem.v_tile(0), tile.work.len.k - tile.key0(0), threadIdx.x % 32);
    __syncwarp();
    if (threadIdx.x % 32 == 0) barrier_arrive(smem.v_tail_zeroed());
}

// The producer's copying thread: every copy of the CTA's tiles, in the order the consumers use
// them. Per tile its Q in parts, then its key tiles' K and V into the ring, as far ahead of the
// consumers as the ring's free buffers allow. next_tile() steps `tile` and `coords` to the CTA's
// next tile, false after its last.
//
// In a walk this thread also announces each tile after the first: it works the tile out and
// writes its coordinates (query tile, head, batch) to a slot before it announces the tile's
// Q, and after the CTA's last tile a slot that says the walk ends, completing that Q buffer's
// barriers without a copy. A consumer waits for the next announcement and reads the slot
// instead of stepping the schedule itself, whose integer divisions and parameter loads (the
// launch's tile count among them) lay between its store of O and its next tile's first
// Q.K^T: on the H200 the three-consumer head-dim-64 walk runs 2.5-3.5% faster at 512 to 1,024
// keys (1% at 4,096), the two-consumer one 5-7%, the head-dim-128 walks 0.5-2.5%
// (docs/benchmarks/2026-11-29-h200-tile-boundary.md, 2026-11-29-h200-walk-boundaries.md). A
// walk skips no tile (the launcher walks no varlen call, and only calls with keys), so every
// tile has a Q to announce. Tile t's slot is t % kSlots (WsSharedMemory), written before this
// thread waits for any of the tile's Q parts to be free: every consumer warp read the slot's previous
// tile, t - kSlots, before it released its part of that tile's Q (one buffer: it reads a
// slot before the tile; two, with the look-ahead: in the last turn of the tile before), and
// this thread waited for those releases before it issued tile t - 1's Q into the same buffer.
template <bool kPersistent, bool kSplitTail, typename Traits, typename F, typename NextTile>
__device__ __forceinline__ void issue_copies(const WsArgs &args, const WsSharedMemory<Traits, kPersistent> &smem,
                                             const WsTile<Traits, F> &tile, const int3 &coords, NextTile &next_tile) {
    using Smem = WsSharedMemory<Traits, kPersistent>;
    constexpr int kBlockM = Traits::kBlockM;
    constexpr int kBlockN = Traits::kBlockN;
    constexpr int kStages = Traits::kStages;
    constexpr int kAtoms = Traits::kAtoms;
    constexpr int kQBuffers = Smem::kQBuffers;
    constexpr int kQParts = Smem::kQParts;
    const FlashAttnFwdParams &p = args.params;
    int kv = 0;  // key tiles this CTA has loaded
    int t = 0;   // tiles this CTA has started
    do {
        if (tile.work.skipped()) continue;
        const int head = tile.work.head;
        const int kv_head = kv_head_of(p, head);
        // Key tile i's K, then its V, each into the ring buffer of the CTA's j-th key tile once
        // the consumers have released that buffer's previous one (from the ring's second lap).
        auto load_kv = [&](int i) {
            const int j = kv + i, stage = j % kStages;
            const int row = tile.work.k_first + tile.key0(i);
            auto copy = [&](uint32_t buffer, uint32_t full, uint32_t empty, const CUtensorMap *map) {
                if (j >= kStages) barrier_wait(empty, Smem::ring_parity(j) ^ 1);
                barrier_arrive_expect_tx(full, Traits::kTileBytes);
#pragma unroll
                for (int a = 0; a < kAtoms; ++a)
                    tma_load_4d(buffer + a * kBlockN * kAtomRowBytes, map, full, a * 64, row, kv_head, tile.batch_coord);
            };
            copy(smem.k_tile(stage), smem.k_full(stage), smem.k_empty(stage), &args.k);
            copy(smem.v_tile(stage), smem.v_full(stage), smem.v_empty(stage), &args.v);
        };
        // The CTA's first Q goes first. A later one waits for the previous tile's last
        // Q.K^T, part by part; the tile's first key tile goes ahead of those waits (its
        // buffer is freed by the previous tile's walk).
        const int before_q = t > 0 ? 1 : 0;
        if (t > 0) load_kv(0);
        if (kPersistent && t > 0) {
            int *slot = smem.tile_slot(t);
            slot[0] = coords.x;
            slot[1] = coords.y;
            slot[2] = coords.z;
            if (kSplitTail) slot[3] = tile.walk_first | (tile.walk_first + tile.n_blocks) << 16;
        }
#pragma unroll
        for (int part = 0; part < kQParts; ++part) {
            // The part's previous use: with two buffers, two tiles back.
            if (t >= kQBuffers) barrier_wait(smem.q_empty(t, part), (t / kQBuffers - 1) & 1);
            // (The arrival releases the slot's writes.)
            barrier_arrive_expect_tx(smem.q_full(t, part), Traits::kQBytes / kQParts);
            const int row = part * Smem::kQPartRows;
#pragma unroll
            for (int a = 0; a < kAtoms; ++a)
                tma_load_4d(smem.q_tile(t) + (a * kBlockM + row) * kAtomRowBytes, &args.q, smem.q_full(t, part),
                            a * 64, tile.work.q_first + tile.work.row_begin + row, head, tile.batch_coord);
        }
        timeline_mark(t, kMarkQIssued);
        timeline_value(t, kMarkTile, 1 + tile.work.row_begin + (1ull << 24) * (head + (1ull << 16) * tile.batch_coord));
        timeline_value(t, kMarkKeyTiles, tile.n_blocks);
        for (int i = before_q; i < tile.n_blocks; ++i) load_kv(i);
        kv += tile.n_blocks;
        ++t;
    } while (next_tile());
    if constexpr (kPersistent) {
        // The walk's end, announced like a tile: a slot saying so, its buffer's Q barriers
        // completed without a copy (once each part's previous use is over, as above; the
        // wait written out twice: as one lambda ptxas allocated the producer's registers
        // differently in 30 walking kernels).
        smem.tile_slot(t)[0] = -1;
#pragma unroll
        for (int part = 0; part < kQParts; ++part) {
            if (t >= kQBuffers) barrier_wait(smem.q_empty(t, part), (t / kQBuffers - 1) & 1);
            barrier_arrive(smem.q_full(t, part));
        }
    }
}

}  // namespace flashattn::sm90
