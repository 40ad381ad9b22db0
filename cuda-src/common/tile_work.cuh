// What both forward kernels agree on, outside their math: which (query tile, head, batch) a CTA
// computes, where its rows of Q, K, V, O and LSE live, which keys it can see (common/mask.cuh),
// and the grid of one CTA per tile (launched by common/launch.cuh). The kernels differ only in
// how they compute a tile. A persistent walk's order of the tiles is dealt on the host
// (common/walk_deal.cuh) and followed in the kernel (common/tile_scheduler.cuh).
#pragma once

#include <cuda_runtime.h>
#include <math_constants.h>
#include <stdint.h>

#include <type_traits>

#include "common/features.cuh"
#include "common/launch.cuh"
#include "common/mask.cuh"
#include "flashattn.h"

namespace flashattn {

// Where one sequence lives and how long it is: the launch's sizes and batch strides when
// dense; with cu_seqlens (varlen), its packed rows, clamped into the tensors so that bad prefix
// sums can never address memory outside them (see flashattn.h).
struct Sequence {
    SeqLens len;          // this sequence's query and key counts
    int64_t q_row0;       // element offset of its first query row (Q and O, before the head)
    int64_t o_row0;
    int64_t k_row0;       // element offset of its first key row (K, V, before the head)
    int64_t v_row0;
    int64_t lse_row0;     // its first LSE element, before the head
    int64_t lse_head;     // LSE elements between heads
    int q_first, k_first;  // varlen: its first packed row of Q (and O) and of K (and V); dense: 0

    // kVarlen: whether the kernel honours cu_seqlens (common/features.cuh).
    template <bool kVarlen>
    __device__ __forceinline__ Sequence(const FlashAttnFwdParams &p, int batch, std::bool_constant<kVarlen>) {
        if (!kVarlen || !p.cu_seqlens_q) {
            len = {p.seqlen_q, p.seqlen_k};
            q_row0 = batch * p.q_batch_stride;
            o_row0 = batch * p.o_batch_stride;
            k_row0 = batch * p.k_batch_stride;
            v_row0 = batch * p.v_batch_stride;
            lse_head = p.seqlen_q;
            lse_row0 = static_cast<int64_t>(batch) * p.heads_q * p.seqlen_q;
            q_first = k_first = 0;
            return;
        }
        auto rows = [batch](const int32_t *cu, int total, int &first) {
            first = min(max(cu[batch], 0), total);
            return min(max(cu[batch + 1], first), total) - first;
        };
        len.q = rows(p.cu_seqlens_q, p.total_q, q_first);
        len.k = rows(p.cu_seqlens_k, p.total_k, k_first);
        if (p.seqused_k) len.k = min(max(p.seqused_k[batch], 0), len.k);
        q_row0 = q_first * p.q_row_stride;
        o_row0 = q_first * p.o_row_stride;
        k_row0 = k_first * p.k_row_stride;
        v_row0 = k_first * p.v_row_stride;
        lse_head = p.total_q;
        lse_row0 = q_first;
    }
};

// The L2 a causal section's K and V may fill: a share of the H100's 50 MB (and of the A100's
// 40 MB) that leaves room for Q, O and the other section in flight at a section boundary.
constexpr long long kL2BytesForKV = 32ll << 20;

// K and V of one KV head, 16-bit elements.
inline long long kv_head_bytes(const FlashAttnFwdParams &p) { return 4ll * p.seqlen_k * p.head_dim; }

// (head, batch) pairs per causal section (TileWork::tile_coords): K and V of one KV head
// (varlen: of the longest sequence) against the budget, times the query heads sharing it. On
// the host, once per launch (flashattn_fwd sets FlashAttnFwdParams::causal_section): in every
// CTA's prologue even a few dozen integer instructions slowed the one-wave seed launches by up
// to 4%.
inline int causal_section(const FlashAttnFwdParams &p) {
    const long long fit = kL2BytesForKV / kv_head_bytes(p);
    const long long kv_heads = fit > 1 ? fit : 1;
    const long long pairs = static_cast<long long>(p.heads_q) * p.batch;
    const long long section = kv_heads * (p.heads_q / p.heads_kv);
    return static_cast<int>(section < pairs ? section : pairs);
}

// The K/V head query head `head` reads (GQA, MQA: heads_q / heads_kv query heads share one).
__device__ __forceinline__ int kv_head_of(const FlashAttnFwdParams &p, int head) {
    return head / (p.heads_q / p.heads_kv);
}

template <typename Element, typename FeatureSet>
struct TileWork {
    using Features = FeatureSet;  // the variant's (common/features.cuh)
    SeqLens len;    // this tile's sequence: the mask and the key loop read these, never p.seqlen_*
    int row_begin;  // first query row of the tile, within its sequence
    int rows_here;  // query rows of the tile that exist (the last tile may be short; <= 0: the
                    // tile lies past its sequence's end, varlen only)
    int head;       // query head
    // The sequence's first packed row of Q (and O) and of K (and V) when varlen, else 0: where
    // the warp-specialized kernel's tensor maps over the packed rows find it.
    int q_first, k_first;
    KeyRange keys;  // the keys some row of the tile sees
    const Element *q;  // row row_begin of this head
    const Element *k;  // row 0 of this (GQA) KV head
    const Element *v;
    Element *o;   // row row_begin of this head
    float *lse;   // row row_begin of this head, or null

