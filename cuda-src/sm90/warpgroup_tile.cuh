// One warpgroup's share of a Hopper forward tile: 64 query rows, their O accumulator and online
// softmax state, and the steps of one key tile (S = Q K^T, mask and rescale, P, O += P V) plus
// the finish into shared memory (or, in the persistent walk at head dim 128, straight to global
// memory). Both sm_90a kernels run these steps; they differ only in how
// Q, K and V reach shared memory (in fwd_kernel.cuh TMA boxes from one of its threads or cp.async
// from all, fwd_feeds.cuh; TMA from a producer warpgroup in ws_producer.cuh) and in how they order
// the steps around those arrivals.
//
// Traits supply Element, kHeadDim, kBlockM (rows of the CTA's Q tile), kBlockN, kAtoms,
// kQKSteps and kPVSteps; tiles are in the 128-byte swizzle layout of wgmma.cuh.
#pragma once

#include <cuda_runtime.h>
#include <math_constants.h>

#include <type_traits>

#include "common/mask.cuh"
#include "common/softmax.cuh"
#include "sm80/primitives.cuh"
#include "sm90/wgmma.cuh"

namespace flashattn::sm90 {

template <typename Traits, typename F>
struct WarpgroupTile {
    using Element = typename Traits::Element;
    using Pack = sm80::Mma<Element>;
    using Mod = ScoreMod<Element, F::kScoreMod>;
    static constexpr int kBlockM = Traits::kBlockM;
    static constexpr int kBlockN = Traits::kBlockN;
    static constexpr int kAtoms = Traits::kAtoms;
    static constexpr int kNTiles = kBlockN / 8;  // n8 column tiles of S
    // O is acc_o[atom][n8 tile], the first kOTiles of its n8 tiles holding columns: head dim 96
    // leaves the second atom's last four out, and every loop over O skips them (constant after
    // unrolling, so ptxas allocates no registers for them).
    static constexpr int kOTiles = Traits::kHeadDim / 8;
    static __device__ __forceinline__ constexpr bool holds(int a, int nt) { return a * 8 + nt < kOTiles; }
    // f(a, nt) for each n8 tile of O that holds columns, in register order.
    template <typename Visit>
    static __device__ __forceinline__ void for_each_o_tile(Visit &&f) {
#pragma unroll
        for (int a = 0; a < kAtoms; ++a)
#pragma unroll
            for (int nt = 0; nt < 8; ++nt)
                if (holds(a, nt)) f(a, nt);
    }
    // Columns of O per P.V wgmma: up to head dim 128 one wgmma covers every column (N = head
    // dim); wider heads take 128 columns at a time.
    static constexpr int kPVCols = Traits::kHeadDim < 128 ? Traits::kHeadDim : 128;

    using Scores = float[kNTiles][4];
    using PFrag = uint32_t[Traits::kPVSteps][4];

    // hold (wgmma.cuh) for O's registers that hold columns.
    __device__ __forceinline__ void hold_o() {
        for_each_o_tile([&](int a, int nt) { hold(acc_o[a][nt]); });
    }

    // Where a row's exponentials are taken from, decided once per key tile.
    struct RowOffsets {
        float m_use[2];
        float alpha[2];  // old max over new, as a factor: what O and the row sums are rescaled by
        bool fused_exp;
    };

    const int warpgroup;  // which 64 rows of the CTA's Q tile
    const int warp_row0;  // first of this warp's 16 rows within the Q tile
    const int t;          // lane % 4: this lane's column pair in each n8 tile
    const RowMask<8> mask;
    const Mod mod;
    // scale * log2(e) on raw scores, or softcap * log2(e) on tanh-capped ones.
    const float scale_log2;
    float acc_o[kAtoms][8][4];
    // This thread's rows are g and g + 8 of its warp's slice; sums are partial (its columns)
    // until the finish.
    float row_max[2];
    float row_sum[2];

    template <typename Work>
    __device__ __forceinline__ WarpgroupTile(const FlashAttnFwdParams &p, const Work &work, int warpgroup_, int warp,
                                             int lane)
        : warpgroup(warpgroup_),
          warp_row0(warpgroup_ * 64 + warp * 16),
          t(lane % 4),
          mask(p, work.keys, warp_row0 + lane / 4),
          mod(p, work.len, work.head, work.row_begin + warp_row0 + lane / 4),
          scale_log2(mod.exp_factor(p)) {
        for_each_o_tile([&](int a, int nt) {
#pragma unroll
            for (int i = 0; i < 4; ++i) acc_o[a][nt][i] = 0.f;
        });
        row_max[0] = row_max[1] = -CUDART_INF_F;
        row_sum[0] = row_sum[1] = 0.f;
    }

