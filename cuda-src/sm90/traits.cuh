// Compile-time configuration of the Hopper (sm_90a) forward kernel. One FwdTraits instantiation
// is one entry of the config table (cuda-src/tiles.rs, SM90_TILES); the kernel body
// lives in fwd_kernel.cuh and is compiled only for sm_90a.
#pragma once

#include <cuda_runtime.h>

#include "common/features.cuh"
#include "flashattn.h"

namespace flashattn::sm90 {

// The 64-column (128-byte) swizzle atoms a row of head_dim 16-bit elements takes in shared memory
// (wgmma.cuh), and the bytes of a tile of `rows` such rows. Head dim 96 takes two, the second
// half full: its Q.K^T reads two k16 steps of it and its P.V one N = 96 wgmma, so no MMA touches
// the padding, which costs shared memory only.
constexpr int swizzle_atoms(int head_dim) { return (head_dim + 63) / 64; }
constexpr int swizzled_tile_bytes(int rows, int head_dim) { return rows * swizzle_atoms(head_dim) * 128; }

// One mbarrier in shared memory (a 64-bit word, tma.cuh).
constexpr int kMbarrierBytes = 8;
// Hopper's shared memory: 228 KiB an SM, of which the hardware reserves 1 KiB for each resident
// CTA, so one CTA may take 227 KiB.
constexpr int kSmemPerSm = 228 * 1024;
constexpr int kMaxSmemPerCta = 227 * 1024;
constexpr int kReservedSmemPerCta = 1024;

template <typename Element_, int kHeadDim_, int kBlockN_, int kWarpgroups_, int kStages_>
struct FwdTraits {
    using Element = Element_;
    static constexpr int kHeadDim = kHeadDim_;
    static constexpr int kBlockN = kBlockN_;          // keys per iteration
    static constexpr int kWarpgroups = kWarpgroups_;  // each owns 64 query rows
    static constexpr int kStages = kStages_;          // K/V shared-memory buffers
    // Three buffers select the overlapped schedule: Q.K^T of key tile j+1 is issued before the
    // softmax of tile j, which needs a second S accumulator and a third buffer. Two buffers:
    // each tile's Q.K^T, softmax and P.V in turn, the next tile's copy under all of it.
    static constexpr bool kOverlapQK = kStages_ == 3;
    static constexpr int kBlockM = 64 * kWarpgroups;  // query rows per CTA
    static constexpr int kWarps = 4 * kWarpgroups;
    static constexpr int kThreads = 128 * kWarpgroups;
    // One-warpgroup CTAs exist to put several of them on an SM, so that one's softmax and
    // copies run under another's MMAs: cap registers at 168 so three fit (no spills at d64 and
    // d128 with 64 or 128 keys; a cap of 128 for four spilled). The overlapped schedule's second
    // S accumulator does not fit that at 128 keys, where three buffers allow two CTAs anyway.
    // Head dim 256 holds 128 O accumulators per thread and runs one CTA per SM at any size.
    static constexpr int kMinBlocksPerSM =
        kWarpgroups_ > 1 || kHeadDim_ > 128 ? 1 : (kStages_ == 3 && kBlockN_ == 128 ? 2 : 3);

    static constexpr int kAtoms = swizzle_atoms(kHeadDim);  // 64-column swizzle atoms per row
    static constexpr int kChunksPerRow = kHeadDim / 8;  // 16-byte chunks per row holding data
    static constexpr int kQKSteps = kHeadDim / 16;      // k16 steps of Q.K^T
    static constexpr int kPVSteps = kBlockN / 16;       // k16 steps of P.V

    static_assert(kHeadDim == 64 || kHeadDim == 96 || kHeadDim == 128 || kHeadDim == 256,
                  "wgmma tiles are built from 64-column (128-byte) swizzle atoms, the last one half full at 96");
    static_assert(sizeof(Element) == 2, "16-bit elements: 64 of them fill a 128-byte atom row");
    static_assert(kBlockN == 64 || kBlockN == 128, "S is one m64n64 or m64n128 wgmma per k16 step");
    static_assert(kWarpgroups >= 1 && kWarpgroups <= 3, "one to three warpgroups of 64 rows");
    static_assert(kStages == 2 || kStages == 3, "two buffers (plain schedule) or three (overlapped)");

