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
// common/tile_work.cuh; windows in the plain order), and at head dim 128 only up to
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
// memory before any P.V reads them (zero_v_tail).
#pragma once

#include <cuda_runtime.h>

#include "common/tile_work.cuh"
#include "common/timeline.cuh"
#include "sm80/primitives.cuh"
// The fallback's launcher (launch_fwd) is only declared here, in traits.cuh: its kernel is
// compiled once, in the fallback configuration's own file. Including fwd_kernel.cuh would compile
// a second copy in this file's module, registered under the same host function.
#include "sm90/tma.cuh"
#include "sm90/traits.cuh"
#include "sm90/warpgroup_tile.cuh"
#include "sm90/wgmma.cuh"
#include "sm90/ws_shared_memory.cuh"

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
    // How a persistent walk deals short last query tiles (common/tile_work.cuh), worked out on the
    // host: kNone for one tile per CTA.
    WalkDeal deal;
};

// Named barriers 1 .. kConsumers: consumer c's turn at the tensor cores is barrier 1 + c.
constexpr int kTurnBarrier = 1;
// The next kConsumers: a consumer's 128 threads before copying its O rows out.
template <typename Traits>
constexpr int kEpilogueBarrier = kTurnBarrier + Traits::kConsumers;

// The consumers take turns at the tensor cores, in a ring: in its turn a consumer issues
// Q.K^T of key tile j and P.V of tile j - 1, then lets the next one issue while it waits for
// S and runs tile j's softmax (FlashAttention-3's ping-pong; with three consumers a softmax
// runs under two others' GEMMs). O is rescaled to tile j - 1's row max just before P.V of
// j - 1 accumulates into it. Turns go round strictly over the CTA's whole life, across its
// tiles: consumer c's turn waits for consumer c - 1's previous one, consumer 0's for the last
// consumer's (except the CTA's first turn). Each named barrier sees as many arrivals as
// waits: the last consumer's last turn of a tile hands on to consumer 0's next tile, and
// after the CTA's last tile to nobody (one tile per CTA), or consumer 0 takes it
// (persistent: whether a tile is the last is known only after it).
template <int kConsumers, bool kPersistent>
struct TurnRing {
    static constexpr int kLast = kConsumers - 1;
    int consumer;
    bool took_turn = false;  // consumer 0: whether any turn came before this one

    __device__ __forceinline__ explicit TurnRing(int consumer_index) : consumer(consumer_index) {}
    // Wait for the consumer before (the CTA's first turn, consumer 0's, waits for nobody).
    __device__ __forceinline__ void begin() {
        if (consumer != 0 || took_turn) named_barrier_sync(kTurnBarrier + consumer, 256);
        took_turn = true;
    }
    // Hand on to the next consumer; tile_done: the consumer's last turn of a tile.
    __device__ __forceinline__ void end(bool tile_done) {
        if (kPersistent || consumer != kLast || !tile_done)
            named_barrier_arrive(kTurnBarrier + (consumer == kLast ? 0 : consumer + 1), 256);
    }
    // After the CTA's last tile: consumer 0 takes the last hand-over of a walk.
    __device__ __forceinline__ void close() {
        if (kPersistent && consumer == 0 && took_turn) named_barrier_sync(kTurnBarrier, 256);
    }
};

// Zero rows [valid_rows, kBlockN) of a K/V tile in the swizzle layout, from one warp. A row's
// 128 bytes in each atom are its own (the swizzle permutes chunks within the row), so whole rows
// are cleared without computing the permutation. The writes go through the generic proxy; the
// fence orders them before the tensor cores' (async proxy) reads that the caller then releases.
template <typename Traits>
__device__ __forceinline__ void zero_v_tail(uint32_t tile, int valid_rows, int lane) {
    constexpr int kChunksPerAtomRow = kAtomRowBytes / 16;
    const int chunks = (Traits::kBlockN - valid_rows) * Traits::kAtoms * kChunksPerAtomRow;
    for (int i = lane; i < chunks; i += 32) {
        const int row = valid_rows + i / (Traits::kAtoms * kChunksPerAtomRow);
        const int atom = i / kChunksPerAtomRow % Traits::kAtoms;
        const int chunk = i % kChunksPerAtomRow;
        const uint32_t addr = tile + (atom * Traits::kBlockN + row) * kAtomRowBytes + chunk * 16;
        asm volatile("st.shared.v4.b32 [%0], {%1, %1, %1, %1};\n" ::"r"(addr), "r"(0) : "memory");
    }
    fence_proxy_async();
}

