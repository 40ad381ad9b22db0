// How Q, K and V reach shared memory in the one-tile-per-CTA Hopper kernel (fwd_kernel.cuh), and
// how O leaves it: two feeds behind one interface, so the kernel's key loop is written once.
//
//   TmaFeed: one thread issues each tile as TMA boxes and every thread waits on the tile's
//     mbarrier. Used wherever tensor maps describe the call's tensors, dense or packed varlen.
//   CpAsyncFeed: every thread copies its 16-byte chunks with cp.async and the CTA waits on its
//     copy groups. Strides no tensor map describes (a batch-broadcast K/V, a missing driver
//     entry point); also the warp-specialized tiles' fallback for those.
//
// The kernel walks key tiles j = 0, 1, ... (from the last key tile down) through a ring of
// kStages buffers, tile j in buffer j % kStages, and calls, in this order:
//   start()       Q and tile 0's K, then tile 0's V, then tiles 1 .. kStages - 2 (the TMA
//                 feed, packed varlen: waits for tile 0's V and zeroes its rows past the keys);
//   await_k(j)    tile j's K (and for j = 0 Q) has landed; for j >= 1 every thread is also done
//                 with the buffers refill() overwrites next (the CTA's threads meet here);
//   refill(j)     tile j into its buffer (nothing past the last tile), right after await_k;
//   await_v(j)    tile j's V has landed, before its P.V;
//   drain()       nothing is in flight (before O is staged in Q's buffer);
//   before_o_barrier()  this thread's staged O is ready for whoever stores it (before the CTA
//                 meets);
//   store_o()     O from Q's buffer to global memory (after the CTA met): every thread's 16-byte
//                 stores, or the TMA feed's one thread's TMA stores where the launcher asked.
// The cp.async feed waits for whole copy groups: its await_k(j) comes when tile j is the newest
// tile issued in both of the kernel's schedules and lands tile j's V with its K, so most of its
// await_v calls have nothing left to wait for.
#pragma once

#include <cuda_runtime.h>

#include "common/tile_work.cuh"
#include "sm80/primitives.cuh"
#include "sm90/qkv_tiles.cuh"
#include "sm90/tma.cuh"
#include "sm90/warpgroup_tile.cuh"
#include "sm90/wgmma.cuh"

namespace flashattn::sm90 {

using sm80::cp_async_16;
using sm80::cp_async_commit;
using sm80::cp_async_wait;

// The TMA kernel's argument: the call's params and the tensor maps (in parameter space, 64-byte
// aligned, for the TMA unit to read them).
struct FwdTmaArgs {
    FlashAttnFwdParams params;
    CUtensorMap q;  // boxes of kBlockM rows
    CUtensorMap k;  // boxes of kBlockN rows
    CUtensorMap v;
    CUtensorMap o;  // boxes of kBlockM rows; encoded only for the kernel that stores O by TMA
};

// Copies rows [0, kRows) of a tile from global memory into the swizzled atom layout, all threads
// of the CTA; rows >= valid_rows become zeros without being read. Each thread keeps one chunk
// column and steps kRowStep rows per pass; the swizzle repeats every 8 rows, so its swizzled
// offset is one number, or two when a pass steps only 4 rows (head dim 256 in one warpgroup: 32
// chunks per row, 128 threads): adding 4 to a row flips one bit of row % 8, and odd passes use
// the second offset. The thread's offsets are worked out once, where the copier is made, and a
// copy in the key loop only adds its tile's base: worked out per copy, they made the one-warpgroup
// tiles 2-3% slower at four CTAs an SM on the H200 (f16 B4 H16 S512, the 64-key tile: 2.3%;
// docs/benchmarks/2026-11-29-h200-pv-across-turn.md). Chunk columns are counted over whole atoms:
// at head dim 96 the threads of the second atom's last four columns (padding) copy nothing.
template <typename Traits, int kRows>
struct TileCopier {
    using Element = typename Traits::Element;
    static constexpr int kCPR = Traits::kAtoms * 8;
    static constexpr bool kPaddedRows = Traits::kChunksPerRow < kCPR;
    static constexpr int kRowStep = Traits::kThreads / kCPR;
    static constexpr int kPasses = kRows / kRowStep;
    static constexpr bool kAlternating = kRowStep % 8 == 4;
    static_assert(Traits::kThreads % kCPR == 0 && (kRowStep % 8 == 0 || kAlternating) && kRows % kRowStep == 0,
                  "each loader keeps its chunk column, and its swizzle every one or two passes");