    // The grid is (query tiles, heads, batch). Causal tiles near the bottom do the most work,
    // and CTAs are dispatched in linear block order (x fastest): with the query tile on x,
    // every SM's first and second CTA would be the same tile index of different heads, some
    // SMs getting two of the longest tiles and others two of the shortest, and a single-wave
    // grid runs as long as the worst SM. Causal launches are therefore renumbered so the linear
    // order walks (batch, head) pairs of the longest tile first, then the next longest: each
    // dispatch round hands out tiles of equal length and later rounds fill in behind.
    //
    // Walking every pair of a tile index before the next would make the CTAs that run at one
    // time all different heads, each streaming its own K/V: with more pairs than SMs nothing
    // is read twice while it sits in L2, and a causal launch of many short sequences became
    // bound by memory (on the H100, B16 H16 S2048 D128 causal at 0.69x cuDNN where non-causal
    // B8 H16 S2048 ran at 0.94x). So the pairs are walked in sections whose K and V fit in L2
    // together (causal_section), longest tile first within each section: a round's CTAs share a
    // few heads' K/V, and the last section's short tiles still end the launch.
    __device__ __forceinline__ TileWork(const FlashAttnFwdParams &p, int block_m)
        : TileWork(p, block_m, tile_coords(p)) {}
    __device__ __forceinline__ TileWork(const FlashAttnFwdParams &p, int block_m, int3 tile)
        : TileWork(p, block_m, tile, Sequence(p, tile.z, std::bool_constant<Features::kVarlen>{})) {}

    // (query tile, head, batch) of this CTA in a launch of one CTA per tile (a grid of query
    // tiles x heads x batch).
    __device__ __forceinline__ static int3 tile_coords(const FlashAttnFwdParams &p) {
        if (!p.causal) return make_int3(blockIdx.x, blockIdx.y, blockIdx.z);
        const long long linear =
            blockIdx.x + static_cast<long long>(gridDim.x) * (blockIdx.y + gridDim.y * blockIdx.z);
        return tile_coords(p, linear, gridDim);
    }

    // (query tile, head, batch) of the tile with index `linear` in the launch's order, among
    // `tiles` = (query tiles, heads, batch): the query tile fastest, then the head, then the
    // batch; causal launches in L2 sections, longest tile first (above).
    __device__ __forceinline__ static int3 tile_coords(const FlashAttnFwdParams &p, long long linear, dim3 tiles) {
        // Both launch layers bound heads x batch to INT32_MAX, so this product cannot wrap.
        const int pairs = tiles.y * tiles.z;  // (head, batch), head fastest
        int m_block, head_batch;
        if (!p.causal) {
            m_block = static_cast<int>(linear % tiles.x);
            head_batch = static_cast<int>(linear / tiles.x);
        } else {
            // A launch that did not come through flashattn_fwd (section 0) takes one section.
            // TileSchedule::coords' fold (common/tile_scheduler.cuh) takes these sections in its own expression.
            const int section_pairs = p.causal_section > 0 ? p.causal_section : pairs;
            if (section_pairs >= pairs) {
                // Every pair's K/V fits: one section, each tile index over all pairs in turn.
                head_batch = static_cast<int>(linear % pairs);
                m_block = tiles.x - 1 - static_cast<int>(linear / pairs);
            } else {
                // Every section before this tile's is full; only the last may be short.
                const int section = section_pairs;
                const long long per_section = static_cast<long long>(section) * tiles.x;
                const int s = static_cast<int>(linear / per_section);
                const int first_pair = s * section;
                const int pairs_here = min(section, pairs - first_pair);
                const int r = static_cast<int>(linear - s * per_section);
                m_block = tiles.x - 1 - r / pairs_here;
                head_batch = first_pair + r % pairs_here;
            }
        }
        return make_int3(m_block, head_batch % tiles.y, head_batch / tiles.y);
    }

