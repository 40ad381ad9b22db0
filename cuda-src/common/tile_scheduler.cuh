// The persistent walk's device side (TileSchedule): each CTA's next tile and its coordinates, in
// the order the launcher dealt on the host (common/walk_deal.cuh, which also explains the orders).
// Kept apart from the deal because this is kernel code, stepped in the producer's few registers,
// whose every change shows in the SASS, while the deal is host arithmetic retuned from
// measurements; and apart from common/tile_work.cuh because the kernels that run one CTA per tile
// without a walk (sm80, sm90/fwd_kernel.cuh) need none of it.
#pragma once

#include <cuda_runtime.h>
#include <stdint.h>

#include "common/tile_work.cuh"
#include "common/walk_deal.cuh"
#include "flashattn.h"

namespace flashattn {

// kLightOrder: compiled where the launcher may deal the light order (a kernel that splits short
// tiles); the other walks' producers keep the plain round order's code (as stepped code ptxas
// schedules the consumers' loops around: 1.1% on the two-consumer head-dim-64 walk with it
// compiled in, docs/benchmarks/2026-11-29-h200-retune.md).
// kSplitTail: compiled where the launcher may deal the split tail (the head-dim-128 walks).
template <bool kPersistent, bool kLightOrder = false, bool kSplitTail = false>
struct TileSchedule {
    // Only the CTA's round is kept (its tile is index(), blockIdx.x + round * gridDim.x in the
    // plain order): the launch's tile counts are worked out from the params (constant memory) at
    // each step rather than held in registers across the tile's key loop.
    int block_m;
    int round;