    // S = Q K^T for the key tile at shared address k_tile: [64, kBlockN] for this warpgroup,
    // both operands K-major; a k16 step is 32 bytes along the swizzled row, or the next atom.
    __device__ __forceinline__ void issue_qk(Scores &acc_s, uint32_t q_tile, uint32_t k_tile) const {
        issue_qk(warpgroup, acc_s, q_tile, k_tile);
    }
    // The same for the rows of warpgroup `rows_of`, with no tile at hand (the ws kernel's walk
    // issues a tile's first Q.K^T ahead of it).
    static __device__ __forceinline__ void issue_qk(int rows_of, Scores &acc_s, uint32_t q_tile, uint32_t k_tile) {
        const Sw128Desc q_desc(q_tile + rows_of * 64 * kAtomRowBytes, 16, kSwizzleBytes);
        const Sw128Desc k_desc(k_tile, 16, kSwizzleBytes);
        wgmma_fence();
#pragma unroll
        for (int ks = 0; ks < Traits::kQKSteps; ++ks) {
            const uint32_t q_step = (ks / 4) * kBlockM * kAtomRowBytes + (ks % 4) * 32;
            const uint32_t k_step = (ks / 4) * kBlockN * kAtomRowBytes + (ks % 4) * 32;
            Wgmma<Element>::ss(acc_s, q_desc.at(q_step), k_desc.at(k_step), ks > 0);
        }
        wgmma_commit();
    }

    // The online softmax of the key tile starting at key0, exactly the portable kernel's
    // arithmetic (see its comments on the fused exponent and the skipped rescale), in parts.
    // update_max: score modifiers and mask, the new row max, and the row sums rescaled to it;
    // rescale_o: O rescaled to it (O must not be in flight); rescale: both. to_p: the
    // exponentials, their row sums and P packed as the A operand of P.V. A kernel may issue the
    // next Q.K^T between rescale and to_p: ptxas serializes wgmmas (warning C7515) when a
    // non-wgmma instruction writes an accumulator of a wgmma in the same pipeline stage, and
    // the rescale writes P.V's accumulator.
    __device__ __forceinline__ RowOffsets update_max(Scores &acc_s, const FlashAttnFwdParams &p, int key0) {
        apply_score_mask<F::kWindow>(acc_s, p, mask, mod, 0, key0, t, kBlockN);
        RowOffsets offsets;
        bool offsets_small = true;
#pragma unroll
        for (int r = 0; r < 2; ++r) {
            float thread_max = row_max[r];
#pragma unroll
            for (int nt = 0; nt < kNTiles; ++nt)
                thread_max = fmaxf(thread_max, fmaxf(acc_s[nt][2 * r], acc_s[nt][2 * r + 1]));
            const RowStep step = advance_row_max(row_max[r], thread_max, scale_log2);
            offsets.m_use[r] = step.offset;
            offsets.alpha[r] = step.alpha;
            offsets_small = offsets_small && fabsf(offsets.m_use[r]) < kFusedExpLimit;
        }
#pragma unroll
        for (int r = 0; r < 2; ++r) row_sum[r] *= offsets.alpha[r];
        offsets.fused_exp = __all_sync(0xffffffff, offsets_small) != 0;
        return offsets;
    }
    __device__ __forceinline__ void rescale_o(const RowOffsets &offsets) {
#pragma unroll
        for (int r = 0; r < 2; ++r) {
            if (__any_sync(0xffffffff, offsets.alpha[r] != 1.f)) {
                for_each_o_tile([&](int a, int nt) {
                    acc_o[a][nt][2 * r] *= offsets.alpha[r];
                    acc_o[a][nt][2 * r + 1] *= offsets.alpha[r];
                });
            }
        }
    }
    __device__ __forceinline__ RowOffsets rescale(Scores &acc_s, const FlashAttnFwdParams &p, int key0) {
        const RowOffsets offsets = update_max(acc_s, p, key0);
        rescale_o(offsets);
        return offsets;
    }