    static constexpr int kQBytes = swizzled_tile_bytes(kBlockM, kHeadDim);
    static constexpr int kTileBytes = swizzled_tile_bytes(kBlockN, kHeadDim);
    // Q tile (reused for O in the epilogue), then [stage] {K tile, V tile}; every tile is a
    // whole number of 1024-byte swizzle periods, so each starts 1024-aligned.
    static constexpr int kSmemBytes = kQBytes + kStages * 2 * kTileBytes;
    // The launch rounds the dynamic shared-memory base up to 1024 bytes.
    static constexpr int kSmemLaunchBytes = kSmemBytes + 1024;
    // Fed by TMA (fwd_feeds.cuh, TmaFeed), a full barrier per buffer for K and one for V follow.
    static constexpr int kTmaSmemLaunchBytes = kSmemLaunchBytes + 2 * kStages * kMbarrierBytes;
    static_assert(kQBytes % 1024 == 0 && kTileBytes % 1024 == 0, "tiles keep 1024-byte alignment");
    static_assert(kTmaSmemLaunchBytes <= kMaxSmemPerCta, "tile does not fit in shared memory");

    // Whether an SM's 228 KiB of shared memory holds two CTAs (each also reserves 1 KiB).
    static constexpr bool kTwoCtasFit = 2 * (kTmaSmemLaunchBytes + kReservedSmemPerCta) <= kSmemPerSm;
    // The launch bound of one variant's kernels. ptxas spends whatever register budget the bound
    // leaves: under kMinBlocksPerSM's one-CTA budget, the f16 score-modifier kernel of the
    // two-warpgroup head-dim-64 128-key tile took 253-255 registers for the precise softcap tanh
    // (common/mask.cuh), and launches with more CTAs than SMs ran one CTA per SM where bf16's ran
    // two; under a two-CTA budget the same kernel fits 128 registers without spills.
    // `runs_packed_varlen`: the TMA kernel that leaves the O store to the threads runs every packed
    // varlen call that tensor maps describe (odd strides take the cp.async kernel), at any CTA
    // count, and unbounded its general variant ran one CTA an SM on the two-warpgroup tiles (head
    // dim 128, 64 keys: 131 registers; head dim 64, 128 keys: 138).
    // Bounded (128 registers, no spills), packed calls on the lent H200
    // (docs/benchmarks/2026-11-30-h200-varlen-occupancy.md): head dim 128's 64-key tile 0.75 and 0.83
    // of the time; head dim 64's 128-key tile 0.89 on the non-causal batch the H200 table gives it,
    // but 1.10 on a causal one forced onto it (no table row or rule gives it causal calls: the rule
    // prefers the warp-specialized tile of that height). The other dense and general kernels stay
    // as they are: the one that stores O by TMA (the launches above the SM count) fits 128
    // registers unasked, the rest launch at most one CTA an SM, and a bound would change their
    // schedules.
    static constexpr int min_blocks_per_sm(Variant v, bool runs_packed_varlen = false) {
        const bool two_ctas_wanted = v == Variant::kScoreMod || (v == Variant::kGeneral && runs_packed_varlen);
        return two_ctas_wanted && kWarpgroups_ > 1 && kTwoCtasFit ? 2 : kMinBlocksPerSM;
    }
};

// Defined in fwd_kernel.cuh, instantiated by the generated per-(dtype, head dim) sm_90a files: the
// dense and general variants for every configuration, the score-modifier one for those the build
// table marks (common/features.cuh).
template <typename Traits, Variant kVariant>
FlashAttnStatus launch_fwd(FlashAttnFwdParams *params, cudaStream_t stream);

// The warp-specialized kernel (ws_kernel.cuh): one producer warpgroup that only issues TMA copies
// and two or three consumer warpgroups of 64 query rows each that only compute, with the
// registers moved from the first to the others. One CTA per SM (the K/V ring fills shared
// memory). Calls whose tensors no tensor map describes (a zero or unaligned stride) run on
// `Fallback`, the two-warpgroup tile of fwd_kernel.cuh of the same key width, in the same variant
// (there its cp.async feed, fwd_feeds.cuh).
template <typename Element_, int kHeadDim_, int kBlockN_, int kConsumers_, int kStages_>
struct WsTraits {
    using Element = Element_;
    // An 80- or 176-key tile falls back to the 64-key one: fwd_kernel.cuh's tiles have no such
    // width.
    using Fallback = FwdTraits<Element_, kHeadDim_, kBlockN_ % 64 == 0 ? kBlockN_ : 64, 2, 2>;
    static constexpr int kHeadDim = kHeadDim_;
    static constexpr int kBlockN = kBlockN_;
    static constexpr int kStages = kStages_;
    // Consumer warpgroups. Three put a third computing warp on each scheduler (four warps with the
    // producer's), so one consumer's softmax latency hides under two others' work instead of one;
    // they get 160 registers each instead of 240: S, P and O of 128 keys at head dim 64, of 80 at
    // 128 (96 keys there spill).
    static constexpr int kConsumers = kConsumers_;
    static constexpr int kBlockM = 64 * kConsumers;
    static constexpr int kThreads = 128 * (kConsumers + 1);
    static constexpr int kWarps = kThreads / 32;
    // setmaxnreg targets. The CTA keeps the registers it launched with (65536 / kThreads per
    // thread, rounded down to a multiple of 8: 168 for 384 threads, 128 for 512), and the
    // producer's release must leave the consumers' claim within that pool: 128 x 24 + 256 x 240
    // for two consumers, 128 x 24 + 384 x 160 for three. (32 for the producer once left two
    // consumers' increase waiting forever.) Of the kernels, only the three-consumer head-dim-64
    // walks with score modifiers spill, 4 and 24 bytes (ptxas -v; the head-dim-128 walks spilled
    // 20-60 bytes until their tiles were announced).
    static constexpr int kProducerRegs = 24;
    static constexpr int kLaunchRegs = 65536 / kThreads / 8 * 8;
    static constexpr int kConsumerPool = (kLaunchRegs * kThreads - 128 * kProducerRegs) / (128 * kConsumers) / 8 * 8;
    static constexpr int kConsumerRegs = kConsumerPool < 240 ? kConsumerPool : 240;

