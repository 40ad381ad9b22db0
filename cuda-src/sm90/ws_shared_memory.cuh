// Where a warp-specialized CTA (ws_kernel.cuh) keeps everything in shared memory, and the
// phases of its barriers. After the Q tile and the K/V ring both sm_90a kernels lay out alike
// (qkv_tiles.cuh):
//
//   Q tile | K 0 | V 0 | K 1 | V 1 | ... | O tile (walks, WsTraits::kSeparateO)
//          | second Q tile (walks with two Q buffers, WsTraits::kPersistentQBuffers)
//          | mbarriers | tile slots (walks: the producer's announcements)
//
// Without a tile of its own O is staged in the Q tile (each consumer in its own rows, which only
// its Q.K^T read). The sizes are WsTraits' (kSmemLaunchBytes, kPersistentSmemLaunchBytes).
#pragma once

#include <cstdint>

#include "sm80/primitives.cuh"
#include "sm90/qkv_tiles.cuh"
#include "sm90/tma.cuh"
#include "sm90/traits.cuh"
#include "sm90/wgmma.cuh"

namespace flashattn::sm90 {

// Q comes in parts, each one TMA box (per 64 columns) with its own pair of barriers (landed;
// read by its consumers' warps): one per consumer in the walks and with three consumers, one for
// all in the two-consumer one-tile-per-CTA kernel. A consumer then waits only for its own rows
// and, in a walk, releases them at its last Q.K^T for the next tile's while the others still
// compute. Measured on the H200 against one part (docs/benchmarks/2026-11-29-h200-walk-boundaries.md):
// the head-dim-128 walks 0-0.5% faster (1.1-1.6% at S4096 and with softcap, ALiBi 0.4% slower),
// the head-dim-64 walks unchanged, the three-consumer one-tile-per-CTA kernel 2.5% faster at f16
// B4 H8 S512, the two-consumer one 1.4-1.7% slower at f16 S512 (so it keeps one part).
template <typename Traits>
__host__ __device__ constexpr int q_parts(bool persistent) {
    return persistent || Traits::kConsumers > 2 ? Traits::kConsumers : 1;
}

template <typename Traits, bool kPersistent>
struct WsSharedMemory : QkvTiles<Traits> {
    using QkvTiles<Traits>::base;
    using QkvTiles<Traits>::ring_end;
    static constexpr int kStages = Traits::kStages;
    static constexpr int kConsumers = Traits::kConsumers;
    // The walks' O tile after the ring (where it fits), else O is staged in the Q tile.
    static constexpr bool kOTile = kPersistent && Traits::kSeparateO;
    // The two-consumer head-dim-64 walk issues each tile's first Q.K^T ahead of it (ws_kernel.cuh,
    // kAhead), with two Q buffers: the second after the O tile, tile t in buffer t % 2.
    static constexpr int kQBuffers = kPersistent ? Traits::kPersistentQBuffers : 1;
    static constexpr int kQParts = q_parts<Traits>(kPersistent);
    static constexpr int kQPartRows = Traits::kBlockM / kQParts;
    // A walk's tile slots: tile t's is t % kSlots (why that many: ws_producer.cuh, issue_copies).
    static constexpr int kSlots = kQBuffers + 1;
    static_assert(kSlots * 16 <= Traits::kTileSlotBytes);
    static_assert(Traits::kQPair0Barrier == 0, "q_full takes Q's pair 0 at the barriers' start");
    static_assert(kQBuffers * kQParts <= Traits::kMaxQPairs, "Q's pairs fit the barriers' room");

    unsigned char *raw;  // the dynamic shared memory, as the kernel declares it

    __device__ __forceinline__ explicit WsSharedMemory(unsigned char *smem_raw)
        : QkvTiles<Traits>(smem_raw), raw(smem_raw) {}

    // --- Tiles after the ring ---
    __device__ __forceinline__ uint32_t o_tile() const { return kOTile ? ring_end() : base; }
    // The Q buffer of the CTA's tt-th tile.
    __device__ __forceinline__ uint32_t q_tile(int tt) const {
        return kQBuffers == 2 && (tt & 1) ? ring_end() + Traits::kOBytes : base;
    }