    // S is only read here, never rewritten in place: with the next Q.K^T in flight, a write to
    // any register that some wgmma uses as an accumulator inside its pipeline stage also
    // triggers C7515.
    __device__ __forceinline__ void to_p(const Scores &acc_s, const RowOffsets &offsets, PFrag &p_frag) {
        exponentiate(acc_s, offsets, [&](int nt, const float (&e)[4]) { pack_pair(p_frag, nt, e); });
    }

    // The ws kernel's split of to_p: the exponentials replace S in place while this
    // warpgroup's previous P.V still reads P (its registers cannot be rewritten yet), so the
    // special-function work runs under that P.V; pack_p packs them once it has completed. Only
    // for a caller with no Q.K^T in flight (S is then no wgmma's accumulator).
    __device__ __forceinline__ void exponentiate_in_place(Scores &acc_s, const RowOffsets &offsets) {
        exponentiate(acc_s, offsets, [&](int nt, const float (&e)[4]) {
#pragma unroll
            for (int i = 0; i < 4; ++i) acc_s[nt][i] = e[i];
        });
    }
    __device__ __forceinline__ void pack_p(const Scores &acc_s, PFrag &p_frag) const {
#pragma unroll
        for (int nt = 0; nt < kNTiles; ++nt) pack_pair(p_frag, nt, acc_s[nt]);
    }

    // exp2 of each score against its row's offset, the row sums, and each n8 tile's four values
    // handed to `emit`, which may overwrite that tile of acc_s (exponentiate_in_place does): a
    // tile is read in full before it is emitted and never after.
    template <typename Emit>
    __device__ __forceinline__ void exponentiate(const Scores &acc_s, const RowOffsets &offsets, Emit &&emit) {
        auto run = [&](auto fused) {
            constexpr bool kFused = decltype(fused)::value;
            float partial[2] = {0.f, 0.f};
#pragma unroll
            for (int nt = 0; nt < kNTiles; ++nt) {
                float e[4];
#pragma unroll
                for (int i = 0; i < 4; ++i)
                    e[i] = exp2_from_offset<kFused>(acc_s[nt][i], scale_log2, offsets.m_use[i / 2]);
                partial[0] += e[0] + e[1];
                partial[1] += e[2] + e[3];
                emit(nt, e);
            }
            row_sum[0] += partial[0];
            row_sum[1] += partial[1];
        };
        if (offsets.fused_exp)
            run(std::true_type{});
        else
            run(std::false_type{});
    }

    // Two adjacent n8 tiles of S, packed to 16 bits, are one k16 A fragment.
    static __device__ __forceinline__ void pack_pair(PFrag &p_frag, int nt, const float (&e)[4]) {
        p_frag[nt / 2][(nt % 2) * 2] = Pack::pack(e[0], e[1]);
        p_frag[nt / 2][(nt % 2) * 2 + 1] = Pack::pack(e[2], e[3]);
    }

    // O += P V with P from registers and V (at shared address v_tile) as the MN-major B operand.
    // The rescale and the packing must land before the fence (see hold); callers pin O. O's
    // atoms are consecutive n8 tiles of one accumulator, and the descriptor's leading offset
    // walks V's atoms.
    __device__ __forceinline__ void issue_pv(PFrag &p_frag, uint32_t v_tile) {
        const Sw128Desc v_desc(v_tile, kBlockN * kAtomRowBytes, kSwizzleBytes);
        hold(p_frag);
        wgmma_fence();
#pragma unroll
        for (int c = 0; c < Traits::kHeadDim; c += kPVCols)
#pragma unroll
            for (int kk = 0; kk < Traits::kPVSteps; ++kk) {
                const int a = c / 64;
                auto &o_cols = *reinterpret_cast<float(*)[kPVCols / 8][4]>(&acc_o[a]);
                Wgmma<Element>::rs(o_cols, p_frag[kk], v_desc.at(a * kBlockN * kAtomRowBytes + kk * 16 * kAtomRowBytes));
            }
        wgmma_commit();
    }

