// How a persistent launch deals its tiles among its CTAs: the deal the kernel reads (WalkDeal,
// with the split tail's layout that the host and the kernel share) and the host's choice of one,
// once per launch, with the measured costs it weighs. The choice reaches the kernel as data, so
// the heuristics and their tuning constants, retuned from benchmarks, live here, apart from the
// kernel code that follows a deal (common/tile_scheduler.cuh) and from the tiles' addressing
// (common/tile_work.cuh); the deal's data lives with its maker, so a host-only program
// (probes/split_tail_check.cu) checks a deal without any kernel code.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <type_traits>

#include "common/mask.cuh"
#include "common/tile_work.cuh"
#include "flashattn.h"

namespace flashattn {

// Which tiles a CTA computes, in the order of TileWork::tile_coords: its own one in a grid of
// one CTA per tile, or, in a persistent launch (a 1-D grid of at most one CTA per SM), tiles
// blockIdx.x, blockIdx.x + gridDim.x, ... of all of them. Static round robin: with the query
// tile fastest, the CTAs running at one time still work on a few heads (their K/V shared in L2),
// and non-causal tiles of one launch are equally long, so every CTA gets the same work to
// within one tile.
//
// Causal tiles are not: tile m of a pair sees about m + 1 tiles' worth of keys, and round robin
// over them longest first (TileWork::tile_coords' causal order) gave the low CTAs the longest
// tile of every round (a simulation of the deal: the busiest CTA 11-16% over the mean at
// 1,024-4,096 keys). A causal walk (kFold) deals folds instead: tiles F - 1 - mm and mm of a pair
// (the first F of its query tiles), which together see the same keys for every mm, in the causal
// sections' order, each CTA the longer tile of its fold first; then the single tiles, one per
// slot: the middle ones where F is odd, and the short last ones where F leaves them out
// (causal_fold_deal picks F and whether to walk at all). Measured on the lent H200 with the
// variant probe against one CTA per tile (docs/benchmarks/2026-11-29-h200-causal-walk.md), bf16
// causal at 1,000-4,096 keys: the 128-row head-dim-128 tile 2-20% faster, the 192-row one
// 0.5-12%, the head-dim-64 tiles 4-27%. Plain round robin on the 128-row tile: 14% and 2% faster
// at 1,024 and 2,048 keys, 8% slower at 4,096; a snake order (every other round reversed): 5%
// faster, 12% and 20% slower.
//
// A non-causal persistent launch whose sequences end in a short query tile deals the short tiles
// apart: the warp-specialized kernel runs one in a fraction of a full tile's time (its warpgroups
// without rows pass), and with the query tile fastest (and a number of SMs that the query tiles
// per head divide, 132 = 22 x 6 = 44 x 3) every short tile would land on the same few CTAs, the
// others running only full ones. Either after all full tiles, about one per CTA to end its walk,
// or, where K/V does not stay in L2 until then (the short tiles of the last rounds would each
// read another pair's K/V from memory), by rotating each pair's query tiles. The launcher picks
// the deal (short_tile_deal), once per launch on the host, as it does the causal sections.
enum class WalkOrder : int {
    kNone,    // round robin in tile_coords' order
    kLast,    // the short tiles after all full ones (and the light order, WalkDeal)
    kRotate,  // each pair's query tiles rotated
    kFold,    // causal: folds, then the single tiles (causal_fold_deal)
    kSplitTail,  // kLast's, the last full tiles' keys split across the CTAs (SplitTail)
};

// What FlashAttnFwdParams::schedule_used reports of a persistent launch dealt `order`.
inline FlashAttnSchedule walk_schedule(WalkOrder order) {
    switch (order) {
        case WalkOrder::kFold: return FLASHATTN_SCHEDULE_CAUSAL_FOLDS;
        case WalkOrder::kSplitTail: return FLASHATTN_SCHEDULE_SPLIT_TAIL;
        default: return FLASHATTN_SCHEDULE_WALK;
    }
}

// A point in the split tail: the walk's key tile `key_tile` (0 is the tile's last key tile, the
// walk's first) of full tile `tile` in kLast's order.
struct TailPoint {
    int tile;
    int key_tile;
};

// kSplitTail: a persistent walk of tiles that do not divide evenly among the CTAs ends in a
// partial round, the CTAs without a tile idle while the others finish (a launch of 4,096 64-row
// blocks takes 32 of them on the busiest of 132 SMs against an even share of 31.03). Instead, in
// kLast's order: the full tiles dealt whole round by round while every CTA gets one; the full
// tiles left, the tail, laid end to end key tile by key tile and cut into one stretch per CTA, so
// that a CTA's stretch ends in a piece of one tile and the next CTA's begins with the rest of it;
// then the short tiles, whole, round robin from the first CTA. The CTAs that take one short tile
// more than the others (the first shorts % CTAs) take shorter stretches, by the time a short tile
// takes, so that every CTA ends at about the same time. Each piece's consumers write their softmax
// state (O, row max and sum) to the call's workspace, and the piece that completes its tile (a
// counter per tile and consumer warp) merges the states and finishes the tile as usual. In 32 bits
// (split_tail_deal bounds the launch), but for the stretches' starts, which are fixed point: the
// producer steps the deal in its 24 registers, where 64-bit divisions spilled.
struct SplitTail {
    int full;          // full tiles (kLast's order: these first)
    int count;         // all tiles: each pair's short one after the full ones
    int rounds;        // rounds of whole full tiles before the tail: tiles [0, rounds x CTAs)
    int key_tiles;     // of every tile (no causal mask, no window)
    int tail_keys;     // key tiles of the tail: (full - rounds x CTAs) x key_tiles
    int more_shorts;   // the CTAs that take a short tile more than the others (the first ones)
    // Their stretch's length and the other CTAs', in key tiles with kStretchFraction fractional
    // bits (each 0, or at least two key tiles: no stretch inside a tile is empty).
    int short_stretch, stretch;
    static constexpr int kStretchFraction = 8;

