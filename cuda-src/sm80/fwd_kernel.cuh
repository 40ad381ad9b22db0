// The portable FlashAttention-2-style forward kernel (sm_80 and later): one CTA per
// (query tile, head, batch), tensor-core MMAs from swizzled shared memory, an online softmax
// in base 2, and P kept in registers between the two GEMMs.
#pragma once

#include <cuda_runtime.h>
#include <math_constants.h>

#include <type_traits>

#include "common/softmax.cuh"
#include "common/tile_work.cuh"
#include "primitives.cuh"
#include "traits.cuh"

namespace flashattn::sm80 {

// Copy rows [0, rows) of a [kRows, head_dim] tile from global memory (row stride in elements)
// into swizzled shared memory with kLoaders threads (this one is `tid`); rows >= valid_rows are
// zero-filled without being read.
template <typename Traits, int kRows, int kLoaders>
__device__ __forceinline__ void load_tile(typename Traits::Element *tile, const typename Traits::Element *src,
                                          int64_t row_stride, int valid_rows, int tid) {
    constexpr int kCPR = Traits::kChunksPerRow;
    constexpr int kChunks = kRows * kCPR;
    const uint32_t base = smem_addr(tile);
    // When the loaders cover whole rows a multiple of 8 rows at a time, each thread keeps one
    // chunk column and the swizzle repeats from pass to pass: one address computation, then
    // immediate shared offsets and a pointer step. This runs every key tile, and the general
    // form below cost about ten integer instructions and a live register per copy.
    constexpr bool kRegular = kLoaders % kCPR == 0 && (kLoaders / kCPR) % 8 == 0 && kChunks % kLoaders == 0;
    if constexpr (kRegular) {
        constexpr int kRowStep = kLoaders / kCPR;
        constexpr int kPasses = kChunks / kLoaders;
        const int row0 = tid / kCPR;
        const auto *g = src + row0 * row_stride + (tid % kCPR) * 8;
        const uint32_t s = base + swizzle<kCPR>(row0, tid % kCPR) * 2;
        const int64_t step = kRowStep * row_stride;
        if (valid_rows >= kRows) {
#pragma unroll
            for (int k = 0; k < kPasses; ++k) cp_async_16(s + row_bytes<kCPR>(k * kRowStep), g + k * step);
        } else {
#pragma unroll
            for (int k = 0; k < kPasses; ++k) {
                const bool valid = row0 + k * kRowStep < valid_rows;
                // An invalid row still needs a legal address operand; row 0 of the tile always exists.
                cp_async_16(s + row_bytes<kCPR>(k * kRowStep), valid ? g + k * step : src, valid);
            }
        }
    } else {
#pragma unroll
        for (int i = tid; i < kChunks; i += kLoaders) {
            const int row = i / kCPR;
            const int chunk = i % kCPR;
            const bool valid = row < valid_rows;
            const auto *g = src + (valid ? row * row_stride : 0) + chunk * 8;
            cp_async_16(base + swizzle<kCPR>(row, chunk) * 2, g, valid);
        }
    }
}

// Per-thread state of the online softmax for its 2 * kMTiles rows (g and g + 8 of each slice).
template <typename Traits>
struct RowState {
    float max[Traits::kMTiles][2];
    float sum[Traits::kMTiles][2];  // partial: this thread's columns only until the epilogue
};

// kVariant: the runtime inputs this instantiation honours (common/features.cuh).
template <typename Traits, Variant kVariant>
__global__ void __launch_bounds__(Traits::kThreads, Traits::kMinBlocksPerSM) fwd_kernel(const FlashAttnFwdParams p) {
    using Element = typename Traits::Element;
    using F = Features<kVariant>;
    using MmaT = Mma<Element>;
    constexpr int kBlockM = Traits::kBlockM;
    constexpr int kBlockN = Traits::kBlockN;
    constexpr int kMTiles = Traits::kMTiles;
    constexpr int kNTiles = Traits::kNTiles;
    constexpr int kDTiles = Traits::kDTiles;
    constexpr int kCPR = Traits::kChunksPerRow;
    constexpr int kStages = Traits::kStages;
    constexpr int kSplits = Traits::kKVSplits;

    extern __shared__ __align__(128) unsigned char smem_raw[];
    auto &smem = *reinterpret_cast<typename Traits::SharedStorage *>(smem_raw);

    const int warp = threadIdx.x / 32;
    const int lane = threadIdx.x % 32;
    const int group = warp / Traits::kGroupWarps;  // KV split this warp works on
    const int group_tid = threadIdx.x % Traits::kGroupThreads;
    const int g = lane / 4;  // fragment row within an 8-row group
    const int t = lane % 4;  // fragment column pair
    // Launched as a programmatic dependent (common/launch.cuh): nothing in global memory is
    // touched before the kernel ahead on the stream is done.
    wait_for_prerequisite_grids();
    const TileWork<Element, F> work(p, kBlockM);
    if (work.finish_if_fully_masked<kCPR, Traits::kThreads>(p)) return;

    // The key tiles some row of this CTA sees; a window of w keys walks about w / kBlockN tiles.
    const int n_block_max = work.keys.n_block_max(kBlockN);
    const int n_blocks = n_block_max - work.keys.n_block_min(kBlockN);
    // This group takes every kSplits-th key tile: local iteration i is global iteration
    // group + i * kSplits. Groups differ by at most one iteration; a group may have none.
    const int group_iters = n_blocks > group ? (n_blocks - group + kSplits - 1) / kSplits : 0;
    auto n_block_of = [&](int i) { return n_block_max - 1 - (group + i * kSplits); };

    // K/V tiles are walked from the last one down, so the tiles that need the causal or
    // sequence-end mask come first and the steady state runs mask-free (a window's left edge
    // masks the last one or two again).
    auto load_kv = [&](int n_block, int stage, bool with_k, bool with_v) {
        const int key0 = n_block * kBlockN;
        if (with_k)
            load_tile<Traits, kBlockN, Traits::kGroupThreads>(smem.k_tile(group, stage), work.k + key0 * p.k_row_stride,
                                                              p.k_row_stride, work.len.k - key0, group_tid);
        if (with_v)
            load_tile<Traits, kBlockN, Traits::kGroupThreads>(smem.v_tile(group, stage), work.v + key0 * p.v_row_stride,
                                                              p.v_row_stride, work.len.k - key0, group_tid);
    };

    load_tile<Traits, kBlockM, Traits::kThreads>(smem.q, work.q, p.q_row_stride, work.rows_here, threadIdx.x);
    // With one group, Q rides in the first K/V commit group; with several, every group reads Q
    // rows other groups copied, so Q gets its own group and a CTA-wide barrier below.
    if constexpr (kSplits > 1) cp_async_commit();
    if constexpr (kStages == 1) {
        if (group_iters > 0) load_kv(n_block_of(0), 0, true, false);
        cp_async_commit();
    } else {
        // Fill all but one buffer; one commit group per stage keeps wait_group counting exact.
#pragma unroll
        for (int s = 0; s < kStages - 1; ++s) {
            if (s < group_iters) load_kv(n_block_of(s), s, true, true);
            cp_async_commit();
        }
    }
    if constexpr (kSplits > 1) {
        cp_async_wait<kStages == 1 ? 1 : kStages - 1>();
        __syncthreads();  // Q landed for every group
    }

    const int warp_row0 = (warp % Traits::kGroupWarps) * Traits::kRowsPerWarp;
    // This lane's rows are row0 + mt * 16 + {0, 8}.
    const int row0 = work.row_begin + warp_row0 + g;
    const RowMask<(kMTiles - 1) * 16 + 8> mask(p, work.keys, warp_row0 + g);
    using Mod = ScoreMod<Element, F::kScoreMod>;
    const Mod mod(p, work.len, work.head, row0);
    // c: scale * log2(e) on raw scores, or softcap * log2(e) on tanh-capped ones.
    const float scale_log2 = mod.exp_factor(p);
    float acc_o[kMTiles][kDTiles][4];
    RowState<Traits> rs;
#pragma unroll
    for (int mt = 0; mt < kMTiles; ++mt) {
#pragma unroll
        for (int dt = 0; dt < kDTiles; ++dt)
#pragma unroll
            for (int i = 0; i < 4; ++i) acc_o[mt][dt][i] = 0.f;
        rs.max[mt][0] = rs.max[mt][1] = -CUDART_INF_F;
        rs.sum[mt][0] = rs.sum[mt][1] = 0.f;
    }

    const uint32_t q_base = smem_addr(smem.q);
    // Each lane's ldmatrix row and chunk, fixed for the whole loop (see SwizzledLane): Q as the
    // A operand (x4: rows 0-15, chunks k and k+1), K as B (x4: two n8 tiles, chunks k and k+1),
    // V transposed as B (x4: keys 0-15, two d8 tiles).
    const SwizzledLane<kCPR> q_lane(warp_row0 + lane % 16, lane / 16);
    const SwizzledLane<kCPR> k_lane(lane % 8 + (lane / 16) * 8, (lane / 8) % 2);
    const SwizzledLane<kCPR> v_lane(lane % 8 + ((lane / 8) % 2) * 8, lane / 16);

    // Every group runs the same number of loop trips so the CTA-wide barriers line up; a group
    // whose share ran out (at most one trip short) only joins the barriers on its last trip.
    const int loop_iters = (n_blocks + kSplits - 1) / kSplits;
    for (int iter = 0; iter < loop_iters; ++iter) {
        const bool active = kSplits == 1 || iter < group_iters;
        const int n_block = n_block_of(iter);
        const int stage = kStages == 1 ? 0 : iter % kStages;

        if constexpr (kStages == 1) {
            // Split schedule (one K and one V buffer): V_j streams in under Q.K_j^T, and
            // K_{j-1} under softmax and P.V_j.
            cp_async_wait<0>();
            __syncthreads();  // K_j landed; every warp has finished reading V_{j+1}
            if (active) load_kv(n_block, 0, false, true);
            cp_async_commit();
        } else {
            cp_async_wait<kStages - 2>();
            __syncthreads();  // stage landed; every warp is done with the stage refilled next
            const int ahead = iter + kStages - 1;
            if (ahead < group_iters) load_kv(n_block_of(ahead), ahead % kStages, true, true);
            cp_async_commit();
        }

        // S = Q K^T for this warp's rows: [kMTiles * 16, kBlockN] in fp32 registers.
        float acc_s[kMTiles][kNTiles][4];
        if (active) {
#pragma unroll
            for (int mt = 0; mt < kMTiles; ++mt)
#pragma unroll
                for (int nt = 0; nt < kNTiles; ++nt)
#pragma unroll
                    for (int i = 0; i < 4; ++i) acc_s[mt][nt][i] = 0.f;

            const uint32_t k_base = smem_addr(smem.k_tile(group, stage));
#pragma unroll
            for (int ks = 0; ks < Traits::kQKSteps; ++ks) {
                uint32_t a[kMTiles][4];
                const uint32_t q_ks = q_base + q_lane.at(ks * 2);
#pragma unroll
                for (int mt = 0; mt < kMTiles; ++mt) ldmatrix_x4(a[mt], q_ks + row_bytes<kCPR>(mt * 16));
                const uint32_t k_ks = k_base + k_lane.at(ks * 2);
#pragma unroll
                for (int nt = 0; nt < kNTiles; nt += 2) {
                    uint32_t b[4];
                    ldmatrix_x4(b, k_ks + row_bytes<kCPR>(nt * 8));
#pragma unroll
                    for (int mt = 0; mt < kMTiles; ++mt) {
                        MmaT::run(acc_s[mt][nt], a[mt], b[0], b[1]);
                        MmaT::run(acc_s[mt][nt + 1], a[mt], b[2], b[3]);
                    }
                }
            }

            // Score modifiers on every element (F::kScoreMod only); the mask only on the tiles that
            // straddle the sequence end, the causal diagonal or a window edge.
#pragma unroll
            for (int mt = 0; mt < kMTiles; ++mt)
                apply_score_mask<F::kWindow>(acc_s[mt], p, mask, mod, mt * 16, n_block * kBlockN, t, kBlockN);
        }

        if constexpr (kStages == 1) {
            cp_async_wait<0>();
            __syncthreads();  // V_j landed; every warp is done reading K_j
            if (iter + 1 < group_iters) load_kv(n_block_of(iter + 1), 0, true, false);
            cp_async_commit();
        }

        if (!active) continue;

        // Online softmax in base 2 (common/softmax.cuh); m_use is the rows' exponent offsets.
        float m_use[kMTiles][2];
        float alpha[kMTiles][2];
        bool offsets_small = true;
#pragma unroll
        for (int mt = 0; mt < kMTiles; ++mt) {
#pragma unroll
            for (int r = 0; r < 2; ++r) {
                float thread_max = rs.max[mt][r];
#pragma unroll
                for (int nt = 0; nt < kNTiles; ++nt)
                    thread_max = fmaxf(thread_max, fmaxf(acc_s[mt][nt][2 * r], acc_s[mt][nt][2 * r + 1]));
                const RowStep step = advance_row_max(rs.max[mt][r], thread_max, scale_log2);
                m_use[mt][r] = step.offset;
                alpha[mt][r] = step.alpha;
                offsets_small = offsets_small && fabsf(m_use[mt][r]) < kFusedExpLimit;
            }
        }
        // exp2(fma(s, c, -m_use)) is one instruction and one rounding, but at the max element it
        // leaves exp2(max * c - round(max * c)) instead of exactly 1. P is rounded to 16 bits
        // for P.V while the row sum keeps fp32, so near |max * c| of 1e4 that residual turned
        // into an output ulp when one key dominated (found by the fuzzer at Sk = 1). Below
        // kFusedExpLimit it is under 2^-16, far inside half an ulp of fp16 or bf16, and the
        // fused form is used; above, both products are rounded alike (__fmul_rn, no FMA
        // contraction) and the max element gets exp2(0) = 1 exactly. The vote keeps the branch
        // warp-uniform.
        const bool fused_exp = __all_sync(0xffffffff, offsets_small);
#pragma unroll
        for (int mt = 0; mt < kMTiles; ++mt) {
#pragma unroll
            for (int r = 0; r < 2; ++r) {
                // P = exp2(S * c - m_use) in place, returning this thread's part of the row sum.
                auto exponentiate = [&](auto fused) {
                    float partial = 0.f;
                    constexpr bool kFused = decltype(fused)::value;
#pragma unroll
                    for (int nt = 0; nt < kNTiles; ++nt) {
                        float *pair = &acc_s[mt][nt][2 * r];
                        pair[0] = exp2_from_offset<kFused>(pair[0], scale_log2, m_use[mt][r]);
                        pair[1] = exp2_from_offset<kFused>(pair[1], scale_log2, m_use[mt][r]);
                        partial += pair[0] + pair[1];
                    }
                    return partial;
                };
                const float partial =
                    fused_exp ? exponentiate(std::true_type{}) : exponentiate(std::false_type{});
                rs.sum[mt][r] = rs.sum[mt][r] * alpha[mt][r] + partial;
                // An unchanged max gives alpha = exp2(0) = 1 exactly, so skipping the multiply
                // is bit-identical. Past the first few key tiles most rows keep their max, often
                // all 16 of a warp's slice at once: the vote saves kDTiles * 2 multiplies then.
                // Split tiles walk only a few key tiles each and have no registers to spare.
                if (kSplits > 1 || __any_sync(0xffffffff, alpha[mt][r] != 1.f)) {
#pragma unroll
                    for (int dt = 0; dt < kDTiles; ++dt) {
                        acc_o[mt][dt][2 * r] *= alpha[mt][r];
                        acc_o[mt][dt][2 * r + 1] *= alpha[mt][r];
                    }
                }
            }
        }

        // O += P V. The accumulator layout of two adjacent n8 tiles of S, packed to 16 bits, is
        // exactly the A fragment of one k16 step, so P never touches shared memory.
        const uint32_t v_base = smem_addr(smem.v_tile(group, stage));
#pragma unroll
        for (int kk = 0; kk < Traits::kPVSteps; ++kk) {
            uint32_t a[kMTiles][4];
#pragma unroll
            for (int mt = 0; mt < kMTiles; ++mt) {
                a[mt][0] = MmaT::pack(acc_s[mt][2 * kk][0], acc_s[mt][2 * kk][1]);
                a[mt][1] = MmaT::pack(acc_s[mt][2 * kk][2], acc_s[mt][2 * kk][3]);
                a[mt][2] = MmaT::pack(acc_s[mt][2 * kk + 1][0], acc_s[mt][2 * kk + 1][1]);
                a[mt][3] = MmaT::pack(acc_s[mt][2 * kk + 1][2], acc_s[mt][2 * kk + 1][3]);
            }
#pragma unroll
            for (int dt = 0; dt < kDTiles; dt += 2) {
                uint32_t b[4];
                ldmatrix_x4_trans(b, v_base + v_lane.at(dt) + row_bytes<kCPR>(kk * 16));
#pragma unroll
                for (int mt = 0; mt < kMTiles; ++mt) {
                    MmaT::run(acc_o[mt][dt], a[mt], b[0], b[1]);
                    MmaT::run(acc_o[mt][dt + 1], a[mt], b[2], b[3]);
                }
            }
        }
    }

    // Epilogue: finish the row sums across the quad, merge the KV groups, normalise, and stage
    // O through the Q buffer so global stores are whole 16-byte chunks.
    cp_async_wait<0>();
    __syncthreads();  // every warp is done with Q and with the last K/V stage
#pragma unroll
    for (int mt = 0; mt < kMTiles; ++mt)
#pragma unroll
        for (int r = 0; r < 2; ++r) {
            rs.sum[mt][r] += __shfl_xor_sync(0xffffffff, rs.sum[mt][r], 1);
            rs.sum[mt][r] += __shfl_xor_sync(0xffffffff, rs.sum[mt][r], 2);
        }

    if constexpr (kSplits > 1) {
        // Thread (group s, warp w, lane l) holds the same rows and columns for every s, so the
        // merge is element-wise: group 0 folds in groups 1.. through shared memory.
#pragma unroll
        for (int mt = 0; mt < kMTiles; ++mt)
#pragma unroll
            for (int r = 0; r < 2; ++r) {
                const int local_row = warp_row0 + mt * 16 + g + r * 8;
                if (t == 0) {
                    smem.group_max[group * kBlockM + local_row] = rs.max[mt][r];
                    smem.group_sum[group * kBlockM + local_row] = rs.sum[mt][r];
                }
                if (group > 0) {
                    float *part = smem.partial_o(group) + local_row * Traits::kPartialStride + 2 * t;
#pragma unroll
                    for (int dt = 0; dt < kDTiles; ++dt)
                        *reinterpret_cast<float2 *>(part + dt * 8) =
                            make_float2(acc_o[mt][dt][2 * r], acc_o[mt][dt][2 * r + 1]);
                }
            }
        __syncthreads();
        if (group == 0) {
#pragma unroll
            for (int mt = 0; mt < kMTiles; ++mt)
#pragma unroll
                for (int r = 0; r < 2; ++r) {
                    const int local_row = warp_row0 + mt * 16 + g + r * 8;
                    float m_all = -CUDART_INF_F;
#pragma unroll
                    for (int s = 0; s < kSplits; ++s) m_all = fmaxf(m_all, smem.group_max[s * kBlockM + local_row]);
                    // Same rounding as the in-loop rescale: the group holding the max gets
                    // weight exp2(0) = 1 exactly; a group that saw no key gets exp2(-inf) = 0.
                    const float m_use = exponent_offset(m_all, scale_log2);
                    float w[kSplits];
                    float total = 0.f;
#pragma unroll
                    for (int s = 0; s < kSplits; ++s) {
                        w[s] = exp2_from_offset(smem.group_max[s * kBlockM + local_row], scale_log2, m_use);
                        total += w[s] * smem.group_sum[s * kBlockM + local_row];
                    }
#pragma unroll
                    for (int dt = 0; dt < kDTiles; ++dt) {
                        acc_o[mt][dt][2 * r] *= w[0];
                        acc_o[mt][dt][2 * r + 1] *= w[0];
                    }
#pragma unroll
                    for (int s = 1; s < kSplits; ++s) {
                        const float *part = smem.partial_o(s) + local_row * Traits::kPartialStride + 2 * t;
#pragma unroll
                        for (int dt = 0; dt < kDTiles; ++dt) {
                            const float2 o = *reinterpret_cast<const float2 *>(part + dt * 8);
                            acc_o[mt][dt][2 * r] += w[s] * o.x;
                            acc_o[mt][dt][2 * r + 1] += w[s] * o.y;
                        }
                    }
                    rs.max[mt][r] = m_all;
                    rs.sum[mt][r] = total;
                }
        }
    }

    if (kSplits == 1 || group == 0) {
        Element *o_tile = smem.q;
        const bool has_sink = work.has_sink(p);
        const float sink = work.sink(p);
#pragma unroll
        for (int mt = 0; mt < kMTiles; ++mt) {
#pragma unroll
            for (int r = 0; r < 2; ++r) {
                const RowFinish fin =
                    finish_row(rs.max[mt][r], rs.sum[mt][r], scale_log2, mod.lse_factor(p), has_sink, sink);
                const float inv = fin.inv;
                const int local_row = warp_row0 + mt * 16 + g + r * 8;
                if (work.lse && t == 0 && local_row < work.rows_here) work.lse[local_row] = fin.lse();
#pragma unroll
                for (int dt = 0; dt < kDTiles; ++dt) {
                    const uint32_t packed = MmaT::pack(acc_o[mt][dt][2 * r] * inv, acc_o[mt][dt][2 * r + 1] * inv);
                    *reinterpret_cast<uint32_t *>(o_tile + swizzle<kCPR>(local_row, dt) + 2 * t) = packed;
                }
            }
        }
    }
    __syncthreads();
    for (int i = threadIdx.x; i < work.rows_here * kCPR; i += Traits::kThreads) {
        const int row = i / kCPR, chunk = i % kCPR;
        *reinterpret_cast<uint4 *>(work.o + row * p.o_row_stride + chunk * 8) =
            *reinterpret_cast<const uint4 *>(smem.q + swizzle<kCPR>(row, chunk));
    }
}

template <typename Traits, Variant kVariant>
FlashAttnStatus launch_fwd(FlashAttnFwdParams *params, cudaStream_t stream) {
    static KernelFacts facts;
    return launch_tiles(fwd_kernel<Traits, kVariant>, Traits::kBlockM, Traits::kThreads, Traits::kSmemBytes, params,
                        stream, facts, *params);
}

}  // namespace flashattn::sm80