    static constexpr int kAtoms = swizzle_atoms(kHeadDim);
    static constexpr int kChunksPerRow = kHeadDim / 8;
    static constexpr int kQKSteps = kHeadDim / 16;
    static constexpr int kPVSteps = kBlockN / 16;

    static_assert(kHeadDim == 64 || kHeadDim == 96 || kHeadDim == 128 || kHeadDim == 256,
                  "the head dims with a fallback tile");
    static_assert(kBlockN == 64 || kBlockN == 80 || kBlockN == 96 || kBlockN == 128 || kBlockN == 176,
                  "S is one m64nN wgmma per k16 step");
    static_assert(kStages >= 2 && kStages <= 4, "a ring of two to four K/V buffers");
    static_assert(kConsumers == 2 || (kConsumers == 3 && kHeadDim / 2 + kBlockN * 3 / 4 <= 128),
                  "two consumers, or three where S, P and O fit 160 registers (head dim 64 at 128 keys, 96 at "
                  "96, 128 at 80)");
    static_assert(kConsumers != 2 || kConsumerRegs == 240, "two consumers claim 240 registers");

    static constexpr int kQBytes = swizzled_tile_bytes(kBlockM, kHeadDim);
    static constexpr int kTileBytes = swizzled_tile_bytes(kBlockN, kHeadDim);
    // A short tile split by keys (ws_consumer.cuh, split_short_tile) hands each consumer's partial softmax state
    // (per thread: its kHeadDim / 2 O accumulators, two row maxima, two row sums) to consumer 0
    // through the O tile, one state at a time, ordered by mbarriers: the first consumer's state
    // waits until every consumer is in, each later one until consumer 0 has read the one before.
    static constexpr int kStateFloats = kHeadDim / 2 + 4;
    static constexpr bool kStateFitsOTile = kConsumers > 1 && 128 * kStateFloats * 4 <= kQBytes;
    static constexpr int kMergeBarriers = kStateFitsOTile ? 1 + 2 * (kConsumers - 1) : 0;
    // Q tile (O in the epilogue), [stage] {K tile, V tile}, then the barriers (ws_kernel.cuh).
    // (The last ones: a pair per consumer's part of Q, for two Q buffers, kPersistentQBuffers;
    // kept by every tile, since which tiles have two follows from these sizes.) After them, the
    // slots (one more than the Q buffers) in which a walk's producer announces each tile, or the
    // walk's end, to the consumers.
    static constexpr int kTileSlotBytes = 3 * 16;
    // The barriers, as indices in mbarriers from the first (what each counts:
    // ws_shared_memory.cuh, whose accessors take their addresses from these).
    static constexpr int kQPair0Barrier = 0;  // Q's part 0: landed, then read (a pair)
    static constexpr int kKFullBarrier = kQPair0Barrier + 2;  // each: kStages of them, stage s at + s
    static constexpr int kVFullBarrier = kKFullBarrier + kStages;
    static constexpr int kKEmptyBarrier = kKFullBarrier + 2 * kStages;
    static constexpr int kVEmptyBarrier = kKFullBarrier + 3 * kStages;
    static constexpr int kVTailBarrier = kKFullBarrier + 4 * kStages;  // the first key tile's V tail zeroed
    static constexpr int kMergeEntryBarrier = kVTailBarrier + 1;       // kMergeBarriers of them
    static constexpr int kQPairsBarrier = kMergeEntryBarrier + kMergeBarriers;  // Q's pairs 1, 2, ...
    static constexpr int kMaxQPairs = 2 * kConsumers;  // a consumer's part of each of two Q buffers
    static constexpr int kBarriers = kQPairsBarrier + 2 * (kMaxQPairs - 1);
    static constexpr int kBarrierBytes = kMbarrierBytes * kBarriers + kTileSlotBytes;
    static_assert(kBarrierBytes == 8 * (1 + 4 * kStages + kMergeBarriers + 2 * 2 * kConsumers) + kTileSlotBytes,
                  "the barriers' layout, counted by hand");
    static constexpr int kSmemBytes = kQBytes + kStages * 2 * kTileBytes + kBarrierBytes;
    static constexpr int kSmemLaunchBytes = kSmemBytes + 1024;
    // The persistent kernel must not stage O in Q's buffer, which is the next tile's once this
    // tile's last Q.K^T has read it. Where a tile of its own fits, between the K/V ring and the
    // barriers (head dim 64), O is staged there and leaves by TMA store; at head dims 96 and 128,
    // where it does not, O goes from registers straight to global memory
    // (WarpgroupTile::finish_to_global). Head dim 256's persistent walk is not compiled.
    static constexpr int kOBytes = kQBytes;
    static constexpr bool kSeparateO = kSmemLaunchBytes + kOBytes <= kMaxSmemPerCta;
    static constexpr bool kOFromRegisters = !kSeparateO && (kHeadDim == 96 || kHeadDim == 128);
    static constexpr bool kWalks = kSeparateO || kOFromRegisters;
    // The walk computes a short tile of at most 64 rows on every consumer, split by keys, with
    // its O tile as the merge's slot (ws_consumer.cuh, split_short_tile).
    static constexpr bool kWalkSplitsShortTiles = kSeparateO && kStateFitsOTile;
    // The two-consumer walk with O's own tile takes each tile's first Q.K^T in the turn of the
    // previous tile's last P.V (ws_consumer.cuh, kAhead), so the next tile's Q must have landed by
    // then: a second Q buffer, after the O tile. Measured on the lent H200 against one buffer
    // and the tile's own first turn (docs/benchmarks/2026-11-28-h200-four-consumers.md): bf16
    // B16 H32 S1024 7% faster, f16 B8 H16 S512 3%; with three consumers, whose 160 registers
    // then spill around the tile boundary, 2-15% slower, so those keep the tile's own turn.
    static constexpr int kPersistentQBuffers = kSeparateO && kConsumers == 2 ? 2 : 1;
    static constexpr int kPersistentSmemLaunchBytes =
        kSmemLaunchBytes + (kSeparateO ? kOBytes : 0) + (kPersistentQBuffers - 1) * kQBytes;
    static_assert(kPersistentSmemLaunchBytes <= kMaxSmemPerCta, "the walk's tiles do not fit in shared memory");
    // With O from registers the walk runs where a tile has at most this many keys, whatever the
    // key tile. The timeline probe (docs/benchmarks/2026-11-28-h100-timeline.md) has the walk's
    // tile boundary about 1.7 us shorter than a new CTA's, but its key tiles 5-9% slower, turn for
    // turn (ptxas orders the walking kernel's key loop differently): on the H100 512 and 1,024
    // keys ran 8-11% and 4-6% faster, 8,192 3% slower. With Q released after the key loop
    // (ws_consumer.cuh), on the H200: 2,048 keys walk 2.3-4% faster on the 80-, 128- and 176-key
    // tiles (6.5% with softcap), 4,096 keys 0.1-0.5% faster, 8,192 and 16,384 0.5-1.4% slower
    // (docs/benchmarks/2026-11-28-h200-walk-loop.md, 2026-11-28-h200-walk-limit.md).
    static constexpr int kWalkMaxKeys = 4096;
    static_assert(kSmemLaunchBytes <= kMaxSmemPerCta, "tile does not fit in shared memory");
};

// kFallbackId: the registry id of Fallback's configuration (what config_used reports when the
// call runs there).
template <typename Traits, Variant kVariant, int kFallbackId>
FlashAttnStatus launch_ws(FlashAttnFwdParams *params, cudaStream_t stream);

}  // namespace flashattn::sm90
