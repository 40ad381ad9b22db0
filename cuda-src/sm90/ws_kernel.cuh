// The warp-specialized Hopper forward kernel (sm_90a): the same per-warpgroup math as
// fwd_kernel.cuh (warpgroup_tile.cuh), fed differently. A producer warpgroup hands its
// registers to the two consumer warpgroups and one of its threads issues every copy: Q once, then
// K and V of each key tile as TMA boxes into a ring of shared-memory buffers, each buffer's
// arrival counted in bytes by a full barrier and its release by the consumers counted by an
// empty barrier. No consumer thread issues a load or waits at a CTA-wide barrier in the key
// loop, so the copies run ahead by the whole ring while both consumers compute.
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
#include "sm80/primitives.cuh"
// The fallback's launcher (launch_fwd) is only declared here, in traits.cuh: its kernel is
// compiled once, in the fallback configuration's own file. Including fwd_kernel.cuh would compile
// a second copy in this file's module, registered under the same host function.
#include "sm90/tma.cuh"
#include "sm90/traits.cuh"
#include "sm90/warpgroup_tile.cuh"
#include "sm90/wgmma.cuh"

namespace flashattn::sm90 {

// The kernel's argument: the call's params and the three tensor maps (which must sit in
// parameter space, 64-byte aligned, for the TMA unit to read them).
struct WsArgs {
    FlashAttnFwdParams params;
    CUtensorMap q;  // CUtensorMap is declared 64-byte aligned
    CUtensorMap k;
    CUtensorMap v;
};

// Named barriers 1 and 2: consumer 0's and consumer 1's turn at the tensor cores.
constexpr int kTurnBarrier = 1;
// Named barriers 3 and 4: a consumer's 128 threads before copying its O rows out.
constexpr int kEpilogueBarrier = 3;

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

template <typename Traits, Variant kVariant>
__global__ void __launch_bounds__(Traits::kThreads, 1) ws_kernel(const __grid_constant__ WsArgs args) {
    using Element = typename Traits::Element;
    using F = Features<kVariant>;
    using Tile = WarpgroupTile<Traits, F>;
    constexpr int kBlockM = Traits::kBlockM;
    constexpr int kBlockN = Traits::kBlockN;
    constexpr int kStages = Traits::kStages;
    constexpr int kAtoms = Traits::kAtoms;
    const FlashAttnFwdParams &p = args.params;

    extern __shared__ unsigned char smem_raw[];
    const uint32_t smem_base = (sm80::smem_addr(smem_raw) + kSwizzleBytes - 1) & ~static_cast<uint32_t>(kSwizzleBytes - 1);
    const uint32_t q_smem = smem_base;
    auto k_smem = [&](int stage) { return smem_base + Traits::kQBytes + stage * 2 * Traits::kTileBytes; };
    auto v_smem = [&](int stage) { return k_smem(stage) + Traits::kTileBytes; };
    // Barriers: Q landed; per stage, K landed, V landed, and both read by every consumer warp;
    // the first key tile's V with its tail zeroed (varlen).
    const uint32_t barriers = smem_base + Traits::kQBytes + kStages * 2 * Traits::kTileBytes;
    const uint32_t q_full = barriers;
    auto k_full = [&](int stage) { return barriers + 8 * (1 + stage); };
    auto v_full = [&](int stage) { return barriers + 8 * (1 + kStages + stage); };
    auto kv_empty = [&](int stage) { return barriers + 8 * (1 + 2 * kStages + stage); };
    const uint32_t v_tail_zeroed = barriers + 8 * (1 + 3 * kStages);
    // Tile i of the key loop sits in buffer i % kStages; its use of that buffer is the
    // (i / kStages)-th, whose barrier phase has this parity.
    auto parity = [](int i) { return static_cast<uint32_t>((i / kStages) & 1); };

    const int3 coords = TileWork<Element, F>::tile_coords(p);
    const TileWork<Element, F> work(p, kBlockM, coords);
    if (work.finish_if_fully_masked<Traits::kChunksPerRow, Traits::kThreads>(p)) return;
    // Key tiles from the last one down, as in fwd_kernel.cuh (masked tiles first).
    const int n_block_max = work.keys.n_block_max(kBlockN);
    const int n_blocks = n_block_max - work.keys.n_block_min(kBlockN);
    auto key0 = [&](int i) { return (n_block_max - 1 - i) * kBlockN; };
    // Packed (varlen) tensors are one batch of total rows, each sequence starting at its first.
    const bool packed = F::kVarlen && p.cu_seqlens_q != nullptr;
    const int batch_coord = packed ? 0 : coords.z;
    // Only the first key tile (the last one of the range) reaches past the sequence's keys.
    const bool zero_tail = packed && key0(0) + kBlockN > work.len.k;

    if (threadIdx.x == 0) {
        barrier_init(q_full, 1);
        for (int s = 0; s < kStages; ++s) {
            barrier_init(k_full(s), 1);
            barrier_init(v_full(s), 1);
            barrier_init(kv_empty(s), 4 * Traits::kConsumers);  // one arrival per consumer warp
        }
        barrier_init(v_tail_zeroed, 1);
        fence_barrier_init();
    }
    __syncthreads();

    const int warpgroup = threadIdx.x / 128;
    if (warpgroup == 0) {
        warpgroup_release_registers<Traits::kProducerRegs>();
        if (threadIdx.x == 0) {
            const int head = coords.y;
            const int kv_head = head / (p.heads_q / p.heads_kv);
            barrier_arrive_expect_tx(q_full, Traits::kQBytes);
#pragma unroll
            for (int a = 0; a < kAtoms; ++a)
                tma_load_4d(q_smem + a * kBlockM * kAtomRowBytes, &args.q, q_full, a * 64,
                            work.q_first + work.row_begin, head, batch_coord);
            for (int i = 0; i < n_blocks; ++i) {
                const int stage = i % kStages;
                if (i >= kStages) barrier_wait(kv_empty(stage), parity(i) ^ 1);
                barrier_arrive_expect_tx(k_full(stage), Traits::kTileBytes);
#pragma unroll
                for (int a = 0; a < kAtoms; ++a)
                    tma_load_4d(k_smem(stage) + a * kBlockN * kAtomRowBytes, &args.k, k_full(stage), a * 64,
                                work.k_first + key0(i), kv_head, batch_coord);
                barrier_arrive_expect_tx(v_full(stage), Traits::kTileBytes);
#pragma unroll
                for (int a = 0; a < kAtoms; ++a)
                    tma_load_4d(v_smem(stage) + a * kBlockN * kAtomRowBytes, &args.v, v_full(stage), a * 64,
                                work.k_first + key0(i), kv_head, batch_coord);
            }
        } else if (zero_tail && threadIdx.x / 32 == 1) {
            // Buffer 0 cannot be refilled before the consumers release it, which they do only
            // after reading it through v_tail_zeroed.
            barrier_wait(v_full(0), 0);
            zero_v_tail<Traits>(v_smem(0), work.len.k - key0(0), threadIdx.x % 32);
            __syncwarp();
            if (threadIdx.x % 32 == 0) barrier_arrive(v_tail_zeroed);
        }
        return;
    }

    warpgroup_claim_registers<Traits::kConsumerRegs>();
    const int consumer = warpgroup - 1;
    const int warp = (threadIdx.x / 32) % 4;
    const int lane = threadIdx.x % 32;
    Tile wg(p, work, consumer, warp, lane);
    using Scores = typename Tile::Scores;
    using PFrag = typename Tile::PFrag;
    // A buffer is free again once every consumer warp's reads of it (K by a Q.K^T, V by a P.V)
    // are complete.
    // V of key tile i has landed (for the first tile in a varlen call: and its tail is zeroed).
    auto wait_v = [&](int i) {
        if (i == 0 && zero_tail)
            barrier_wait(v_tail_zeroed, 0);
        else
            barrier_wait(v_full(i % kStages), parity(i));
    };
    auto release_stage = [&](int i, int lane_) {
        __syncwarp();
        if (lane_ == 0) barrier_arrive(kv_empty(i % kStages));
    };

    // The two consumers take turns at the tensor cores: in its turn a consumer issues Q.K^T of
    // key tile j and P.V of tile j - 1, then lets the other one issue while it waits for S and
    // runs tile j's softmax (FlashAttention-3's ping-pong). O is rescaled to tile j - 1's row
    // max just before P.V of j - 1 accumulates into it. Turns alternate strictly: consumer 0's
    // turn t waits for consumer 1's turn t - 1, consumer 1's turn t for consumer 0's turn t,
    // and each named barrier sees as many arrivals as waits (the last turn hands nothing on).
    const int turns = n_blocks + 1;  // n_blocks Q.K^T turns, then the last P.V
    auto begin_turn = [&](int turn) {
        if (consumer == 1 || turn > 0) named_barrier_sync(kTurnBarrier + consumer, 256);
    };
    auto end_turn = [&](int turn) {
        if (consumer == 0 || turn + 1 < turns) named_barrier_arrive(kTurnBarrier + (consumer ^ 1), 256);
    };
    Scores acc_s;
    PFrag p_frag;
    barrier_wait(q_full, 0);
    // Tile 0: its Q.K^T alone.
    barrier_wait(k_full(0), 0);
    begin_turn(0);
    wg.issue_qk(acc_s, q_smem, k_smem(0));
    end_turn(0);
    wgmma_wait<0>();
    hold(acc_s);
    typename Tile::RowOffsets offsets = wg.update_max(acc_s, p, key0(0));
    wg.to_p(acc_s, offsets, p_frag);
    for (int iter = 1; iter < n_blocks; ++iter) {
        const int stage = iter % kStages;
        const int prev = (iter - 1) % kStages;
        barrier_wait(k_full(stage), parity(iter));
        begin_turn(iter);
        wg.issue_qk(acc_s, q_smem, k_smem(stage));
        wg.rescale_o(offsets);
        hold(wg.acc_o);
        wait_v(iter - 1);
        wg.issue_pv(p_frag, v_smem(prev));
        end_turn(iter);
        wgmma_wait<1>();  // S; P.V of the previous tile may still run
        hold(acc_s);
        offsets = wg.update_max(acc_s, p, key0(iter));
        wgmma_wait<0>();
        hold(wg.acc_o);
        hold(p_frag);
        release_stage(iter - 1, lane);
        wg.to_p(acc_s, offsets, p_frag);
    }
    begin_turn(n_blocks);
    wg.rescale_o(offsets);
    hold(wg.acc_o);
    wait_v(n_blocks - 1);
    wg.issue_pv(p_frag, v_smem((n_blocks - 1) % kStages));
    end_turn(n_blocks);
    wgmma_wait<0>();
    hold(wg.acc_o);

    // Epilogue: each consumer stages its own 64 rows of O in its own rows of the Q buffer (which
    // only its Q.K^T read) and copies them out; the other consumer may still be computing.
    wg.finish(p, work, q_smem, lane / 4);
    named_barrier_sync(kEpilogueBarrier + consumer, 128);
    const int row_first = consumer * 64;
    store_o_rows<Traits>(q_smem, work.o, p.o_row_stride, row_first, min(row_first + 64, work.rows_here),
                         threadIdx.x - 128 * warpgroup, 128);
}

// Builds the tensor maps and launches; a call whose tensors no tensor map describes (a zero or
// odd stride, no driver entry point) runs the fallback tile's kernel of the same variant instead
// and reports that configuration, kFallbackId, in params->config_used.
template <typename Traits, Variant kVariant, int kFallbackId>
FlashAttnStatus launch_ws(FlashAttnFwdParams *params, cudaStream_t stream) {
    static SmemOptIns opted_in{0};
    WsArgs args;
    args.params = *params;
    const FlashAttnFwdParams &p = *params;
    // Packed varlen tensors: one batch of total rows (the batch strides are never used).
    const bool packed = Features<kVariant>::kVarlen && p.cu_seqlens_q != nullptr;
    const int batch = packed ? 1 : p.batch;
    const int rows_q = packed ? p.total_q : p.seqlen_q;
    const int rows_k = packed ? p.total_k : p.seqlen_k;
    const bool mapped =
        encode_bshd_map(&args.q, p.dtype, p.q, batch, rows_q, p.heads_q, Traits::kHeadDim, p.q_batch_stride,
                        p.q_row_stride, p.q_head_stride, Traits::kBlockM) &&
        encode_bshd_map(&args.k, p.dtype, p.k, batch, rows_k, p.heads_kv, Traits::kHeadDim, p.k_batch_stride,
                        p.k_row_stride, p.k_head_stride, Traits::kBlockN) &&
        encode_bshd_map(&args.v, p.dtype, p.v, batch, rows_k, p.heads_kv, Traits::kHeadDim, p.v_batch_stride,
                        p.v_row_stride, p.v_head_stride, Traits::kBlockN);
    if (!mapped) {
        // A dense call takes the fallback's general kernel, which every tile compiles (some
        // compile no dense one: tiles.rs, hopper_dense_on_general).
        constexpr Variant kFallbackVariant = kVariant == Variant::kDense ? Variant::kGeneral : kVariant;
        params->config_used = kFallbackId;
        return launch_fwd<typename Traits::Fallback, kFallbackVariant>(params, stream);
    }
    return launch_tiles(ws_kernel<Traits, kVariant>, Traits::kBlockM, Traits::kThreads, Traits::kSmemLaunchBytes,
                        params, stream, opted_in, args);
}

}  // namespace flashattn::sm90