// a where kFirst, else b (a reference chosen at compile time).
template <bool kFirst, typename T>
__device__ __forceinline__ T &first_if(T &a, T &b) {
    if constexpr (kFirst)
        return a;
    else
        return b;
}

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
        const int kv_head = head / (p.heads_q / p.heads_kv);
        auto load_kv = [&](int i) {
            const int j = kv + i, stage = j % kStages;
            if (j >= kStages) barrier_wait(smem.k_empty(stage), Smem::ring_parity(j) ^ 1);
            const int row = tile.work.k_first + tile.key0(i);
            barrier_arrive_expect_tx(smem.k_full(stage), Traits::kTileBytes);
#pragma unroll
            for (int a = 0; a < kAtoms; ++a)
                tma_load_4d(smem.k_tile(stage) + a * kBlockN * kAtomRowBytes, &args.k, smem.k_full(stage), a * 64, row,
                            kv_head, tile.batch_coord);
            if (j >= kStages) barrier_wait(smem.v_empty(stage), Smem::ring_parity(j) ^ 1);
            barrier_arrive_expect_tx(smem.v_full(stage), Traits::kTileBytes);
#pragma unroll
            for (int a = 0; a < kAtoms; ++a)
                tma_load_4d(smem.v_tile(stage) + a * kBlockN * kAtomRowBytes, &args.v, smem.v_full(stage), a * 64, row,
                            kv_head, tile.batch_coord);
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

// A split tail's piece (SplitTail), once its last P.V is done: each consumer warp writes its
// threads' states to the CTA's slot for the piece (the stretch's first piece, or its last
// where the stretch ends inside the tile) and adds the piece's key tiles to its counter for
// the tile; the warp whose addition completes the tile's walk resets the counter for the next
// call, folds the pieces' states in the stretches' order (p0 + p1 + p2 ..., its own from its
// registers where it is p0 or p1, whose merge is symmetric: the same sums whichever piece
// finishes last) and returns true: its tile's epilogue follows. The states go through L2
// (st.cg, ld.cg: another SM's L1 holds nothing of them), ordered as CUTLASS's semaphores order
// theirs: the warp's stores before lane 0's release (__syncwarp), the merging warp's loads
// after lane 0's acquire, rather than a __threadfence in every thread (a fence.sc). Where
// every CTA merges at once (the stretches end together) a merge took 8-25 us on the H200
// against 3 alone, which is why the launcher splits only long walks
// (docs/benchmarks/2026-11-29-h200-split-tail.md).
template <typename Traits, typename Tile, typename Piece>
__device__ __forceinline__ bool merge_split_tail(const FlashAttnFwdParams &p, const SplitTail &tail, Tile &wg,
                                                 const Piece &tile, int consumer, int warp, int lane) {
    constexpr int kBlockM = Traits::kBlockM;
    constexpr int kStateFloats = Traits::kStateFloats;
    const int ctas = gridDim.x;
    constexpr long long kSlotFloats = split_tail_slot_floats(Traits::kConsumers, Traits::kHeadDim);
    static_assert(kSlotFloats == Traits::kConsumers * 128 * Tile::kStateFloats && Tile::kStateFloats == kStateFloats);
    float *const slots = p.workspace + split_tail_counter_floats(ctas);
    const int me = consumer * kStateFloats * 128 + threadIdx.x % 128;
    auto slot_of = [&](int cta, bool ends_inside) { return slots + (2ll * cta + ends_inside) * kSlotFloats + me; };
    float *const mine = slot_of(blockIdx.x, tile.ends_inside());
    wg.save_state([&](int e, float v) { __stcg(mine + e * 128, v); });
    // The tile's index in kLast's order (TileSchedule::coords' inverse): a full tile.
    const int full_per_pair = p.seqlen_q / kBlockM;
    const int pair = tile.work.head + p.heads_q * tile.batch_coord;
    const int i = pair * full_per_pair + tile.work.row_begin / kBlockM;
    __syncwarp();
    int completes = 0;
    if (lane == 0) {
        int *const counter = reinterpret_cast<int *>(p.workspace) +
                             (i - tail.rounds * ctas) * kSplitTailCounters + consumer * 4 + warp;
        int before;
        asm volatile("atom.acq_rel.gpu.global.add.s32 %0, [%1], %2;\n"
                     : "=r"(before)
                     : "l"(counter), "r"(tile.n_blocks)
                     : "memory");
        completes = before + tile.n_blocks == tile.walk_keys;
        if (completes) *counter = 0;
    }
    if (!__shfl_sync(0xffffffff, completes, 0)) return false;
    __syncwarp();
    const int first = tail.first_cta(i, blockIdx.x, ctas);
    const int own = blockIdx.x - first;
    for (int k = 0, cta = first;; ++k, ++cta) {
        const bool inside = tail.start(cta + 1, ctas).tile == i;
        const float *const piece = slot_of(cta, inside);
        auto load = [&](int e) { return __ldcg(piece + e * 128); };
        if (own >= 2 && k == 0)
            wg.load_state(load);
        else if (k != own || own >= 2)
            wg.merge_state(load);
        if (!inside) break;
    }
    return true;
}

template <typename Traits, Variant kVariant, bool kPersistent>
__global__ void __launch_bounds__(Traits::kThreads, 1) ws_kernel(const __grid_constant__ WsArgs args) {
    // The persistent walk releases Q after a tile's last Q.K^T, so O needs a tile of its own or
    // goes from registers (traits.cuh). It never runs packed varlen tensors (the launcher's
    // rule): their V-tail barrier is used once per CTA.
    static_assert(!kPersistent || Traits::kWalks);
    constexpr bool kOFromRegisters = kPersistent && Traits::kOFromRegisters;
    using Element = typename Traits::Element;
    using F = Features<kVariant>;
    using Work = TileWork<Element, F>;
    using Tile = WarpgroupTile<Traits, F>;
    constexpr int kBlockM = Traits::kBlockM;
    constexpr int kStages = Traits::kStages;
    constexpr int kAtoms = Traits::kAtoms;
    const FlashAttnFwdParams &p = args.params;

    extern __shared__ unsigned char smem_raw[];
    using Smem = WsSharedMemory<Traits, kPersistent>;
    const Smem smem(smem_raw);
    constexpr bool kOTile = Smem::kOTile;
    constexpr int kQBuffers = Smem::kQBuffers;
    constexpr int kQParts = Smem::kQParts;
    // Where a short tile is split by keys (split_tile; the merge's slot is the O tile).
    constexpr bool kSplitShortTiles = kPersistent && Traits::kWalkSplitsShortTiles;
    // Where the launcher may split a walk's tail across the CTAs (SplitTail, merge_split_tail):
    // the head-dim-128 walks, whose O leaves from registers.
    constexpr bool kSplitTail = kOFromRegisters;
    // The two-consumer head-dim-64 walk issues each tile's first Q.K^T ahead of it (kAhead, below),
    // in the other of its two Q buffers.
    constexpr bool kAhead = kQBuffers == 2;
    // (Two consumers' walks split no short tile: a state does not fit their O tile.)
    static_assert(!kAhead || (kOTile && !kSplitShortTiles));
    const bool packed = !kPersistent && F::kVarlen && p.cu_seqlens_q != nullptr;

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
    TileSchedule<kPersistent, kSplitShortTiles, kSplitTail> schedule(kBlockM);
    int3 coords = schedule.template coords<Work>(p, args.deal);
    WsTile<Traits, F> tile(p, coords, packed);
    auto next_tile = [&] {
        if (!schedule.next(p, args.deal)) return false;
        coords = schedule.template coords<Work>(p, args.deal);
        if constexpr (kSplitTail)
            tile = WsTile<Traits, F>(p, coords, packed, schedule.piece_keys(args.deal));
        else
            tile = WsTile<Traits, F>(p, coords, packed);
        return true;
    };

    if (threadIdx.x == 0) smem.init_barriers(kSplitShortTiles);
    __syncthreads();
    if (threadIdx.x == 0) timeline_mark(0, kMarkBarriersReady);

    const int warpgroup = warpgroup_index();
    if (warpgroup == 0) {
        warpgroup_release_registers<Traits::kProducerRegs>();
        if (threadIdx.x == 0) {
            issue_copies<kPersistent, kSplitTail>(args, smem, tile, coords, next_tile);
        } else if (packed && threadIdx.x / 32 == 1) {
            // One tile per CTA (never kPersistent): its first key tile is the ring's first.
            if (!tile.work.skipped() && tile.zero_tail) {
                // Buffer 0 cannot be refilled before the consumers release it, which they do
                // only after reading it through v_tail_zeroed.
                barrier_wait(smem.v_full(0), 0);
                zero_v_tail<Traits>(smem.v_tile(0), tile.work.len.k - tile.key0(0), threadIdx.x % 32);
                __syncwarp();
                if (threadIdx.x % 32 == 0) barrier_arrive(smem.v_tail_zeroed());
            }
        }
        return;
    }

    warpgroup_claim_registers<Traits::kConsumerRegs>();
    const int consumer = warpgroup - 1;
    // (A local: read through smem inside wait_v, it moved blocks of the varlen kernels' SASS.)
    const uint32_t v_tail_zeroed = smem.v_tail_zeroed();
    const int q_part = kQParts == 1 ? 0 : consumer;  // the part of Q holding its rows
    const int warp = (threadIdx.x / 32) % 4;
    const int lane = threadIdx.x % 32;
    const bool store_thread = threadIdx.x % 128 == 0;  // issues the consumer's TMA stores of O
    using Scores = typename Tile::Scores;
    using PFrag = typename Tile::PFrag;
    // One arrival per consumer warp, once its lanes are done with what the barrier guards.
    auto arrive_warp = [&](uint32_t barrier) {
        __syncwarp();
        if (lane == 0) barrier_arrive(barrier);
    };
    // The timeline probe's marks of this consumer (common/timeline.cuh); nothing in the library.
    auto mark = [&](int tile_index, int offset) {
        if (store_thread) timeline_mark(tile_index, kMarkConsumer + consumer * kMarkConsumerStride + offset);
    };

    // Whether a consumer exponentiates key tile j while its own P.V of tile j - 1 still runs (into
    // S, P packed once that P.V completes) rather than after it. Measured against the latter
    // (docs/benchmarks/2026-11-27-h100-exp-under-pv.md): from head dim 128, where the tensor cores
    // take as long as the exponentials or longer, plain, causal and sink calls 2-4% faster; at
    // head dim 64, where the special-function unit is the tighter one and shared with the other
    // consumers' softmax, 3-4% slower with three consumers, but with two 1.2-1.5% faster on the
    // one seed shape the H200 table gives that tile, f16 B4 H8 S512 (the variant probe, twice:
    // docs/benchmarks/2026-11-28-h200-four-consumers.md); with softcap or ALiBi, whose per-score
    // work precedes the exponentials, 1.5-4.5% slower.
    constexpr bool kExpUnderPV = (Traits::kHeadDim >= 128 || Traits::kConsumers == 2) && !F::kScoreMod;
    // Persistent: a consumer's part of Q is the next tile's once the tile's last Q.K^T has read
    // it, and the consumer releases it right then, inside the key loop. (Before their tiles were
    // announced the head-dim-128 walks ran 0.3-1.1% faster releasing Q after the loop, a softmax
    // later: docs/benchmarks/2026-11-28-h200-walk-loop.md. Announced, and with Q in parts, they
    // run 0.8-1.9% faster releasing it inside at 1,024-2,048 keys on the 80-key tile, even at
    // 4,096: 2026-11-29-h200-walk-boundaries.md.)
    TurnRing<Traits::kConsumers, kPersistent> turns(consumer);

    int kv = 0;  // key tiles this CTA has consumed
    int t = 0;   // tiles this CTA has started
    // Whether the producer announced tile tt (its Q landed) rather than the walk's end. Each
    // warp's lane 0 reads the slot and shares it by shuffles: the producer rewrites the slot once
    // the warps have released a Q buffer, which lane 0 alone does (arrive_warp), so only its reads
    // are ordered before that (racecheck reported the other lanes' reads against the rewrite).
    int3 announcement;
    int announced_piece = 0;  // kSplitTail: the piece's key tiles, first | end << 16
    auto announced = [&](int tt) {
        barrier_wait(smem.q_full(tt, q_part), Smem::q_parity(tt));
        int3 read = make_int3(0, 0, 0);
        int piece = 0;
        if (lane == 0) {
            const int *slot = smem.tile_slot(tt);
            read = make_int3(slot[0], slot[1], slot[2]);
            if (kSplitTail) piece = slot[3];
        }
        announcement = make_int3(__shfl_sync(0xffffffff, read.x, 0), __shfl_sync(0xffffffff, read.y, 0),
                                 __shfl_sync(0xffffffff, read.z, 0));
        if (kSplitTail) announced_piece = __shfl_sync(0xffffffff, piece, 0);
        return announcement.x >= 0;
    };
    // The tile just announced.
    auto take_tile = [&] {
        if constexpr (kSplitTail)
            tile = WsTile<Traits, F>(p, announcement, packed, make_int2(announced_piece & 0xffff, announced_piece >> 16));
        else
            tile = WsTile<Traits, F>(p, announcement, packed);
    };
    // A consumer's step to the CTA's next tile, t; false after its last.
    auto consumer_next_tile = [&] {
        if (!kPersistent || !announced(t)) return false;
        take_tile();
        return true;
    };

    // A consumer whose 64 rows all lie past the sequence's end (in the last query tile of a
    // length that is not a multiple of kBlockM: the 192-row tile's third consumer at 512 rows, its
    // second and third at 1024) has nothing to compute: it leaves the tensor cores to the others
    // (call BN: that tile then costs about what a full 128-row tile does, 15% less than before).
    // It still takes every turn the computing path takes, in the same order, so the ring goes
    // round as usual, and releases each buffer the computing path releases, only after the data
    // it guards has landed: a release before the buffer's fill would count toward its previous
    // phase and free it under the other consumers' reads. A loop of its own rather than branches
    // around the computing loop's wgmmas: a wgmma skipped by a branch inside the pipeline makes
    // ptxas serialize every wgmma of the kernel (C7515, seen on this change's first try).
    // kAhead: a tile's first Q.K^T goes out in the turn of the previous tile's last P.V (the
    // CTA's first tile's in a turn of its own, before the walk), and the previous tile's finish
    // runs under it instead of between the two tiles' tensor-core work; each tile then takes one
    // turn fewer, the last one shared. Every path issues it, a passing tile too (its S unused,
    // retired before the tile's own work), and each branch ends its own turn: a Q.K^T issued on
    // some paths only, or retired on some only, made ptxas serialize every wgmma of the kernel
    // (C7515, tried on the way here). The launcher walks only calls with keys, so no walked tile
    // is skipped.
    Scores ahead_s;  // kAhead: S of a tile's first key tile, issued before the tile
    // Tile tt's first Q.K^T, its first key tile the ring's kk-th, within a turn taken by the caller.
    auto issue_next_in_turn = [&](int tt, int kk) {
        barrier_wait(smem.q_full(tt, q_part), Smem::q_parity(tt));
        mark(tt, kMarkQLanded);
        barrier_wait(smem.k_full(kk % kStages), Smem::ring_parity(kk));
        Tile::issue_qk(consumer, ahead_s, smem.q_tile(tt), smem.k_tile(kk % kStages));
    };
    auto pass_tile = [&](int n_blocks, auto stage_of, auto parity_of, auto wait_v) {
        barrier_wait(smem.q_full(t, q_part), Smem::q_parity(t));
        if constexpr (kAhead) {
            wgmma_wait<0>();  // the first Q.K^T issued ahead, with the first turn
            hold(ahead_s);
        }
        for (int i = 0; i < n_blocks; ++i) {
            barrier_wait(smem.k_full(stage_of(i)), parity_of(i));
            if (!kAhead || i > 0) {
                turns.begin();
                turns.end(false);
            }
            arrive_warp(smem.k_empty(stage_of(i)));
            if (kPersistent && i == n_blocks - 1) arrive_warp(smem.q_empty(t, q_part));
            if (i > 0) {
                wait_v(i - 1);
                arrive_warp(smem.v_empty(stage_of(i - 1)));
            }
        }
        if constexpr (!kAhead) {  // kAhead: the last turn is the walk's, with the next tile's Q.K^T
            turns.begin();
            turns.end(true);
        }
        if (kPersistent) {
            wait_v(n_blocks - 1);
            arrive_warp(smem.v_empty(stage_of(n_blocks - 1)));
        }
    };

    // A tile whose rows all lie in its first 64 (a sequence's last query tile, where the length
    // leaves 64 rows or fewer of it) would have one consumer computing, its softmax under nobody's
    // GEMMs, and the others passing: at bf16 B16 H32 S1024 D64 on the 192-row tile such tiles cost
    // 54% of a full one for a third of its rows (docs/benchmarks/2026-11-28-h200-walk-limit.md).
    // Instead every consumer computes those 64 rows against every kConsumers-th key tile (all
    // consumers' key tiles of a round are then in flight at once) and consumer 0 merges the
    // partial softmax states, handed over through shared memory one at a time, as the online
    // softmax merges a key tile. The merge slot is the O tile, free once every consumer's
    // previous TMA store has read it, and must hold one consumer's state (acc_o, row max and sum
    // per thread). A loop of its own (see pass_tile); each consumer takes one turn, so the ring
    // goes round as over any tile, and its GEMMs are not ordered by turns. Compiled where it was
    // measured faster: the persistent walk of the 192-row head-dim-64 tile (S1024 2.5%, S4096
    // 1.5% on the H200; the 128-row tile's O tile is too small for a state). In the
    // one-tile-per-CTA kernels of the 192-row head-dim-128 tile (the Q tile as the slot, free once
    // every consumer's Q.K^T is done) ptxas ordered the key loop worse: S8192, S16384 and causal
    // S8192 1-1.5% slower (docs/benchmarks/2026-11-28-h200-split-short.md).
    int splits = 0;  // split tiles merged so far: each merge barrier completes once per split tile
    auto split_tile = [&](Tile &wg, int n_blocks, auto stage_of, auto parity_of, auto wait_v) {
        // Every consumer reads consumer 0's rows, which consumer 0 releases once it has every
        // state (each consumer's Q.K^T done); the others release their own parts (unread).
        barrier_wait(smem.q_full(t, 0), Smem::q_parity(t));
        barrier_wait(smem.q_full(t, q_part), Smem::q_parity(t));
        turns.begin();
        turns.end(true);
        Scores acc_s;
        PFrag p_frag;
        for (int i = 0; i < n_blocks; ++i) {
            barrier_wait(smem.k_full(stage_of(i)), parity_of(i));
            if (i % Traits::kConsumers == consumer) {
                wg.issue_qk(acc_s, smem.q_tile(t), smem.k_tile(stage_of(i)));
                wgmma_wait<0>();
                hold(acc_s);
                arrive_warp(smem.k_empty(stage_of(i)));
                const typename Tile::RowOffsets offsets = wg.rescale(acc_s, p, tile.key0(i));
                wg.to_p(acc_s, offsets, p_frag);
                wait_v(i);
                wg.issue_pv(p_frag, smem.v_tile(stage_of(i)));
                wgmma_wait<0>();
                hold(wg.acc_o);
            } else {
                arrive_warp(smem.k_empty(stage_of(i)));
                wait_v(i);
            }
            arrive_warp(smem.v_empty(stage_of(i)));
        }
        if (consumer != 0) arrive_warp(smem.q_empty(t, q_part));  // (compiled into the persistent walk only)
        // The merge. Element e of thread j's state sits at float e * 128 + j of the slot. The
        // hand-overs are mbarriers, each thread arriving: compute-sanitizer's racecheck loses the
        // order of a bar.sync of all consumers once the turn ring's bar.arrive is in the kernel
        // (call FM: docs/benchmarks/2026-11-28-h200-split-short/racecheck_probe.cu), and
        // synccheck objects to a named barrier synced at two places (call FI).
        const uint32_t phase = splits & 1;
        if (args.o_by_tma && store_thread) bulk_wait_read();  // the previous O copied out
        barrier_arrive(smem.merge_entry());
        float *slot = reinterpret_cast<float *>(smem.generic(smem.o_tile())) + threadIdx.x % 128;
        for (int c = 1; c < Traits::kConsumers; ++c) {
            if (consumer == c) {
                barrier_wait(c == 1 ? smem.merge_entry() : smem.merge_read(c - 1), phase);
                wg.save_state([&](int e, float v) { slot[e * 128] = v; });
                barrier_arrive(smem.merge_full(c));
            } else if (consumer == 0) {
                barrier_wait(smem.merge_full(c), phase);
                // Consumers 1, 2 in turn: a fixed order, no symmetric merge needed.
                wg.template merge_state<false>([&](int e) { return slot[e * 128]; });
                barrier_arrive(smem.merge_read(c));
            }
        }
        if (consumer == 0) arrive_warp(smem.q_empty(t, 0));  // each state came after its Q.K^T
        // Every consumer's next O rows lie in the slot, consumer 0's finish too: not before all
        // consumer 0's warps have read it (call FN: without this wait for consumer 0, its finish
        // overwrote states its other warps were still reading, racecheck's timing exposed it).
        barrier_wait(smem.merge_read(Traits::kConsumers - 1), phase);
        ++splits;
    };


    // Epilogue of a tile whose O leaves through shared memory: each consumer stages its own 64
    // rows of O (in its own rows of the Q tile, which only its Q.K^T read; persistent: in the O
    // tile) and sends them out, by one TMA store issued from its first thread or by all its
    // threads in 16-byte chunks; the other consumers may still be computing. A persistent CTA's
    // previous copy out of the same rows is behind this tile's turns, each a bar.sync of all its
    // threads (and the store thread waited for its TMA store to read them before its last turn).
    auto send_o = [&](Tile &wg, const Work &work) {
        wg.finish(p, work, smem.o_tile(), lane / 4);
        mark(t, kMarkStaged);
        const int row_first = consumer * 64;
        if (args.o_by_tma) fence_proxy_async();  // the staged rows, before the TMA unit reads them
        named_barrier_sync(kEpilogueBarrier<Traits> + consumer, 128);
        if (!args.o_by_tma) {
            store_o_rows<Traits>(smem.o_tile(), work.o, p.o_row_stride, row_first, min(row_first + 64, work.rows_here),
                                 threadIdx.x - 128 * warpgroup, 128);
        } else if (store_thread) {
#pragma unroll
            for (int a = 0; a < kAtoms; ++a)
                tma_store_4d(&args.o, smem.o_tile() + (a * kBlockM + row_first) * kAtomRowBytes, a * 64,
                             work.row_begin + row_first, work.head, tile.batch_coord);
            bulk_commit();
        }
        mark(t, kMarkStoreIssued);
    };

    if constexpr (kAhead) {  // the CTA's first tile's, in a turn of its own once its data landed
        barrier_wait(smem.q_full(0, q_part), Smem::q_parity(0));
        mark(0, kMarkQLanded);
        barrier_wait(smem.k_full(0), Smem::ring_parity(0));
        turns.begin();
        Tile::issue_qk(consumer, ahead_s, smem.q_tile(0), smem.k_tile(0));
        turns.end(false);
    }
    do {
        const Work &work = tile.work;
        if (!kAhead && work.skipped()) {
            work.template write_fully_masked<Traits::kChunksPerRow>(p, threadIdx.x - 128, 128 * Traits::kConsumers);
            continue;
        }
        const int n_blocks = tile.n_blocks;
        auto stage_of = [&](int i) { return (kv + i) % kStages; };
        auto parity_of = [&](int i) { return Smem::ring_parity(kv + i); };
        // V of key tile i has landed (for the first tile in a varlen call: and its tail is zeroed).
        auto wait_v = [&](int i) {
            if (i == 0 && tile.zero_tail)
                barrier_wait(v_tail_zeroed, 0);
            else
                barrier_wait(smem.v_full(stage_of(i)), parity_of(i));
        };
        if constexpr (kSplitShortTiles) {
            if (work.rows_here <= 64) {
                Tile wg(p, work, 0, warp, lane);
                split_tile(wg, n_blocks, stage_of, parity_of, wait_v);
                if (consumer == 0) send_o(wg, work);
                kv += n_blocks;
                ++t;
                continue;
            }
        }
        if (consumer * 64 >= work.rows_here) {
            pass_tile(n_blocks, stage_of, parity_of, wait_v);
            kv += n_blocks;
            ++t;
            if constexpr (kAhead) {
                turns.begin();  // the tile's last turn, with the next tile's first Q.K^T
                if (announced(t)) {
                    issue_next_in_turn(t, kv);
                    turns.end(false);
                    take_tile();
                    continue;
                }
                turns.end(true);
                break;
            }
            continue;
        }
        Tile wg(p, work, consumer, warp, lane);
        Scores own_s;
        Scores &acc_s = first_if<kAhead>(ahead_s, own_s);  // kAhead: S was issued ahead of the tile
        PFrag p_frag;
        if constexpr (!kAhead) {
            barrier_wait(smem.q_full(t, q_part), Smem::q_parity(t));
            mark(t, kMarkQLanded);
            // Key tile 0: its Q.K^T alone.
            barrier_wait(smem.k_full(stage_of(0)), parity_of(0));
            turns.begin();
            wg.issue_qk(acc_s, smem.q_tile(t), smem.k_tile(stage_of(0)));
            turns.end(false);
        }
        wgmma_wait<0>();
        hold(acc_s);
        mark(t, kMarkFirstS);
        arrive_warp(smem.k_empty(stage_of(0)));
        if (kPersistent && n_blocks == 1) arrive_warp(smem.q_empty(t, q_part));
        typename Tile::RowOffsets offsets = wg.update_max(acc_s, p, tile.key0(0));
        wg.to_p(acc_s, offsets, p_frag);
        for (int iter = 1; iter < n_blocks; ++iter) {
            barrier_wait(smem.k_full(stage_of(iter)), parity_of(iter));
            turns.begin();
            if (iter < kTimelineTurns) mark(t, kMarkTurn + iter);
            wg.issue_qk(acc_s, smem.q_tile(t), smem.k_tile(stage_of(iter)));
            wg.rescale_o(offsets);
            hold(wg.acc_o);
            wait_v(iter - 1);
            wg.issue_pv(p_frag, smem.v_tile(stage_of(iter - 1)));
            turns.end(false);
            wgmma_wait<1>();  // S; P.V of the previous tile may still run
            hold(acc_s);
            arrive_warp(smem.k_empty(stage_of(iter)));
            if (kPersistent && iter == n_blocks - 1) arrive_warp(smem.q_empty(t, q_part));
            offsets = wg.update_max(acc_s, p, tile.key0(iter));
            if constexpr (kExpUnderPV) wg.exponentiate_in_place(acc_s, offsets);
            wgmma_wait<0>();
            hold(wg.acc_o);
            hold(p_frag);
            arrive_warp(smem.v_empty(stage_of(iter - 1)));
            if constexpr (kExpUnderPV)
                wg.pack_p(acc_s, p_frag);
            else
                wg.to_p(acc_s, offsets, p_frag);
        }
        // The previous tile's TMA store has read the O rows this tile's finish rewrites; waited
        // for here, long after it was issued, and ahead of the turn that orders the finish.
        if (kOTile && args.o_by_tma && store_thread) bulk_wait_read();
        turns.begin();
        mark(t, kMarkLastTurn);
        wg.rescale_o(offsets);
        hold(wg.acc_o);
        wait_v(n_blocks - 1);
        wg.issue_pv(p_frag, smem.v_tile(stage_of(n_blocks - 1)));
        if constexpr (kAhead) {
            // The next tile's first Q.K^T now, this tile's finish under it; each branch its own
            // finish, so that every path into the next tile has issued.
            auto finish_here = [&] {
                hold(wg.acc_o);
                mark(t, kMarkLastPV);
                arrive_warp(smem.v_empty(stage_of(n_blocks - 1)));
                send_o(wg, work);
                kv += n_blocks;
                ++t;
            };
            if (announced(t + 1)) {
                issue_next_in_turn(t + 1, kv + n_blocks);
                turns.end(false);
                wgmma_wait<1>();  // this tile's last P.V; the next one's Q.K^T may still run
                finish_here();
                take_tile();
                continue;
            }
            turns.end(true);
            wgmma_wait<0>();
            finish_here();
            break;
        }
        turns.end(true);
        wgmma_wait<0>();
        hold(wg.acc_o);
        mark(t, kMarkLastPV);
        if (kPersistent) arrive_warp(smem.v_empty(stage_of(n_blocks - 1)));  // the next tile's ring
        // Epilogue: send_o, or at head dim 128 (persistent) straight from registers; a split
        // tail's piece only where it completes its tile.
        if constexpr (kOFromRegisters) {
            if (kSplitTail && tile.split() &&
                !merge_split_tail<Traits>(p, args.deal.tail, wg, tile, consumer, warp, lane)) {
                mark(t, kMarkStaged);  // its state handed over
                kv += n_blocks;
                ++t;
                continue;
            }
            wg.finish_to_global(p, work, lane / 4);
            mark(t, kMarkStaged);
            mark(t, kMarkStoreIssued);
            kv += n_blocks;
            ++t;
            continue;
        }
        send_o(wg, work);
        kv += n_blocks;
        ++t;
    } while (kAhead || consumer_next_tile());
    turns.close();
    // The CTA's shared memory must outlive the reads of its last stores.
    if (args.o_by_tma && store_thread) bulk_wait_read();
    if (t > 0) {
        mark(t - 1, kMarkExit);
        if (store_thread) timeline_value(t - 1, kMarkConsumer + consumer * kMarkConsumerStride + kMarkExitNs, timeline_ns());
    }
}

// Builds the tensor maps and launches; a call whose tensors no tensor map describes (a zero or
// odd stride, no driver entry point) runs the fallback tile's kernel of the same variant instead
// and reports that configuration, kFallbackId, in params->config_used.
template <typename Traits, Variant kVariant, int kFallbackId>
FlashAttnStatus launch_ws(FlashAttnFwdParams *params, cudaStream_t stream) {
    static KernelFacts facts;
    WsArgs args;
    args.params = *params;
    args.deal = WalkDeal{WalkOrder::kNone, kNoLightOrder, 0, 0, 0, false};
    const FlashAttnFwdParams &p = *params;
    // Packed varlen tensors: one batch of total rows (the batch strides are never used).
    const bool packed = Features<kVariant>::kVarlen && p.cu_seqlens_q != nullptr;
    const int batch = packed ? 1 : p.batch;
    const int rows_q = packed ? p.total_q : p.seqlen_q;
    const int rows_k = packed ? p.total_k : p.seqlen_k;
    const bool kv_mapped =
        encode_bshd_map(&args.k, p.dtype, p.k, batch, rows_k, p.heads_kv, Traits::kHeadDim, p.k_batch_stride,
                        p.k_row_stride, p.k_head_stride, Traits::kBlockN) &&
        encode_bshd_map(&args.v, p.dtype, p.v, batch, rows_k, p.heads_kv, Traits::kHeadDim, p.v_batch_stride,
                        p.v_row_stride, p.v_head_stride, Traits::kBlockN);
    // O's map: dense tensors only (see WsArgs::o_by_tma).
    args.o_by_tma = kv_mapped && !packed &&
                    encode_bshd_map(&args.o, p.dtype, p.o, batch, rows_q, p.heads_q, Traits::kHeadDim, p.o_batch_stride,
                                    p.o_row_stride, p.o_head_stride, 64);
    // Persistent (one CTA per SM walking the tiles) where the kernel has it and the launch has
    // more tiles than SMs, one dense batch in which every row sees a key; causal launches where
    // their fold is expected to pay (causal_fold_deal); with O from registers, only where O's
    // tensor map vouches for its 16-byte alignment and each tile sees few enough keys for the
    // walk to pay (WsTraits::kWalkMaxKeys).
    const dim3 grid = tile_grid(p, Traits::kBlockM);
    int sms = 0;  // the walk's CTAs
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
        const bool may_split = Traits::kOFromRegisters && args.o_by_tma && !windowed && !p.causal && p.workspace;
        const bool walk_pays = !Traits::kOFromRegisters || (args.o_by_tma && (within_key_limit || may_split));
        // A walk must never skip a tile, whose Q the producer announces: only calls in which every
        // row sees a key (and with keys at all). Causal: top-left, or no more queries than keys;
        // windowed: each row's diagonal key exists (no more queries than keys).
        const bool every_row_sees =
            windowed ? p.seqlen_q <= p.seqlen_k : !p.causal || p.causal_top_left || p.seqlen_q <= p.seqlen_k;
        const bool walks = every_row_sees && !packed && p.seqlen_k > 0 && walk_pays;
        const int sm_count = walks ? current_device_sm_count() : 0;
        if (sm_count > 0 && tiles > sm_count) {
            sms = sm_count;
            const bool split = may_split && split_tail_deal(p, Traits::kBlockM, Traits::kBlockN, grid, sms, &args.deal);
            // Windowed tiles see about the same keys: they keep the plain round robin (kNone).
            if (!split && !within_key_limit)
                sms = 0;
            else if (!split && !windowed && !p.causal)
                args.deal = short_tile_deal(p, Traits::kBlockM, grid, sms, Traits::kWalkSplitsShortTiles);
            if (!windowed && p.causal && !causal_fold_deal(p, Traits::kBlockM, Traits::kBlockN, grid, sms, &args.deal))
                sms = 0;
        }
    }
    const bool walk = sms > 0;
    // Q's map, whose box is one part of Q: the walk's and the one-tile-per-CTA kernel's differ.
    const bool mapped = kv_mapped && encode_bshd_map(&args.q, p.dtype, p.q, batch, rows_q, p.heads_q, Traits::kHeadDim,
                                                     p.q_batch_stride, p.q_row_stride, p.q_head_stride,
                                                     Traits::kBlockM / q_parts<Traits>(walk));
    if (!mapped) {
        // A dense call takes the fallback's general kernel, which every tile compiles (some
        // compile no dense one: tiles.rs, hopper_dense_on_general).
        constexpr Variant kFallbackVariant = kVariant == Variant::kDense ? Variant::kGeneral : kVariant;
        params->config_used = kFallbackId;
        return launch_fwd<typename Traits::Fallback, kFallbackVariant>(params, stream);
    }
    if constexpr (Traits::kWalks) {
        static KernelFacts persistent_facts;
        // Plainly: as a programmatic dependent it ran 3-4.5% slower (common/launch.cuh).
        if (walk) {
            params->schedule_used = walk_schedule(args.deal.kind);
            return launch_tiles(ws_kernel<Traits, kVariant, true>, dim3(sms), Traits::kThreads,
                                Traits::kPersistentSmemLaunchBytes, params, stream, persistent_facts, args,
                                LaunchOrder::kPlain);
        }
    }
    return launch_tiles(ws_kernel<Traits, kVariant, false>, grid, Traits::kThreads, Traits::kSmemLaunchBytes, params,
                        stream, facts, args);
}

}  // namespace flashattn::sm90