    __device__ __forceinline__ TileSchedule(int block_m_) : block_m(block_m_), round(0) {}
    // The CTA's tile of this round in the deal's order (kLast's: full tiles first); past the
    // launch's tiles when it has none.
    __device__ __forceinline__ long long index(const WalkDeal &deal) const {
        if (!kPersistent) return 0;
        if (kSplitTail && deal.kind == WalkOrder::kSplitTail && round >= deal.tail.rounds) {
            // The stretch's pieces, then the short tiles blockIdx.x, blockIdx.x + gridDim.x, ...
            const int step = round - deal.tail.rounds;
            const int3 piece = deal.tail.piece(blockIdx.x, gridDim.x, step);
            if (piece.x >= 0) return piece.x;
            const int stretch = SplitTail::stretch_tiles(deal.tail.start(blockIdx.x, gridDim.x),
                                                         deal.tail.start(blockIdx.x + 1, gridDim.x));
            const long long short_tile = blockIdx.x + static_cast<long long>(step - stretch) * gridDim.x;
            return deal.tail.full + min(short_tile, static_cast<long long>(deal.tail.count - deal.tail.full));
        }
        if (deal.kind == WalkOrder::kFold) {
            // Slots blockIdx.x, blockIdx.x + gridDim.x, ...: the CTA's folds, two rounds each
            // (the longer tile first), then its single tiles after all folds.
            const long long slot = blockIdx.x + static_cast<long long>(round >> 1) * gridDim.x;
            if (slot < deal.folds) return 2 * slot + (round & 1);
            const long long own_folds = deal.folds > blockIdx.x ? (deal.folds - 1 - blockIdx.x) / gridDim.x + 1 : 0;
            return deal.folds + blockIdx.x + (round - own_folds) * gridDim.x;
        }
        const long long plain = blockIdx.x + static_cast<long long>(round) * gridDim.x;
        // (light_from is at least 1: round 0, the first tile's, folds to the plain order.)
        if (!kLightOrder || round == 0 || round < deal.light_from) return plain;
        const int heavy = deal.heavy_ctas;
        if (static_cast<int>(blockIdx.x) < heavy) return round == deal.light_from ? plain : 0x7fffffffffffffffll;
        const long long full = static_cast<long long>(deal.light_from) * gridDim.x + heavy;
        return full + (blockIdx.x - heavy) + static_cast<long long>(round - deal.light_from) * (gridDim.x - heavy);
    }
    // Moves to the CTA's next tile; false when it has none.
    __device__ __forceinline__ bool next(const FlashAttnFwdParams &p, const WalkDeal &deal) {
        if (!kPersistent) return false;
        const dim3 tiles = tile_grid(p, block_m);
        ++round;
        return index(deal) < static_cast<long long>(tiles.x) * tiles.y * tiles.z;
    }
    // The current tile's key tiles in walk order (0: its last key tile, the walk's first), from
    // .x to .y: a split tail's piece, or all of them (.y = INT_MAX, which WsTile clamps).
    __device__ __forceinline__ int2 piece_keys(const WalkDeal &deal) const {
        if (!kSplitTail || deal.kind != WalkOrder::kSplitTail || round < deal.tail.rounds) return make_int2(0, 0x7fffffff);
        const int3 piece = deal.tail.piece(blockIdx.x, gridDim.x, round - deal.tail.rounds);
        return piece.x >= 0 ? make_int2(piece.y, piece.z) : make_int2(0, 0x7fffffff);  // else a short tile
    }
    // (query tile, head, batch) of the current tile, in the launch's deal of short tiles.
    template <typename Work>
    __device__ __forceinline__ int3 coords(const FlashAttnFwdParams &p, const WalkDeal &deal) const {
        if (!kPersistent) return Work::tile_coords(p);
        const dim3 tiles = tile_grid(p, block_m);
        const long long i = index(deal);
        if (deal.kind == WalkOrder::kNone) return Work::tile_coords(p, i, tiles);
        if (deal.kind == WalkOrder::kFold) {
            // Tiles 2u and 2u + 1 are fold u: in section order, the pairs of a section fastest,
            // fold mm of a pair its tiles F - 1 - mm and mm (F = fold_tiles). After the folds the
            // single tiles: each pair's middle one where F is odd, and its short last one where
            // F leaves it out, the two groups in the deal's order.
            const int folded = deal.fold_tiles;
            const int half = folded / 2;
            const int pairs = tiles.y * tiles.z;
            const long long folds = deal.folds;
            int m_block, pair;
            if (i < 2 * folds) {
                const long long slot = i >> 1;
                // TileWork::tile_coords' causal sections (common/tile_work.cuh), in their own expression.
                const int section = p.causal_section > 0 && p.causal_section < pairs ? p.causal_section : pairs;
                const long long per_section = static_cast<long long>(section) * half;
                const long long s = slot / per_section;
                const int first = static_cast<int>(s * section);
                const int here = min(section, pairs - first);
                const int r = static_cast<int>(slot - s * per_section);
                const int mm = r / here;
                pair = first + r % here;
                m_block = (i & 1) ? mm : folded - 1 - mm;
            } else {
                const int single = static_cast<int>(i - 2 * folds);
                const bool has_middles = folded & 1, has_shorts = folded < static_cast<int>(tiles.x);
                const bool first_group = single < pairs;
                const bool short_tile = has_shorts && (deal.shorts_first ? first_group : !first_group || !has_middles);
                pair = first_group ? single : single - pairs;
                m_block = short_tile ? folded : half;
            }
            return make_int3(m_block, pair % tiles.y, pair / tiles.y);
        }
        if (kSplitTail && deal.kind == WalkOrder::kSplitTail) {
            // kLast's order, where the sequences may also end in a full tile.
            const int full_per_pair = p.seqlen_q / block_m;
            const int i32 = static_cast<int>(i);
            const bool is_full = i32 < deal.tail.full;
            const int m_block = is_full ? i32 % full_per_pair : full_per_pair;
            const int pair = is_full ? i32 / full_per_pair : i32 - deal.tail.full;
            return make_int3(m_block, pair % tiles.y, pair / tiles.y);
        }
        if (deal.kind == WalkOrder::kLast) {
            // All full tiles first, in the usual order, then the short ones, one per pair.
            const int full_per_pair = tiles.x - 1;
            const long long full = static_cast<long long>(full_per_pair) * tiles.y * tiles.z;
            const bool is_full = i < full;
            const int m_block = is_full ? static_cast<int>(i % full_per_pair) : full_per_pair;
            const int pair = static_cast<int>(is_full ? i / full_per_pair : i - full);
            return make_int3(m_block, pair % tiles.y, pair / tiles.y);
        }
        // Each (head, batch) pair's query tiles stay together (their K/V read while in L2), in an
        // order rotated by r0, the round in which the pair's first tile is dealt: CTA c's tile of
        // round r is then query tile (c + r) mod tiles.x when gridDim.x is a multiple of
        // tiles.x, every query tile in turn, and the short ones spread evenly. The pair's first
        // tile, index i - within, was dealt in this round or, when its CTA comes after this one
        // (the pair straddles a round boundary), in the one before.
        const uint32_t u = static_cast<uint32_t>(i);
        const uint32_t pair = u / tiles.x;
        const uint32_t within = u - pair * tiles.x;
        const uint32_t r0 = round - (blockIdx.x < within ? 1 : 0);
        const int m_block = static_cast<int>((within + r0) % tiles.x);
        const int pair32 = static_cast<int>(pair);
        return make_int3(m_block, pair32 % tiles.y, pair32 / tiles.y);
    }
};

}  // namespace flashattn