    // --- Barriers ---
    // Q's part 0 landed and read by its consumer warps; per stage, K landed, V landed, K read and
    // V read by every consumer warp; the first key tile's V with its tail zeroed (varlen); a split
    // short tile's merge; then Q's other parts' pairs. K and V are released apart because Q.K^T of
    // a key tile is done a whole turn before its P.V: with one release for both, the K that refills
    // a buffer started loading only when the tensor cores were about to need it (two buffers at
    // head dim 256 left a TMA latency of idle tensor cores in every turn).
    __device__ __forceinline__ uint32_t barriers() const {
        return ring_end() + (kOTile ? Traits::kOBytes : 0) + (kQBuffers == 2 ? Traits::kQBytes : 0);
    }
    // Part `part` of the CTA's tt-th tile's Q landed; read by its consumers' warps. Pair
    // b * kQParts + c is buffer b's part c.
    __device__ __forceinline__ uint32_t q_full(int tt, int part) const {
        const int pair = (kQBuffers == 2 ? (tt & 1) * kQParts : 0) + part;
        const uint32_t more_pairs = barriers() + kMbarrierBytes * Traits::kQPairsBarrier;
        return pair == 0 ? barriers() : more_pairs + 2 * kMbarrierBytes * (pair - 1);  // pair 0: the first
    }
    // The second of q_full's pair.
    __device__ __forceinline__ uint32_t q_empty(int tt, int part) const { return q_full(tt, part) + kMbarrierBytes; }
    __device__ __forceinline__ uint32_t k_full(int stage) const {
        return barriers() + kMbarrierBytes * (Traits::kKFullBarrier + stage);
    }
    __device__ __forceinline__ uint32_t v_full(int stage) const {
        return barriers() + kMbarrierBytes * (Traits::kVFullBarrier + stage);
    }
    __device__ __forceinline__ uint32_t k_empty(int stage) const {
        return barriers() + kMbarrierBytes * (Traits::kKEmptyBarrier + stage);
    }
    __device__ __forceinline__ uint32_t v_empty(int stage) const {
        return barriers() + kMbarrierBytes * (Traits::kVEmptyBarrier + stage);
    }
    __device__ __forceinline__ uint32_t v_tail_zeroed() const {
        return barriers() + kMbarrierBytes * Traits::kVTailBarrier;
    }
    // A split short tile's merge (ws_consumer.cuh, split_short_tile): every consumer in; consumer c's
    // state written (c >= 1); consumer 0 done reading it.
    __device__ __forceinline__ uint32_t merge_entry() const {
        return barriers() + kMbarrierBytes * Traits::kMergeEntryBarrier;
    }
    __device__ __forceinline__ uint32_t merge_full(int c) const { return merge_entry() + kMbarrierBytes * c; }
    __device__ __forceinline__ uint32_t merge_read(int c) const {
        return merge_entry() + kMbarrierBytes * (kConsumers - 1 + c);
    }

    // The ring's key tiles are numbered across the CTA's tiles: key tile j sits in buffer
    // j % kStages, and its use of that buffer is the (j / kStages)-th, whose barrier phase has
    // this parity. Likewise the CTA's tt-th tile is the (tt / kQBuffers)-th use of its Q buffer.
    __device__ __forceinline__ static uint32_t ring_parity(int j) { return static_cast<uint32_t>((j / kStages) & 1); }
    __device__ __forceinline__ static uint32_t q_parity(int tt) { return static_cast<uint32_t>((tt / kQBuffers) & 1); }

    // The CTA's tt-th tile's slot: its coordinates (query tile, head, batch) and, in a split
    // tail, its piece's key tiles; or -1 first for the walk's end.
    __device__ __forceinline__ int *tile_slot(int tt) const {
        const uint32_t slots = barriers() + Traits::kBarrierBytes - Traits::kTileSlotBytes;
        return reinterpret_cast<int *>(generic(slots) + 16 * (tt % kSlots));
    }
    // A shared-memory address as a generic pointer, for plain loads and stores.
    __device__ __forceinline__ unsigned char *generic(uint32_t addr) const { return raw + (addr - sm80::smem_addr(raw)); }

    // Every barrier's arrival count, from one thread, before the CTA's first __syncthreads.
    __device__ __forceinline__ void init_barriers(bool split_short_tiles) const {
        for (int b = 0; b < kQBuffers; ++b)
            for (int part = 0; part < kQParts; ++part) {
                barrier_init(q_full(b, part), 1);
                barrier_init(q_empty(b, part), 4 * kConsumers / kQParts);  // one arrival per consumer warp
            }
        for (int s = 0; s < kStages; ++s) {
            barrier_init(k_full(s), 1);
            barrier_init(v_full(s), 1);
            barrier_init(k_empty(s), 4 * kConsumers);
            barrier_init(v_empty(s), 4 * kConsumers);
        }
        barrier_init(v_tail_zeroed(), 1);
        if (split_short_tiles) {
            barrier_init(merge_entry(), 128 * kConsumers);
            for (int c = 1; c < kConsumers; ++c) {
                barrier_init(merge_full(c), 128);
                barrier_init(merge_read(c), 128);
            }
        }
        fence_barrier_init();
    }
};

}  // namespace flashattn::sm90