    // This thread's softmax state (O, row maxima, partial row sums), element e as
    // (a * 8 + nt) * 4 + i of O, then the two maxima and the two sums: kStateFloats of them
    // (traits.cuh). save_state hands each to store(e, value); load_state takes a state as this
    // one's, merge_state merges one in as the online softmax merges a key tile (from the larger
    // max, so a state that saw no key contributes exactly nothing), load(e) reading element e.
    // kSymmetric: the merge is symmetric to the bit (no contraction into FMAs), merging B into A
    // gives what merging A into B does, as a split tail's pieces need (they merge in whichever
    // order they finish); a merge in a fixed order lets the products contract into FMAs.
    static constexpr int kStateFloats = kOTiles * 4 + 4;
    template <typename Store>
    __device__ __forceinline__ void save_state(Store &&store) const {
        for_each_o_tile([&](int a, int nt) {
#pragma unroll
            for (int i = 0; i < 4; ++i) store((a * 8 + nt) * 4 + i, acc_o[a][nt][i]);
        });
#pragma unroll
        for (int r = 0; r < 2; ++r) {
            store(kStateFloats - 4 + r, row_max[r]);
            store(kStateFloats - 2 + r, row_sum[r]);
        }
    }
    template <typename Load>
    __device__ __forceinline__ void load_state(Load &&load) {
        for_each_o_tile([&](int a, int nt) {
#pragma unroll
            for (int i = 0; i < 4; ++i) acc_o[a][nt][i] = load((a * 8 + nt) * 4 + i);
        });
#pragma unroll
        for (int r = 0; r < 2; ++r) {
            row_max[r] = load(kStateFloats - 4 + r);
            row_sum[r] = load(kStateFloats - 2 + r);
        }
    }
    template <bool kSymmetric = true, typename Load>
    __device__ __forceinline__ void merge_state(Load &&load) {
        auto mix = [](float here, float alpha_here, float there, float alpha_there) {
            if constexpr (kSymmetric)
                return __fadd_rn(__fmul_rn(here, alpha_here), __fmul_rn(there, alpha_there));
            else
                return here * alpha_here + there * alpha_there;
        };
#pragma unroll
        for (int r = 0; r < 2; ++r) {
            const float max_there = load(kStateFloats - 4 + r);
            const float max = fmaxf(row_max[r], max_there);
            const float offset = exponent_offset(max, scale_log2);
            const float alpha_here = exp2_from_offset(row_max[r], scale_log2, offset);
            const float alpha_there = exp2_from_offset(max_there, scale_log2, offset);
            row_max[r] = max;
            row_sum[r] = mix(row_sum[r], alpha_here, load(kStateFloats - 2 + r), alpha_there);
            for_each_o_tile([&](int a, int nt) {
#pragma unroll
                for (int i = 2 * r; i < 2 * r + 2; ++i)
                    acc_o[a][nt][i] = mix(acc_o[a][nt][i], alpha_here, load((a * 8 + nt) * 4 + i), alpha_there);
            });
        }
    }

    // Finish the row sums across the quad, write LSE, and store O normalised and packed into the
    // Q-layout tile at o_tile (this warpgroup's rows only), for the caller to copy out in whole
    // 16-byte chunks.
    template <typename Work>
    __device__ __forceinline__ void finish(const FlashAttnFwdParams &p, const Work &work, uint32_t o_tile, int g) {
        const bool has_sink = work.has_sink(p);
        const float sink = work.sink(p);
#pragma unroll
        for (int r = 0; r < 2; ++r) {
            row_sum[r] += __shfl_xor_sync(0xffffffff, row_sum[r], 1);
            row_sum[r] += __shfl_xor_sync(0xffffffff, row_sum[r], 2);
            const RowFinish fin = finish_row(row_max[r], row_sum[r], scale_log2, mod.lse_factor(p), has_sink, sink);
            const float inv = fin.inv;
            const int local_row = warp_row0 + g + r * 8;
            if (work.lse && t == 0 && local_row < work.rows_here) work.lse[local_row] = fin.lse();
            for_each_o_tile([&](int a, int nt) {
                const uint32_t packed = Pack::pack(acc_o[a][nt][2 * r] * inv, acc_o[a][nt][2 * r + 1] * inv);
                asm volatile("st.shared.b32 [%0], %1;\n" ::"r"(o_tile + sw128_offset(kBlockM, local_row, a * 8 + nt) +
                                                                4 * t),
                             "r"(packed));
            });
        }
    }

