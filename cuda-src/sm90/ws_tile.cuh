// What both roles of the warp-specialized kernel (ws_kernel.cuh) take from the launcher and
// derive from a tile: the kernel's argument (the call's params, the tensor maps, how a walk deals
// its tiles) and a tile's work and key walk.
#pragma once

#include "sm90/tma.cuh"

#include "common/tile_work.cuh"
#include "common/walk_deal.cuh"
#include "sm90/traits.cuh"

namespace flashattn::sm90 {

// The kernel's argument: the call's params and the tensor maps (which must sit in parameter
// space, 64-byte aligned, for the TMA unit to read them).
struct WsArgs {
    FlashAttnFwdParams params;
    CUtensorMap q;  // boxes of one part of Q, q_parts (CUtensorMap is declared 64-byte aligned)
    CUtensorMap k;
    CUtensorMap v;
    CUtensorMap o;  // boxes of one consumer's 64 rows; valid only where o_by_tma
    // Whether each consumer's O rows leave shared memory by one TMA store (dense tensors whose
    // O a tensor map describes), or by its threads in 16-byte chunks (packed varlen tensors,
    // where a box past a sequence's last row would overwrite the next sequence's; strides TMA
    // cannot express).
    bool o_by_tma;
    // How a persistent walk deals short last query tiles (common/walk_deal.cuh), worked out on the
    // host: kNone for one tile per CTA.
    WalkDeal deal;
};

// What both roles derive from a tile: its work and its key walk, from the last key tile down as
// in fwd_kernel.cuh (masked tiles first); in a split tail (SplitTail) a piece of that walk.
template <typename Traits, typename F>
struct WsTile {
    TileWork<typename Traits::Element, F> work;
    int n_block_max;
    int walk_keys;    // key tiles of the tile's whole walk
    int walk_first;   // the piece's first key tile in the walk (0 unless split)
    int n_blocks;     // the piece's key tiles (the whole walk's unless split)
    int batch_coord;  // the tensor maps' batch coordinate: packed (varlen) tensors are one batch
    bool zero_tail;   // varlen: the first key tile (the range's last) reaches past the keys

    // piece: key tiles [x, y) of the walk (y clamped to its length).
    __device__ __forceinline__ WsTile(const FlashAttnFwdParams &p, int3 coords, bool packed,
                                      int2 piece = make_int2(0, 0x7fffffff))
        : work(p, Traits::kBlockM, coords),
          n_block_max(work.keys.n_block_max(Traits::kBlockN)),
          walk_keys(n_block_max - work.keys.n_block_min(Traits::kBlockN)),
          walk_first(piece.x),
          n_blocks(min(piece.y, walk_keys) - piece.x),
          batch_coord(packed ? 0 : coords.z),
          zero_tail(packed && key0(0) + Traits::kBlockN > work.len.k) {}
    // First key of the piece's i-th key tile.
    __device__ __forceinline__ int key0(int i) const { return (n_block_max - 1 - walk_first - i) * Traits::kBlockN; }
    // Whether the piece is part of a split tile; whether it ends before the walk does.
    __device__ __forceinline__ bool split() const { return n_blocks != walk_keys; }
    __device__ __forceinline__ bool ends_inside() const { return walk_first + n_blocks < walk_keys; }
};

}  // namespace flashattn::sm90