    int row0;          // the thread's first row
    uint32_t s_even;   // its swizzled byte offset in the tile, even passes
    uint32_t s_odd;    // and odd ones
    int64_t g_offset;  // its first chunk's element offset from the tile's first row
    int64_t g_step;    // elements between passes

    __device__ __forceinline__ explicit TileCopier(int64_t row_stride)
        : row0(threadIdx.x / kCPR),
          s_even(sw128_offset(kRows, row0, threadIdx.x % kCPR)),
          s_odd(kAlternating ? sw128_offset(kRows, row0 + kRowStep, threadIdx.x % kCPR) - kRowStep * kAtomRowBytes
                             : s_even),
          g_offset(row0 * row_stride + threadIdx.x % kCPR * 8),
          g_step(kRowStep * row_stride) {}

    __device__ __forceinline__ void operator()(uint32_t tile, const Element *src, int valid_rows) const {
        if (kPaddedRows && static_cast<int>(threadIdx.x % kCPR) >= Traits::kChunksPerRow) return;
        auto dst = [&](int k) { return tile + (k % 2 ? s_odd : s_even) + k * kRowStep * kAtomRowBytes; };
        const Element *g = src + g_offset;
        if (valid_rows >= kRows) {
#pragma unroll
            for (int k = 0; k < kPasses; ++k) cp_async_16(dst(k), g + k * g_step);
        } else {
#pragma unroll
            for (int k = 0; k < kPasses; ++k) {
                const bool valid = row0 + k * kRowStep < valid_rows;
                // An invalid row still needs a legal address operand; row 0 of the tile always exists.
                cp_async_16(dst(k), valid ? g + k * g_step : src, valid);
            }
        }
    }
};

// Every thread copies; copy groups {Q, K 0}, {V 0}, then one per later tile (an empty one past
// the last), so a wait names how many of the newest groups may still be in flight. The short
// sequences are latency-bound and the first Q.K^T waits for nothing but its operands; the
// first V lands under it.
template <typename Traits, typename Work>
struct CpAsyncFeed {
    static constexpr int kStages = Traits::kStages;
    const QkvTiles<Traits> &smem;
    const Work &work;
    const int n_block_max, n_blocks;
    const TileCopier<Traits, Traits::kBlockN> copy_k, copy_v;
    const int64_t k_row_stride, v_row_stride;

    __device__ __forceinline__ CpAsyncFeed(const FlashAttnFwdParams &p, const QkvTiles<Traits> &smem_,
                                           const Work &work_, int3, int n_block_max_, int n_blocks_)
        : smem(smem_),
          work(work_),
          n_block_max(n_block_max_),
          n_blocks(n_blocks_),
          copy_k(p.k_row_stride),
          copy_v(p.v_row_stride),
          k_row_stride(p.k_row_stride),
          v_row_stride(p.v_row_stride) {}

    __device__ __forceinline__ void load_k(int j) const {
        const int key0 = (n_block_max - 1 - j) * Traits::kBlockN;
        copy_k(smem.k_tile(j % kStages), work.k + key0 * k_row_stride, work.len.k - key0);
    }
    __device__ __forceinline__ void load_v(int j) const {
        const int key0 = (n_block_max - 1 - j) * Traits::kBlockN;
        copy_v(smem.v_tile(j % kStages), work.v + key0 * v_row_stride, work.len.k - key0);
    }
    // Every copy this thread made so far has landed and, after the barrier, is visible to every
    // warpgroup's tensor-core reads; every warpgroup has also finished the MMAs it waited for
    // before arriving.
    __device__ __forceinline__ static void landed() {
        fence_proxy_async();
        __syncthreads();
    }

