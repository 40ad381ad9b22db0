// The consumer role of the warp-specialized kernel (ws_kernel.cuh): the ring of turns at the
// tensor cores (TurnRing), a consumer warpgroup's tiles (WsConsumer: the key loop, a passing
// consumer's, a split short tile's, the epilogue) and a split tail's merge (merge_split_tail).
#pragma once

#include <cuda_runtime.h>

#include "common/tile_work.cuh"
#include "common/timeline.cuh"
#include "common/walk_deal.cuh"
#include "sm80/primitives.cuh"
#include "sm90/tma.cuh"
#include "sm90/traits.cuh"
#include "sm90/warpgroup_tile.cuh"
#include "sm90/wgmma.cuh"
#include "sm90/ws_shared_memory.cuh"
#include "sm90/ws_tile.cuh"

namespace flashattn::sm90 {

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

// a where kFirst, else b (a reference chosen at compile time).
template <bool kFirst, typename T>
__device__ __forceinline__ T &first_if(T &a, T &b) {
    if constexpr (kFirst)
        return a;
    else
        return b;
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

// A consumer warpgroup's part of the CTA: its 64 rows of each tile (run), one tile after another.
// Each consumer warpgroup makes one on the CTA's first tile, which every thread works out; `tile`
// is the kernel's, which a walk's consumers then step to each tile the producer announces.
template <typename Traits, Variant kVariant, bool kPersistent>
struct WsConsumer {
    using F = Features<kVariant>;
    using Work = TileWork<typename Traits::Element, F>;
    using Tile = WarpgroupTile<Traits, F>;
    using Scores = typename Tile::Scores;
    using PFrag = typename Tile::PFrag;
    using Smem = WsSharedMemory<Traits, kPersistent>;
    static constexpr int kBlockM = Traits::kBlockM;
    static constexpr int kStages = Traits::kStages;
    static constexpr int kAtoms = Traits::kAtoms;
    static constexpr bool kOTile = Smem::kOTile;
    static constexpr int kQParts = Smem::kQParts;
    static constexpr bool kOFromRegisters = kPersistent && Traits::kOFromRegisters;
    // Where a short tile is split by keys (split_short_tile; the merge's slot is the O tile).
    static constexpr bool kSplitShortTiles = kPersistent && Traits::kWalkSplitsShortTiles;
    // Where the launcher may split a walk's tail across the CTAs (SplitTail, merge_split_tail):
    // the head-dim-128 walks, whose O leaves from registers.
    static constexpr bool kSplitTail = kOFromRegisters;
    // The two-consumer head-dim-64 walk issues each tile's first Q.K^T ahead of it (see ahead_s),
    // in the other of its two Q buffers.
    static constexpr bool kAhead = Smem::kQBuffers == 2;
    // (Two consumers' walks split no short tile: a state does not fit their O tile.)
    static_assert(!kAhead || (kOTile && !kSplitShortTiles));
    // Whether a consumer exponentiates key tile j while its own P.V of tile j - 1 still runs (into
    // S, P packed once that P.V completes) rather than after it. Measured against the latter
    // (docs/benchmarks/2026-11-27-h100-exp-under-pv.md): from head dim 128, where the tensor cores
    // take as long as the exponentials or longer, plain, causal and sink calls 2-4% faster; at
    // head dim 64, where the special-function unit is the tighter one and shared with the other
    // consumers' softmax, 3-4% slower with three consumers, but with two 1.2-1.5% faster on the
    // one seed shape the H200 table gives that tile, f16 B4 H8 S512 (the variant probe, twice:
    // docs/benchmarks/2026-11-28-h200-four-consumers.md); with softcap or ALiBi, whose per-score
    // work precedes the exponentials, 1.5-4.5% slower.
    static constexpr bool kExpUnderPV = (Traits::kHeadDim >= 128 || Traits::kConsumers == 2) && !F::kScoreMod;

    const WsArgs &args;
    const FlashAttnFwdParams &p;
    const Smem &smem;
    WsTile<Traits, F> &tile;
    // 1 + consumer, kept as the kernel's own value: O's 16-byte stores index threads from it, and
    // from consumer + 1 (or threadIdx.x % 128) the three-consumer walks spill (ws-stack-check.sh).
    const int warpgroup;
    const int consumer;
    const int q_part;  // the part of Q holding its rows
    const int warp;
    const int lane;
    const bool store_thread;  // issues the consumer's TMA stores of O
    TurnRing<Traits::kConsumers, kPersistent> turns;
    int kv = 0;  // key tiles this CTA has consumed
    int t = 0;   // tiles this CTA has started
    // The tile the producer announced last (announced).
    int3 announcement;
    int announced_piece = 0;  // kSplitTail: the piece's key tiles, first | end << 16
    int splits = 0;           // split tiles merged so far: each merge barrier completes once per split tile
    // kAhead: a tile's first Q.K^T goes out in the turn of the previous tile's last P.V (the
    // CTA's first tile's in a turn of its own, before the walk), and the previous tile's finish
    // runs under it instead of between the two tiles' tensor-core work; each tile then takes one
    // turn fewer, the last one shared. Every path issues it, a passing tile too (its S unused,
    // retired before the tile's own work), and each branch ends its own turn: a Q.K^T issued on
    // some paths only, or retired on some only, made ptxas serialize every wgmma of the kernel
    // (ptxas warning C7515). The launcher walks only calls with keys, so no walked tile
    // is skipped.
    Scores ahead_s;  // S of a tile's first key tile, issued before the tile

    __device__ __forceinline__ WsConsumer(const WsArgs &kernel_args, const Smem &shared, WsTile<Traits, F> &first_tile,
                                          int warpgroup_index)
        : args(kernel_args),
          p(kernel_args.params),
          smem(shared),
          tile(first_tile),
          warpgroup(warpgroup_index),
          consumer(warpgroup_index - 1),
          q_part(kQParts == 1 ? 0 : warpgroup_index - 1),
          warp((threadIdx.x / 32) % 4),
          lane(threadIdx.x % 32),
          store_thread(threadIdx.x % 128 == 0),
          turns(warpgroup_index - 1) {}

    // One arrival per consumer warp, once its lanes are done with what the barrier guards.
    __device__ __forceinline__ void arrive_warp(uint32_t barrier) const {
        __syncwarp();
        if (lane == 0) barrier_arrive(barrier);
    }
    // The timeline probe's marks of this consumer (common/timeline.cuh); nothing in the library.
    __device__ __forceinline__ void mark(int tile_index, int offset) const {
        if (store_thread) timeline_mark(tile_index, kMarkConsumer + consumer * kMarkConsumerStride + offset);
    }

    // The current tile's key tile i: its ring buffer, that use's barrier parity, and V landed
    // (for the first key tile in a varlen call: and its tail zeroed).
    __device__ __forceinline__ int stage_of(int i) const { return (kv + i) % kStages; }
    __device__ __forceinline__ uint32_t parity_of(int i) const { return Smem::ring_parity(kv + i); }
    __device__ __forceinline__ void wait_v(int i) const {
        if (i == 0 && tile.zero_tail)
            barrier_wait(smem.v_tail_zeroed(), 0);
        else
            barrier_wait(smem.v_full(stage_of(i)), parity_of(i));
    }

    // Whether the producer announced tile tt (its Q landed) rather than the walk's end. Each
    // warp's lane 0 reads the slot and shares it by shuffles: the producer rewrites the slot once
    // the warps have released a Q buffer, which lane 0 alone does (arrive_warp), so only its reads
    // are ordered before that (racecheck reported the other lanes' reads against the rewrite).
    __device__ __forceinline__ bool announced(int tt) {
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
    }
    // The tile just announced (a walk's: never packed varlen tensors).
    __device__ __forceinline__ void take_tile() {
        if constexpr (kSplitTail)
            tile = WsTile<Traits, F>(p, announcement, false, make_int2(announced_piece & 0xffff, announced_piece >> 16));
        else
            tile = WsTile<Traits, F>(p, announcement, false);
    }
    // The step to the CTA's next tile, t; false after its last.
    __device__ __forceinline__ bool next_tile() {
        if (!kPersistent || !announced(t)) return false;
        take_tile();
        return true;
    }
    // The tile's key tiles consumed: the next tile's are the ring's next.
    __device__ __forceinline__ void tile_done(int n_blocks) {
        kv += n_blocks;
        ++t;
    }

    // Tile tt's first Q.K^T, its first key tile the ring's kk-th, within a turn taken by the caller.
    __device__ __forceinline__ void issue_next_in_turn(int tt, int kk) {
        barrier_wait(smem.q_full(tt, q_part), Smem::q_parity(tt));
        mark(tt, kMarkQLanded);
        barrier_wait(smem.k_full(kk % kStages), Smem::ring_parity(kk));
        Tile::issue_qk(consumer, ahead_s, smem.q_tile(tt), smem.k_tile(kk % kStages));
    }

    // A consumer whose 64 rows all lie past the sequence's end (in the last query tile of a
    // length that is not a multiple of kBlockM: the 192-row tile's third consumer at 512 rows, its
    // second and third at 1024) has nothing to compute: it leaves the tensor cores to the others
    // (call BN: that tile then costs about what a full 128-row tile does, 15% less than computing
    // the empty rows).
    // It still takes every turn the computing path takes, in the same order, so the ring goes
    // round as usual, and releases each buffer the computing path releases, only after the data
    // it guards has landed: a release before the buffer's fill would count toward its previous
    // phase and free it under the other consumers' reads. A loop of its own rather than branches
    // around the computing loop's wgmmas: a wgmma skipped by a branch inside the pipeline makes
    // ptxas serialize every wgmma of the kernel (ptxas warning C7515).
    // (kAhead: the tile's last turn, with the next tile's first Q.K^T, is the walk's: run.)
    __device__ __forceinline__ void pass_tile() {
        const int n_blocks = tile.n_blocks;
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
        tile_done(n_blocks);
    }

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
    __device__ __forceinline__ void split_short_tile() {
        const Work &work = tile.work;
        const int n_blocks = tile.n_blocks;
        Tile wg(p, work, 0, warp, lane);
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
                wg.hold_o();
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
        if (consumer == 0) send_o(wg, work);
        tile_done(n_blocks);
    }

    // Epilogue of a tile whose O leaves through shared memory: each consumer stages its own 64
    // rows of O (in its own rows of the Q tile, which only its Q.K^T read; persistent: in the O
    // tile) and sends them out, by one TMA store issued from its first thread or by all its
    // threads in 16-byte chunks; the other consumers may still be computing. A persistent CTA's
    // previous copy out of the same rows is behind this tile's turns, each a bar.sync of all its
    // threads (and the store thread waited for its TMA store to read them before its last turn).
    __device__ __forceinline__ void send_o(Tile &wg, const Work &work) {
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
    }

    // Every tile of the CTA, one after another (a walk's: as the producer announces them). The
    // key loop stays in this function: split into functions returning whether a kAhead walk goes
    // on, ptxas serialized the two-consumer walks' wgmmas (C7515).
    __device__ __forceinline__ void run() {
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
            const int n_blocks = tile.n_blocks;
            if (!kAhead && work.skipped()) {
                work.template write_fully_masked<Traits::kChunksPerRow>(p, threadIdx.x - 128, 128 * Traits::kConsumers);
                continue;
            }
            if (kSplitShortTiles && work.rows_here <= 64) {
                split_short_tile();
                continue;
            }
            if (consumer * 64 >= work.rows_here) {
                pass_tile();
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
            // A tile with rows of this consumer: per key tile, in its turn, Q.K^T of that tile and
            // P.V of the one before (O rescaled just before it), then that tile's softmax under the
            // others' GEMMs; the last P.V in a turn of its own, then O out (epilogue).
            //
            // Persistent: a consumer's part of Q is the next tile's once the tile's last Q.K^T has
            // read it, and the consumer releases it right then, inside the key loop. (Before their
            // tiles were announced the head-dim-128 walks ran 0.3-1.1% faster releasing Q after the
            // loop, a softmax later: docs/benchmarks/2026-11-28-h200-walk-loop.md. Announced, and
            // with Q in parts, they run 0.8-1.9% faster releasing it inside at 1,024-2,048 keys on
            // the 80-key tile, even at 4,096: 2026-11-29-h200-walk-boundaries.md.)
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
                wg.hold_o();
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
                wg.hold_o();
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
            wg.hold_o();
            wait_v(n_blocks - 1);
            wg.issue_pv(p_frag, smem.v_tile(stage_of(n_blocks - 1)));
            if constexpr (kAhead) {
                // The next tile's first Q.K^T now, this tile's finish under it; each branch its own
                // finish, so that every path into the next tile has issued.
                auto finish_here = [&] {
                    wg.hold_o();
                    mark(t, kMarkLastPV);
                    arrive_warp(smem.v_empty(stage_of(n_blocks - 1)));
                    send_o(wg, work);
                    tile_done(n_blocks);
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
            wg.hold_o();
            mark(t, kMarkLastPV);
            if (kPersistent) arrive_warp(smem.v_empty(stage_of(n_blocks - 1)));  // the next tile's ring
            epilogue(wg, work);
            tile_done(n_blocks);
        } while (kAhead || next_tile());
        turns.close();
        // The CTA's shared memory must outlive the reads of its last stores.
        if (args.o_by_tma && store_thread) bulk_wait_read();
        if (t > 0) {
            mark(t - 1, kMarkExit);
            if (store_thread) timeline_value(t - 1, kMarkConsumer + consumer * kMarkConsumerStride + kMarkExitNs, timeline_ns());
        }
    }

    // O of a tile whose last P.V is done: send_o, or at head dim 128 (persistent) straight from
    // registers; a split tail's piece only where it completes its tile.
    __device__ __forceinline__ void epilogue(Tile &wg, const Work &work) {
        if constexpr (kOFromRegisters) {
            if (kSplitTail && tile.split() && !merge_split_tail<Traits>(p, args.deal.tail, wg, tile, consumer, warp, lane)) {
                mark(t, kMarkStaged);  // its state handed over
                return;
            }
            wg.finish_to_global(p, work, lane / 4);
            mark(t, kMarkStaged);
            mark(t, kMarkStoreIssued);
        } else {
            send_o(wg, work);
        }
    }
};

}  // namespace flashattn::sm90