    // The finish straight to global memory, no shared memory: in each run of four n8 tiles the
    // quad's lanes trade their column pairs (a 4 x 4 transpose in two rounds of shuffles) so
    // that lane t holds the whole 16 bytes of tile t of the run, and a warp's store covers 64
    // contiguous bytes of each of its eight rows: whole sectors, where storing each lane's own
    // pair wrote 16 bytes per row (8-17% slower on the seed shapes,
    // docs/benchmarks/2026-11-26-h100-persistent.md). Rows past the tile's end are not written.
    // O's row stride and base must be 16-byte aligned (its tensor map says so).
    // The row sums and LSE are finish()'s, written out again: sharing them through a helper
    // or a callback changed how ptxas scheduled other kernels' key loops (cuobjdump); written
    // out, the one-tile-per-CTA kernels keep their machine code.
    template <typename Work>
    __device__ __forceinline__ void finish_to_global(const FlashAttnFwdParams &p, const Work &work, int g) {
        const bool has_sink = work.has_sink(p);
        const float sink = work.sink(p);
#pragma unroll
        for (int r = 0; r < 2; ++r) {
            row_sum[r] += __shfl_xor_sync(0xffffffff, row_sum[r], 1);
            row_sum[r] += __shfl_xor_sync(0xffffffff, row_sum[r], 2);
            const RowFinish fin = finish_row(row_max[r], row_sum[r], scale_log2, mod.lse_factor(p), has_sink, sink);
            const float inv = fin.inv;
            const int local_row = warp_row0 + g + r * 8;
            if (work.lse && t == 0 && local_row < work.rows_here) work.lse[local_row] = fin.lse();
            Element *row = work.o + static_cast<int64_t>(local_row) * p.o_row_stride;
            const bool in_tile = local_row < work.rows_here;
#pragma unroll
            for (int a = 0; a < kAtoms; ++a)
#pragma unroll
                for (int run = 0; run < 2; ++run) {
                    if (!holds(a, run * 4)) continue;
                    uint32_t w[4];
#pragma unroll
                    for (int j = 0; j < 4; ++j)
                        w[j] = Pack::pack(acc_o[a][run * 4 + j][2 * r] * inv, acc_o[a][run * 4 + j][2 * r + 1] * inv);
                    // Lanes t and t ^ 2 swap the 2 x 2 blocks off their diagonal, then lanes t
                    // and t ^ 1 swap the elements off each block's diagonal.
#pragma unroll
                    for (int k = 0; k < 2; ++k) {
                        const bool high = t & 2;
                        const uint32_t got = __shfl_xor_sync(0xffffffff, high ? w[k] : w[2 + k], 2);
                        if (high)
                            w[k] = got;
                        else
                            w[2 + k] = got;
                    }
#pragma unroll
                    for (int b = 0; b < 2; ++b) {
                        const bool odd = t & 1;
                        const uint32_t got = __shfl_xor_sync(0xffffffff, odd ? w[2 * b] : w[2 * b + 1], 1);
                        if (odd)
                            w[2 * b] = got;
                        else
                            w[2 * b + 1] = got;
                    }
                    if (in_tile)
                        *reinterpret_cast<uint4 *>(row + a * 64 + (run * 4 + t) * 8) = make_uint4(w[0], w[1], w[2], w[3]);
                }
        }
    }
};

// Copy rows [row_first, row_end) of an O tile staged in shared memory (Q layout, kBlockM rows) to
// global memory in 16-byte chunks, from `threads` threads numbered from `thread`.
template <typename Traits, typename Element>
__device__ __forceinline__ void store_o_rows(uint32_t o_tile, Element *o, int64_t o_row_stride, int row_first,
                                             int row_end, int thread, int threads) {
    constexpr int kCPR = Traits::kChunksPerRow;
    for (int i = row_first * kCPR + thread; i < row_end * kCPR; i += threads) {
        const int row = i / kCPR, chunk = i % kCPR;
        uint4 v;
        asm volatile("ld.shared.v4.b32 {%0, %1, %2, %3}, [%4];\n"
                     : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                     : "r"(o_tile + sw128_offset(Traits::kBlockM, row, chunk)));
        *reinterpret_cast<uint4 *>(o + row * o_row_stride + chunk * 8) = v;
    }
}

}  // namespace flashattn::sm90