    __device__ __forceinline__ TileWork(const FlashAttnFwdParams &p, int block_m, int3 tile, const Sequence &seq)
        : len(seq.len),
          row_begin(tile.x * block_m),
          rows_here(min(block_m, seq.len.q - tile.x * block_m)),
          head(tile.y),
          q_first(seq.q_first),
          k_first(seq.k_first),
          keys(p, seq.len, tile.x * block_m, min(block_m, seq.len.q - tile.x * block_m),
               std::bool_constant<Features::kWindow>{}) {
        const int kv_head = kv_head_of(p, head);
        q = static_cast<const Element *>(p.q) + seq.q_row0 + head * p.q_head_stride + row_begin * p.q_row_stride;
        k = static_cast<const Element *>(p.k) + seq.k_row0 + kv_head * p.k_head_stride;
        v = static_cast<const Element *>(p.v) + seq.v_row0 + kv_head * p.v_head_stride;
        o = static_cast<Element *>(p.o) + seq.o_row0 + head * p.o_head_stride + row_begin * p.o_row_stride;
        lse = p.lse ? p.lse + seq.lse_row0 + head * seq.lse_head + row_begin : nullptr;
    }

    // Whether this call has attention sinks, and this head's (-inf, which changes nothing,
    // without). Read in the epilogue only, so nothing stays live across the key loop.
    __device__ __forceinline__ bool has_sink(const FlashAttnFwdParams &p) const {
        return Features::kSinks && p.sinks != nullptr;
    }
    __device__ __forceinline__ float sink(const FlashAttnFwdParams &p) const {
        return has_sink(p) ? p.sinks[head] : -CUDART_INF_F;
    }

    // Whether the tile has no work: every row sees no key (then O = 0 and LSE = -inf, or the
    // head's sink logit, with no K/V traffic: write_fully_masked), or it is a varlen tile past
    // its sequence's end, which writes nothing.
    __device__ __forceinline__ bool skipped() const { return rows_here <= 0 || keys.empty(); }

    // The output of a tile that is skipped(), from `threads` threads numbered from `thread`.
    // kChunksPerRow: 16-byte chunks per O row.
    template <int kChunksPerRow>
    __device__ __forceinline__ void write_fully_masked(const FlashAttnFwdParams &p, int thread, int threads) const {
        if (rows_here <= 0) return;
        for (int i = thread; i < rows_here * kChunksPerRow; i += threads) {
            const int row = i / kChunksPerRow, chunk = i % kChunksPerRow;
            *reinterpret_cast<uint4 *>(o + row * p.o_row_stride + chunk * 8) = make_uint4(0, 0, 0, 0);
        }
        if (lse) {
            const float value = sink(p);
            for (int row = thread; row < rows_here; row += threads) lse[row] = value;
        }
    }

    // A skipped() tile's output from the CTA's kThreads threads; returns whether it was one
    // (then the CTA is done).
    template <int kChunksPerRow, int kThreads>
    __device__ __forceinline__ bool finish_if_fully_masked(const FlashAttnFwdParams &p) const {
        if (!skipped()) return false;
        write_fully_masked<kChunksPerRow>(p, threadIdx.x, kThreads);
        return true;
    }
};

// A launch's tiles, (query tiles, heads, batch): the grid of one CTA per tile.
__host__ __device__ __forceinline__ dim3 tile_grid(const FlashAttnFwdParams &p, int block_m) {
    return dim3((p.seqlen_q + block_m - 1) / block_m, p.heads_q, p.batch);
}

// One CTA per tile.
template <typename Kernel, typename Args>
FlashAttnStatus launch_tiles(Kernel kernel, int block_m, int threads, int smem_bytes, FlashAttnFwdParams *params,
                             cudaStream_t stream, KernelFacts &facts, const Args &args) {
    return launch_tiles(kernel, tile_grid(*params, block_m), threads, smem_bytes, params, stream, facts, args);
}

}  // namespace flashattn