    __device__ __forceinline__ void start(const FlashAttnFwdParams &p) const {
        TileCopier<Traits, Traits::kBlockM>(p.q_row_stride)(smem.q_tile(), work.q, work.rows_here);
        load_k(0);
        cp_async_commit();
        load_v(0);
        cp_async_commit();
#pragma unroll
        for (int j = 1; j < kStages - 1; ++j) {
            if (j < n_blocks) {
                load_k(j);
                load_v(j);
            }
            cp_async_commit();
        }
    }
    __device__ __forceinline__ void await_k(int j) const {
        if (j == 0)
            cp_async_wait<kStages - 1>();  // tile 0's V and tiles 1 .. kStages - 2 may be in flight
        else
            cp_async_wait<0>();
        landed();
    }
    __device__ __forceinline__ void refill(int j) const {
        if (j < n_blocks) {
            load_k(j);
            load_v(j);
        }
        cp_async_commit();
    }
    // Tile 0's V is the one left: the two-buffer schedule waits for it after tile 1's group is
    // issued (the second newest), the overlapped one only without a tile 1 (whose await_k landed
    // it otherwise) and with an empty group after it.
    __device__ __forceinline__ void await_v(int j) const {
        if (j == 0 && (!Traits::kOverlapQK || n_blocks == 1)) {
            cp_async_wait<1>();
            landed();
        }
    }
    __device__ __forceinline__ static void drain() { cp_async_wait<0>(); }
    // O, staged in shared memory by every thread (the CTA met since), out to global memory.
    __device__ __forceinline__ static void before_o_barrier() {}
    __device__ __forceinline__ void store_o(const FlashAttnFwdParams &p, uint32_t o_tile) const {
        store_o_rows<Traits>(o_tile, work.o, p.o_row_stride, 0, work.rows_here, threadIdx.x, Traits::kThreads);
    }
};

// Thread 0 issues every tile, each buffer's K and V with a full barrier of its own, counted in
// bytes (Q shares tile 0's K barrier); every thread waits on the barrier's phase, one per lap of
// the ring. The barriers lie after the ring (FwdTraits::kTmaSmemLaunchBytes). A box reads whole
// tiles: rows past the tensor's end arrive as zeros. Packed varlen tensors are one batch of total
// rows, a tile's boxes starting at its sequence's first row; past the sequence's end a box reads
// the next sequence's rows, harmless in Q (those rows of S are never stored) and K (the mask
// overwrites their scores with -inf) but not in V, so the walk's first key tile (the sequence's
// last) has its V rows past the keys zeroed before any P.V reads them (zero_tile_rows).
// kOByTma: O leaves by TMA stores (args.o encoded) or by every thread's 16-byte stores; a compile-
// time choice, since the TMA store's code in a kernel that does not use it still cost 1-2% at one
// CTA an SM (docs/benchmarks/2026-11-30-h200-tma-varlen.md: it moved the key loop's schedule).
template <typename Traits, typename Work, bool kOByTma>
struct TmaFeed {
    static constexpr int kStages = Traits::kStages;
    static constexpr int kAtoms = Traits::kAtoms;
    const QkvTiles<Traits> &smem;
    const FwdTmaArgs &args;
    const Work &work;
    const int n_block_max, n_blocks;
    const int kv_head;
    const int batch;  // the tensor maps' batch coordinate: packed tensors are one batch
    // The walk's first key tile's first row in K and V (its sequence's first row added when
    // packed): one number kept across the key loop, not the sequence's offset beside it.
    const int kv_row0;

    __device__ __forceinline__ TmaFeed(const FwdTmaArgs &args_, const QkvTiles<Traits> &smem_, const Work &work_,
                                       int3 tile, int n_block_max_, int n_blocks_)
        : smem(smem_),
          args(args_),
          work(work_),
          n_block_max(n_block_max_),
          n_blocks(n_blocks_),
          kv_head(kv_head_of(args_.params, work_.head)),
          batch(packed() ? 0 : tile.z),
          kv_row0(work_.k_first + key0(0)) {}

    // Packed varlen tensors (read from parameter space where asked: nothing kept in registers;
    // compiled into the varlen-capable variants only). Features::packed spelled out: through its
    // reference argument ptxas allocates the dense kernels' registers differently.
    __device__ __forceinline__ bool packed() const {
        return Work::Features::kVarlen && args.params.cu_seqlens_q != nullptr;
    }

    __device__ __forceinline__ uint32_t k_full(int stage) const { return smem.ring_end() + 8 * stage; }
    __device__ __forceinline__ uint32_t v_full(int stage) const { return smem.ring_end() + 8 * (kStages + stage); }
    // The phase of tile j's buffer that tile j completes: one per lap of the ring.
    __device__ __forceinline__ static uint32_t lap_parity(int j) { return (j / kStages) & 1; }