    // Where CTA `cta` of `ctas` starts its stretch (CTA ctas: the tail's end).
    __host__ __device__ __forceinline__ TailPoint start(int cta, int ctas) const {
        const long long fixed = cta <= more_shorts ? static_cast<long long>(cta) * short_stretch
                                                   : static_cast<long long>(more_shorts) * short_stretch +
                                                         static_cast<long long>(cta - more_shorts) * stretch;
        const int key = cta >= ctas ? tail_keys
                                    : static_cast<int>(min(fixed >> kStretchFraction, static_cast<long long>(tail_keys)));
        return {rounds * ctas + key / key_tiles, key % key_tiles};
    }
    // The tiles a stretch from `from` to `to` touches.
    __host__ __device__ __forceinline__ static int stretch_tiles(TailPoint from, TailPoint to) {
        return from.tile == to.tile && from.key_tile == to.key_tile ? 0 : to.tile - from.tile + (to.key_tile > 0);
    }
    // The first CTA whose stretch holds part of tile `tile`, from CTA `cta`, which does: the one
    // whose stretch starts at the tile's first key tile or before it (ws_consumer.cuh's merge_split_tail walks
    // on from there, CTA by CTA, while a stretch ends inside the tile).
    __host__ __device__ __forceinline__ int first_cta(int tile, int cta, int ctas) const {
        for (TailPoint s = start(cta, ctas); s.tile == tile && s.key_tile > 0; s = start(cta, ctas)) --cta;
        return cta;
    }
    // Step `step` of CTA `cta`'s stretch, in order: its tile and key tiles [.y, .z), or .x = -1
    // past the stretch. (Taking the stretch's last piece first, on every CTA or every other one,
    // to spread the tiles' merges in time did not pay: docs/benchmarks/2026-11-29-h200-split-tail.md.)
    __host__ __device__ __forceinline__ int3 piece(int cta, int ctas, int step) const {
        const TailPoint from = start(cta, ctas), to = start(cta + 1, ctas);
        if (step >= stretch_tiles(from, to)) return make_int3(-1, 0, 0);
        const int tile = from.tile + step;
        return make_int3(tile, step == 0 ? from.key_tile : 0, tile == to.tile ? to.key_tile : key_tiles);
    }
};

// The split tail's workspace (FlashAttnFwdParams::workspace): a counter per tail tile (fewer
// than the CTAs) and consumer warp (at most three consumers of four warps), then two state slots a
// CTA (its stretch's first and last piece), each holding every consumer thread's state: kHeadDim
// / 2 O accumulators, two row maxima and two row sums.
constexpr int kSplitTailCounters = 3 * 4;
__host__ __device__ __forceinline__ long long split_tail_counter_floats(int ctas) {
    return (static_cast<long long>(ctas) * kSplitTailCounters + 31) / 32 * 32;
}
__host__ __device__ constexpr long long split_tail_slot_floats(int consumers, int head_dim) {
    return static_cast<long long>(consumers) * 128 * (head_dim / 2 + 4);
}
inline long long split_tail_workspace_floats(int head_dim, int ctas) {
    return split_tail_counter_floats(ctas) + 2ll * ctas * split_tail_slot_floats(3, head_dim);
}

// WalkDeal::light_from where a deal has no light order.
constexpr int kNoLightOrder = 0x7fffffff;

// A walk's deal as the kernel reads it. kLast's short tiles go round the CTAs starting from the
// first CTA with one full tile fewer than the others, and on round all CTAs. Where a short tile
// is split across the consumers, and so costs about a third of a full one, they may instead go
// round only the CTAs with fewer full tiles, at most two each (the light order): at bf16 B4 H32
// S4096 D64 on the 192-row tile, 48 CTAs take 21 full tiles and 84 take 20, and the 128 short
// tiles then put a second short tile on 44 of the 84 rather than a first on 44 of the 48 (1.5-2%
// faster on the H200, docs/benchmarks/2026-11-29-h200-retune.md). `light_from` is the round from
// which the light order differs from the plain one (every CTA's full tiles until then, and
// `heavy_ctas` CTAs take one more in that round), kNoLightOrder where there is none.
struct WalkDeal {
    WalkOrder kind;
    int light_from;
    int heavy_ctas;
    // kFold: the launch's folds, (fold_tiles / 2) x pairs; the query tiles of a pair dealt in
    // folds (its full ones, or all of them with a short last one); whether the single tiles
    // after the folds start with the short last ones (else with the middle ones).
    long long folds;
    int fold_tiles;
    bool shorts_first;
    SplitTail tail;  // kSplitTail

    // Plain round robin in tile_coords' order (kNone), no light order: a launch's deal unless
    // short_tile_deal, causal_fold_deal or split_tail_deal picks another.
    static constexpr WalkDeal none() { return WalkDeal{WalkOrder::kNone, kNoLightOrder, 0, 0, 0, false}; }
};

// The deal of a persistent launch of `ctas` CTAs over the grid `tiles` of block_m-row query tiles
// (tile_grid, which the launcher has already worked out): the rotation where the launch's K/V
// outgrows the L2 budget and the short tiles are a large share of the walk (at most 8 query
// tiles a sequence). Measured on the lent H100 (2026-11-27, calls BR, BS and BV): the rotation
// took bf16 B16 H32 S1024 D64 (134 MB of K/V, 6 query tiles) 3.5-8% faster, left B4 H32 S4096
// (22 query tiles) within 1% (2% slower with softcap) and, applied to f16 B8 H16 S512 (17 MB),
// made it 1.5-4.6% slower. Only where every CTA takes a tile in a pair's first round (no more
// query tiles than CTAs) and the tile index fits 32 bits: the rotation's arithmetic is then in
// 32 bits, its divisions by at most 8.
// kLast in the light order where the kernel splits the call's short tiles (`splits_short`, and
// they have 64 rows or fewer), every CTA takes a full tile first (so a walk's first tile is the
// plain order's, which every thread works out at the kernel's start: the light order's code
// there cost the seed shapes 0.7-1.2%) and no light CTA takes more than two short ones.
inline WalkDeal short_tile_deal(const FlashAttnFwdParams &p, int block_m, dim3 tiles, int ctas, bool splits_short) {
    WalkDeal deal = WalkDeal::none();
    if (tiles.x < 2 || p.seqlen_q % block_m == 0) return deal;
    const long long count = static_cast<long long>(tiles.x) * tiles.y * tiles.z;
    const long long kv_bytes = kv_head_bytes(p) * p.batch * p.heads_kv;
    const bool rotate = tiles.x <= 8 && static_cast<int>(tiles.x) <= ctas && count <= 0x7fffffffll &&
                        kv_bytes > kL2BytesForKV;
    const long long shorts = static_cast<long long>(tiles.y) * tiles.z;
    const long long full = count - shorts;
    const int heavy = static_cast<int>(full % ctas);
    const bool light = !rotate && splits_short && p.seqlen_q % block_m <= 64 && full >= ctas &&
                       full / ctas < 0x7fffffffll && shorts <= 2ll * (ctas - heavy);
    deal.kind = rotate ? WalkOrder::kRotate : WalkOrder::kLast;
    if (light) {
        deal.light_from = static_cast<int>(full / ctas);
        deal.heavy_ctas = heavy;
    }
    return deal;
}

// A causal walk's costs, in key tiles (TileSchedule's fold): a tile's boundary in a walk, and a
// CTA's start where each tile has its own, beside the key tiles a tile's last row sees times its
// share of the tile's rows. From a simulation of both launches (the hardware's dispatch as
// longest-first to the least busy SM) that reproduced the H200's times of the causal walk and of
// one CTA per tile within 1-5% on four warp-specialized tiles at 1,000-4,096 keys.
// causal_fold_deal's own estimate of the walk's time over one CTA per tile came within -0.16 to
// +0.13 of the measured ratio on the 31 shapes measured (docs/benchmarks/2026-11-29-h200-causal-walk.md),
// so it walks only where it expects the walk to take at most kCausalWalkShare of that time: where
// it expected 0.97-0.99 the variant probe measured 0.90, 0.98, 0.99 and 1.00, and the benchmark's
// A/B 1.02 (the 192-row head-dim-128 tile at 4,096 keys).
constexpr double kWalkTileCost = 0.5;
constexpr double kCtaStartCost = 1.5;
constexpr double kCausalWalkShare = 0.97;

// The causal walk's deal of a launch of `ctas` CTAs over `tiles` (tile_grid) of block_m-row query
// tiles and block_n-key key tiles, or false where one CTA per tile is expected to be faster.
// Where the sequences end in a short query tile the fold can leave it out (a single tile after
// the folds, fold_tiles = the full ones) or take it in (fold_tiles = all of them): the short tile
// sees every key with fewer rows, and either way some single tiles (the middle ones of an odd
// fold_tiles, the short ones) follow the folds, which round robin leaves uneven. Each deal's
// busiest CTA is worked out with the costs above (the single tiles in decreasing cost, so that
// the busiest is the first light or the first heavy CTA to take them), and the better deal walks
// if its busiest CTA has at most kCausalWalkShare of what the average CTA of one CTA per tile
// has (the hardware's dispatch balances those). On the host, once per launch: O(query tiles a
// sequence).
inline bool causal_fold_deal(const FlashAttnFwdParams &p, int block_m, int block_n, dim3 tiles, int ctas,
                             WalkDeal *deal) {
    const int count = static_cast<int>(tiles.x);
    const long long pairs = static_cast<long long>(tiles.y) * tiles.z;
    // The key tiles tile m walks (WsTile's n_blocks), weighted by its share of block_m rows.
    auto cost = [&](int m) {
        const int rows = min(block_m, p.seqlen_q - m * block_m);
        const KeyRange keys(p, SeqLens{p.seqlen_q, p.seqlen_k}, m * block_m, rows, std::true_type{});
        return static_cast<double>(keys.n_block_max(block_n) - keys.n_block_min(block_n)) * rows / block_m +
               kWalkTileCost;
    };
    double pair_cost = 0;  // in a walk
    for (int m = 0; m < count; ++m) pair_cost += cost(m);
    const double per_cta_of_ctas = (pair_cost + (kCtaStartCost - kWalkTileCost) * count) * pairs / ctas;
    const int full = p.seqlen_q / block_m;
    double best = kCausalWalkShare * per_cta_of_ctas;
    bool walks = false;
    const int fold_choices[2] = {full, count};  // the short last tile left out, taken in
    for (int choice = 0; choice < (count > full ? 2 : 1); ++choice) {
        const int folded = fold_choices[choice];
        const int half = folded / 2;
        double fold_cost = 0;  // a fold's, on average
        for (int m = 0; m < 2 * half; ++m) fold_cost += cost(m);
        if (half > 0) fold_cost /= half;
        // The single tiles' groups, each one a pair, in decreasing cost.
        double group_cost[2] = {0, 0};
        int groups = 0;
        const bool has_middles = folded & 1, has_shorts = folded < count;
        if (has_middles) group_cost[groups++] = cost(half);
        if (has_shorts) group_cost[groups++] = cost(count - 1);
        const bool swap = groups == 2 && group_cost[1] > group_cost[0];
        if (swap) std::swap(group_cost[0], group_cost[1]);
        const long long folds = static_cast<long long>(half) * pairs;
        const long long q = folds / ctas;
        const int r = static_cast<int>(folds % ctas);
        // Tiles among the first n single ones that the CTA at offset o from the first one takes.
        auto taken = [&](int o, long long n) { return o < n ? (n - 1 - o) / ctas + 1 : 0ll; };
        auto load = [&](int o) {
            const long long own = taken(o, pairs), both = taken(o, groups * pairs);
            return (q + (r > 0 && o >= ctas - r ? 1 : 0)) * fold_cost + own * group_cost[0] + (both - own) * group_cost[1];
        };
        const double busiest = r > 0 ? std::max(load(0), load(ctas - r)) : load(0);
        if (busiest < best) {
            best = busiest;
            walks = true;
            *deal = WalkDeal{WalkOrder::kFold, kNoLightOrder, 0, folds, folded,
                             has_shorts && (!has_middles || swap)};
        }
    }
    return walks;
}

// What a short tile of b of a full tile's u 64-row blocks is taken to cost against the full one:
// (b + 1) / (u + 1), not b / u, since the consumers without rows still take their turns.
inline double short_tile_cost(int blocks, int units) { return (blocks + 1.0) / (units + 1.0); }

// What the split tail is expected to cost a CTA beyond its share, in key tiles: its pieces'
// states written and merged, whose traffic comes in bursts (every CTA's stretch ends at about the
// same time). Measured on the H200 (docs/benchmarks/2026-11-29-h200-split-tail.md): 12-15 us
// against 1.6-2.2 us a key tile of the three-consumer 80-key and two-consumer 176-key tiles, about
// 3 us on the two-consumer 128-key tile; 9 key tiles splits every measured shape that ran faster
// split but the 128-key tile at 2,048 keys, and none that ran slower.
constexpr double kSplitTailPieceCost = 9.0;
// Split only where the busiest CTA of the whole-tile deal is expected to take this much longer.
constexpr double kSplitTailGain = 1.01;

// The split tail's deal (SplitTail) of a non-causal, unwindowed persistent launch of `ctas` CTAs
// over `tiles` (tile_grid) of block_m-row query tiles and block_n-key key tiles, or false where
// the call gave no workspace (or too small a one), the full tiles divide evenly, or the deal of
// whole tiles (kLast's) is not expected to take kSplitTailGain of the split's time on its busiest
// CTA. On the host, once per launch, O(1).
inline bool split_tail_deal(const FlashAttnFwdParams &p, int block_m, int block_n, dim3 tiles, int ctas,
                            WalkDeal *deal) {
    if (p.workspace == nullptr || p.workspace_floats < split_tail_workspace_floats(p.head_dim, ctas)) return false;
    const long long pairs = static_cast<long long>(tiles.y) * tiles.z;
    const long long count = static_cast<long long>(tiles.x) * pairs;
    const int short_blocks = (p.seqlen_q % block_m + 63) / 64;
    const long long shorts = short_blocks > 0 ? pairs : 0;
    const long long full = count - shorts;
    const long long key_tiles = (static_cast<long long>(p.seqlen_k) + block_n - 1) / block_n;
    const long long rounds = full / ctas;
    const long long tail = full - rounds * ctas;
    // SplitTail's 32 bits; a piece's key tiles announced in 16 bits each (ws_producer.cuh's slot).
    if (count * key_tiles > 0x7fffffffll || key_tiles >= 0x10000 || rounds < 1 || tail == 0) return false;
    const double s = shorts > 0 ? short_tile_cost(short_blocks, block_m / 64) : 0.0;  // in full tiles
    const long long q = shorts / ctas;
    const int more_shorts = static_cast<int>(shorts % ctas);
    // kLast's busiest CTA, in full tiles: the first `tail` CTAs take a full tile more, the short
    // tiles go round from the first CTA with one fewer.
    const double whole = std::max(rounds + s * (q + (more_shorts > 0 ? 1 : 0)),
                                  rounds + 1 + s * (q + (more_shorts > ctas - tail ? 1 : 0)));
    // The split: the CTAs with a short tile more take s full tiles' keys less.
    const double tail_keys = static_cast<double>(tail * key_tiles);
    const double d = s * key_tiles;
    double len = (tail_keys + more_shorts * d) / ctas, short_len = len - d;
    if (short_len < 2.0) {  // the tail on the CTAs with fewer short tiles alone
        short_len = 0;
        len = tail_keys / (ctas - more_shorts);
    }
    constexpr double kOne = 1 << SplitTail::kStretchFraction;
    if (len < 2.0 || len * kOne > 0x7fffffff) return false;  // (the stretches' fixed point in 32 bits)
    const SplitTail t{static_cast<int>(full), static_cast<int>(count), static_cast<int>(rounds),
                      static_cast<int>(key_tiles), static_cast<int>(tail * key_tiles), more_shorts,
                      static_cast<int>(std::ceil(short_len * kOne)), static_cast<int>(std::ceil(len * kOne))};
    const double split = std::max(more_shorts > 0 ? rounds + s * (q + 1) + short_len / key_tiles : 0.0,
                                  rounds + s * q + len / key_tiles) +
                         kSplitTailPieceCost / key_tiles;
    if (whole < kSplitTailGain * split) return false;
    *deal = WalkDeal{WalkOrder::kSplitTail, kNoLightOrder, 0, 0, 0, false, t};
    return true;
}

}  // namespace flashattn