    // A tile of kRows rows, one box per 64-column atom, counted by barrier `bar`.
    template <int kRows>
    __device__ __forceinline__ void load(uint32_t dst, const CUtensorMap *map, uint32_t bar, int row,
                                         int head) const {
#pragma unroll
        for (int a = 0; a < kAtoms; ++a) tma_load_4d(dst + a * kRows * kAtomRowBytes, map, bar, a * 64, row, head, batch);
    }
    __device__ __forceinline__ int key0(int j) const { return (n_block_max - 1 - j) * Traits::kBlockN; }
    // Tile j's first row in K and V. The dense variant computes it from j: the same number as
    // counting down from kv_row0, which would change its key loop's machine code.
    __device__ __forceinline__ int kv_row(int j) const {
        if constexpr (Work::Features::kVarlen) return kv_row0 - j * Traits::kBlockN;
        return key0(j);
    }
    __device__ __forceinline__ void load_k(int j) const {
        load<Traits::kBlockN>(smem.k_tile(j % kStages), &args.k, k_full(j % kStages), kv_row(j), kv_head);
    }
    __device__ __forceinline__ void load_v(int j) const {
        load<Traits::kBlockN>(smem.v_tile(j % kStages), &args.v, v_full(j % kStages), kv_row(j), kv_head);
    }
    __device__ __forceinline__ void issue_kv(int j) const {
        barrier_arrive_expect_tx(k_full(j % kStages), Traits::kTileBytes);
        load_k(j);
        barrier_arrive_expect_tx(v_full(j % kStages), Traits::kTileBytes);
        load_v(j);
    }

    __device__ __forceinline__ void start(const FlashAttnFwdParams &) const {
        if (threadIdx.x == 0) {
#pragma unroll
            for (int s = 0; s < kStages; ++s) {
                barrier_init(k_full(s), 1);
                barrier_init(v_full(s), 1);
            }
            fence_barrier_init();
            barrier_arrive_expect_tx(k_full(0), Traits::kQBytes + Traits::kTileBytes);
            load<Traits::kBlockM>(smem.q_tile(), &args.q, k_full(0), work.q_first + work.row_begin, work.head);
            load_k(0);
            barrier_arrive_expect_tx(v_full(0), Traits::kTileBytes);
            load_v(0);
#pragma unroll
            for (int j = 1; j < kStages - 1; ++j)
                if (j < n_blocks) issue_kv(j);
        }
        __syncthreads();  // the barriers are initialised before any thread waits on them
        // Packed: where the walk's first key tile reaches past the sequence's keys, its V rows
        // past them are zeroed here, before the key loop, so that the loop has no branch for
        // it (a branch there cost the dense calls of the general variants about 1%). Buffer 0
        // is refilled only after a later CTA barrier.
        if (packed() && key0(0) + Traits::kBlockN > work.len.k) {
            barrier_wait(v_full(0), 0);
            zero_tile_rows<Traits, Traits::kThreads>(smem.v_tile(0), work.len.k - key0(0), threadIdx.x);
            __syncthreads();
        }
    }
    __device__ __forceinline__ void await_k(int j) const {
        barrier_wait(k_full(j % kStages), lap_parity(j));
        if (j > 0) __syncthreads();
    }
    __device__ __forceinline__ void refill(int j) const {
        if (threadIdx.x == 0 && j < n_blocks) issue_kv(j);
    }
    __device__ __forceinline__ void await_v(int j) const { barrier_wait(v_full(j % kStages), lap_parity(j)); }
    __device__ __forceinline__ static void drain() {}
    // The staged O is read by the TMA unit (the async proxy): each thread's shared-memory writes
    // are made visible to it before the CTA meets.
    __device__ __forceinline__ static void before_o_barrier() {
        if constexpr (kOByTma) fence_proxy_async();
    }
    // Every thread's 16-byte stores, or by TMA: one thread stores the tile as kAtoms boxes (rows
    // past the tensor's end are clipped) and waits until they have read shared memory, which
    // must outlive the copy.
    __device__ __forceinline__ void store_o(const FlashAttnFwdParams &p, uint32_t o_tile) const {
        if constexpr (!kOByTma) {
            store_o_rows<Traits>(o_tile, work.o, p.o_row_stride, 0, work.rows_here, threadIdx.x, Traits::kThreads);
        } else if (threadIdx.x == 0) {
#pragma unroll
            for (int a = 0; a < kAtoms; ++a)
                tma_store_4d(&args.o, o_tile + a * Traits::kBlockM * kAtomRowBytes, a * 64, work.row_begin, work.head,
                             batch);
            bulk_commit();
            bulk_wait_read();
        }
    }
};

// TmaFeed with its O store fixed, in the two-parameter shape compute_tile takes.
template <bool kOByTma>
struct TmaFeedStoringO {
    template <typename Traits, typename Work>
    using Feed = TmaFeed<Traits, Work, kOByTma>;
};

}  // namespace flashattn::sm90
