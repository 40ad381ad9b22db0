// Split-KV decode: a few query rows against a long (contiguous or paged) KV cache. Two split
// kernels, both built around the loads (decode reads K and V once and does little arithmetic):
// the tensor-core kernel (mma_kernel.cuh) up to head dim 128, and this file's lane kernel at 256,
// whose registers the tensor-core kernel's fragments would not fit. What they share:
// - GQA packing: one CTA serves every query row that reads its KV head (the group's query
//   heads x seqlen_q, up to kRows of them), so K/V is read once per KV head, not once per
//   query head.
// - Split-KV: the key range of a sequence is cut into `num_splits` parts, one CTA each, so a
//   batch-1 decode over a long cache still fills the GPU. Each part leaves a partial (O, LSE)
//   in the caller's f32 workspace and `combine_kernel` merges them with merge.cuh's
//   MergeRunning, over all parts at once. With one split the kernel writes O and LSE itself.
//
// The lane kernel: every lane streams 16-byte chunks of K and V rows with cp.async into its own
// slots of a shared-memory ring several steps deep, so the copies of the next steps are in flight
// while the lane does the current step's math on CUDA cores. (Loads into registers, the first
// version, left nothing in flight between a step's last load and the next step's first: 0.68-0.84
// of the copy ceiling.) A key row of kHeadDim elements is kLanesPerKey lanes x 8 elements; a warp
// holds kKeysPerWarp keys at once ("slots"); each slot keeps its own running softmax state, and
// the slots and warps are merged once at the end. A key's dot products with the rows are reduced
// over the slot's lanes so that each lane ends with whole rows it owns (RowOwnership): the
// softmax of a row runs in its owners, not in every lane of the slot.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <math_constants.h>

#include <cstdint>

#include "common/launch.cuh"
#include "common/merge.cuh"
#include "decode/common.cuh"
#include "decode/mma_kernel.cuh"
#include "flashattn.h"
#include "sm80/primitives.cuh"

namespace flashattn::decode {

template <typename Element_, int kHeadDim_, int kRows_>
struct DecodeTraits {
    using Element = Element_;
    static constexpr int kHeadDim = kHeadDim_;
    static constexpr int kRows = kRows_;  // query rows per CTA
    static constexpr int kChunks = kHeadDim / kChunk;  // active lanes of a key
    static constexpr int kLanesPerKey = pow2_at_least(kChunks);
    static constexpr int kKeysPerWarp = 32 / kLanesPerKey;
    // Keys per lane and step, and steps in the ring: kStages - 1 steps of copies are in flight
    // while a step is computed, (kStages - 1) x 4 KB x kUnroll a CTA; at four CTAs an SM that is
    // 96 KB, several times what the H100's bandwidth x latency needs.
    static constexpr int kUnroll = 2;
    static constexpr int kStages = 4;
    static constexpr int kKeysPerStep = kWarps * kKeysPerWarp * kUnroll;
    // The ring, [stage][unroll][K, V][thread] 16-byte slots: a thread reads back only the slots it
    // copied into, so cp.async.wait_group alone orders them (no barrier), and a warp's slots are
    // 512 contiguous bytes (no bank conflicts). After the loop the same bytes hold the warps'
    // partial results for the merge.
    static constexpr int kRingBytes = kStages * kUnroll * 2 * kThreads * 16;
    static constexpr int kMergeBytes = kWarps * kRows * kHeadDim * 4;
    static constexpr int kSmemBytes = kRingBytes > kMergeBytes ? kRingBytes : kMergeBytes;
    static_assert(kStages * kUnroll <= 32, "one bit a ring slot in a 32-bit mask");
    static_assert((kStages & (kStages - 1)) == 0, "stage index by mask");
    // Resident CTAs an SM the registers must allow (64K registers: 128 a thread for four, 255
    // for two); decode_splits in crates/flashattn/src/decode.rs sizes the grid by the same rule.
    static constexpr int kMinCtasPerSm = kRows <= 4 ? 4 : 2;
    static_assert(kHeadDim % kChunk == 0 && kLanesPerKey <= 32, "head_dim: a multiple of 8, at most 256");
};

// The per-key dot products of kRows query rows are sums over a slot's kLanes lanes. A butterfly
// per row would cost kRows x log2(kLanes) shuffles a key; instead each level first halves the
// rows a lane keeps: the lane adds its partner's half for the rows it keeps and drops the rest,
// so kRows = 4 over 16 lanes takes 2 + 1 + 1 + 1 shuffles instead of 16. No lane has to choose
// which half to send because every lane stores its rows permuted: index i holds row
// i ^ owned_row0(part), so "keep the low half, add the partner's high half" is right for both
// partners. Afterwards index j < kOwned holds the full sum of row owned_row0(part) ^ j; the lane
// owns those rows (their softmax state lives there) and hands their weights to the other lanes
// with shuffles (owner_offset).
template <int kRows, int kLanes>
struct RowOwnership {
    static constexpr int kOwned = kRows > kLanes ? kRows / kLanes : 1;  // rows a lane owns

    // The first row a lane owns: each halving level's lane bit picks the upper half of its rows.
    __device__ __forceinline__ static int owned_row0(int part) {
        int row0 = 0;
#pragma unroll
        for (int rows = kRows, offset = kLanes / 2; rows > kOwned; rows /= 2, offset /= 2)
            if (part & offset) row0 += rows / 2;
        return row0;
    }
    // The lane (xor distance within the slot) that owns the row at storage index `index`, for
    // any lane: owned_row0 is linear in the halving bits, so it is the same distance everywhere.
    __host__ __device__ static constexpr int owner_offset(int index) {
        int offset = 0;
        for (int rows = kRows, lane_bit = kLanes / 2; rows > kOwned; rows /= 2, lane_bit /= 2)
            if (index & (rows / 2)) offset |= lane_bit;
        return offset;
    }
    // Sum v over the slot's lanes, halving as above: v[0, kOwned) ends with the owned rows' sums.
    template <int kN = kRows, int kOffset = kLanes / 2>
    __device__ __forceinline__ static void reduce(float (&v)[kRows]) {
        if constexpr (kOffset > 0) {
            constexpr int kKeep = kN > kOwned ? kN / 2 : kN;
#pragma unroll
            for (int i = 0; i < kKeep; ++i) v[i] += __shfl_xor_sync(0xffffffffu, v[i + (kN - kKeep)], kOffset);
            reduce<kKeep, kOffset / 2>(v);
        }
    }
    // A value of every row in storage order, from the owners' values of their rows.
    __device__ __forceinline__ static float from_owner(const float (&owned)[kOwned], int index) {
        const float mine = owned[index % kOwned];
        const int offset = owner_offset(index - index % kOwned);
        return offset == 0 ? mine : __shfl_xor_sync(0xffffffffu, mine, offset);
    }
};

template <typename Traits>
__global__ void __launch_bounds__(kThreads, Traits::kMinCtasPerSm) decode_kernel(const FlashAttnDecodeParams p) {
    using Element = typename Traits::Element;
    constexpr int kRows = Traits::kRows, kLanesPerKey = Traits::kLanesPerKey;
    constexpr int kKeysPerWarp = Traits::kKeysPerWarp, kUnroll = Traits::kUnroll, kStages = Traits::kStages;
    constexpr int kKeysPerStep = Traits::kKeysPerStep;
    constexpr int kHeadDim = Traits::kHeadDim;
    constexpr int kElem = sizeof(Element);

    // The combine kernel (launched as this grid's programmatic dependent) may be scheduled once
    // every CTA of this grid has started; it waits for this grid's completion before reading.
    // Without a combine the next kernel is not let in early: scheduled while this grid runs, its
    // CTAs would pile onto the SMs that have room at that moment (common/launch.cuh).
    if (p.num_splits > 1) allow_dependent_launch();
    // Launched as a programmatic dependent itself (common/launch.cuh): nothing in global memory
    // is touched before the kernel ahead on the stream is done.
    wait_for_prerequisite_grids();
    const SplitCta<kRows> cta(p);
    const int split = cta.split, kv_head = cta.kv_head, b = cta.b;
    const int group = cta.group, row0 = cta.row0, total_rows = cta.total_rows;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int slot = lane / kLanesPerKey, part = lane % kLanesPerKey;
    const bool active = part < Traits::kChunks;

    __shared__ alignas(16) char smem[Traits::kSmemBytes];
    __shared__ float s_m[kWarps][kRows], s_l[kWarps][kRows];
    uint4 *const ring = reinterpret_cast<uint4 *>(smem);
    // This thread's 16-byte slot of the ring at [stage][u][K or V], as a slot index from its first.
    const auto slot_index = [](int stage, int u, int kv) { return ((stage * kUnroll + u) * 2 + kv) * kThreads; };
    const auto ring_at = [&](int stage, int u, int kv) -> uint4 & { return ring[slot_index(stage, u, kv) + threadIdx.x]; };

    // Keys of this sequence and this split's share of them.
    const int seqlen_k = cta.sequence_keys(p);
    const int per_split = (seqlen_k + p.num_splits - 1) / p.num_splits;
    const int key_begin = min(split * per_split, seqlen_k);
    const int key_end = min(key_begin + per_split, seqlen_k);
    const int steps = (key_end - key_begin + kKeysPerStep - 1) / kKeysPerStep;

    const KvCache cache(p, b, kv_head, kElem, part * kChunk * kElem);
    using PagedKey = KvCache::PagedKey;
    const auto key_at = [&](int step, int u) {
        return key_begin + step * kKeysPerStep + (u * kWarps + warp) * kKeysPerWarp + slot;
    };
    // Lanes past a head dim's last chunk copy nothing but still read their slots (their q is 0):
    // zeros keep 0 x garbage (NaN) out of the dot products.
    if (!active) {
        for (int i = 0; i < kStages * kUnroll * 2; ++i) ring[i * kThreads + threadIdx.x] = make_uint4(0, 0, 0, 0);
    }
    // Address work was a quarter of the loop's instructions (SASS, bf16 d128), so what can be is
    // computed once: the shared address of this thread's first slot, and for a contiguous cache
    // the lane's source addresses of the next step to copy, advanced by a step's keys after each
    // copy (steps are issued in order).
    const uint32_t ring_smem = sm80::smem_addr(ring + threadIdx.x);
    const auto slot_smem = [&](int stage, int u, int kv) {
        return ring_smem + static_cast<uint32_t>(slot_index(stage, u, kv) * sizeof(uint4));
    };
    const char *k_next[kUnroll], *v_next[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
        k_next[u] = cache.k + key_at(0, u) * cache.k_row;
        v_next[u] = cache.v + key_at(0, u) * cache.v_row;
    }
    const int64_t k_step = kKeysPerStep * cache.k_row, v_step = kKeysPerStep * cache.v_row;
    // Bit (stage * kUnroll + u): that key's page is not one of the cache's (a corrupt block table),
    // so the key is skipped. Keys past the end are recognised by index; both land as zeros.
    uint32_t hidden = 0;
    const auto issue = [&](int step, const PagedKey (&looked_up)[kUnroll]) {
        const int stage = step & (kStages - 1);
        if (cache.table) hidden &= ~(((1u << kUnroll) - 1) << (stage * kUnroll));
#pragma unroll
        for (int u = 0; u < kUnroll; ++u) {
            bool present = key_at(step, u) < key_end;
            const char *k_src = k_next[u], *v_src = v_next[u];
            if (cache.table) {
                const bool inside = cache.locate(looked_up[u], k_src, v_src);
                hidden |= static_cast<uint32_t>(present && !inside) << (stage * kUnroll + u);
                present = present && inside;
            } else {
                k_next[u] += k_step;
                v_next[u] += v_step;
            }
            if (active) {
                sm80::cp_async_16(slot_smem(stage, u, 0), k_src, present);
                sm80::cp_async_16(slot_smem(stage, u, 1), v_src, present);
            }
        }
    };
    const auto look_up = [&](int step, PagedKey (&looked_up)[kUnroll]) {
        if (!cache.table) return;
#pragma unroll
        for (int u = 0; u < kUnroll; ++u) looked_up[u] = cache.look_up(key_at(step, u), key_end);
    };

    // The first kStages - 1 steps: their block-table entries read together, then their copies.
    {
        PagedKey first[kStages - 1][kUnroll];
#pragma unroll
        for (int t = 0; t < kStages - 1; ++t) look_up(t, first[t]);
#pragma unroll
        for (int t = 0; t < kStages - 1; ++t) {
            if (t < steps) issue(t, first[t]);
            sm80::cp_async_commit();
        }
    }
    // Block-table entries of the next step to copy, read a step before its copies are issued so
    // the table read does not sit in front of them.
    PagedKey pending[kUnroll];
    look_up(kStages - 1, pending);

    // Query rows in this lane's storage order (index i: row own0 ^ i, see RowOwnership), pre-scaled
    // into base-2 logits, and the last visible key of each owned row (causal is bottom-right
    // aligned: query i sees keys j <= i + seqlen_k - seqlen_q). Read while the first copies are in
    // flight.
    using Rows = RowOwnership<kRows, kLanesPerKey>;
    constexpr int kOwned = Rows::kOwned;
    const int own0 = Rows::owned_row0(part);
    const auto last_visible_key = [&](int rr) {
        return rr >= total_rows ? -1 : p.causal ? rr / group + seqlen_k - p.seqlen_q : seqlen_k - 1;
    };
    float q[kRows][kChunk];
#pragma unroll
    for (int r = 0; r < kRows; ++r) {
        const int rr = row0 + (own0 ^ r);
        if (rr < total_rows && active) {
            const int i = rr / group, h = kv_head * group + rr % group;
            const char *src = static_cast<const char *>(p.q) +
                              (b * p.q_batch_stride + int64_t{i} * p.q_row_stride + int64_t{h} * p.q_head_stride +
                               part * kChunk) *
                                  kElem;
            unpack(*reinterpret_cast<const uint4 *>(src), static_cast<const Element *>(nullptr), q[r]);
        } else {
#pragma unroll
            for (int e = 0; e < kChunk; ++e) q[r][e] = 0.f;
        }
#pragma unroll
        for (int e = 0; e < kChunk; ++e) q[r][e] *= p.softmax_scale * kLog2e;
    }
    int last_key[kOwned];
#pragma unroll
    for (int j = 0; j < kOwned; ++j) last_key[j] = last_visible_key(row0 + (own0 ^ j));

    // The slot's running softmax state of the owned rows (m in base-2 logits), and the
    // accumulators of every row (storage order).
    float m[kOwned], l[kOwned], acc[kRows][kChunk];
#pragma unroll
    for (int j = 0; j < kOwned; ++j) {
        m[j] = -CUDART_INF_F;
        l[j] = 0.f;
    }
#pragma unroll
    for (int r = 0; r < kRows; ++r)
#pragma unroll
        for (int e = 0; e < kChunk; ++e) acc[r][e] = 0.f;

    for (int t = 0; t < steps; ++t) {
        // Refill the slots the previous step read (this thread's own reads, already consumed),
        // then wait for this step's copies: kStages - 1 younger groups may stay in flight.
        if (t + kStages - 1 < steps) {
            issue(t + kStages - 1, pending);
            look_up(t + kStages, pending);
        }
        sm80::cp_async_commit();
        sm80::cp_async_wait<kStages - 1>();
        const int stage = t & (kStages - 1);

        // Scores of the step's keys, summed over the slot's lanes into the owned rows.
        float score[kUnroll][kRows];
        int key[kUnroll];
        bool present[kUnroll];
#pragma unroll
        for (int u = 0; u < kUnroll; ++u) {
            key[u] = key_at(t, u);
            present[u] = key[u] < key_end && !((hidden >> (stage * kUnroll + u)) & 1u);
            float kf[kChunk];
            unpack(ring_at(stage, u, 0), static_cast<const Element *>(nullptr), kf);
#pragma unroll
            for (int r = 0; r < kRows; ++r) {
                float s = 0.f;
#pragma unroll
                for (int e = 0; e < kChunk; ++e) s = fmaf(q[r][e], kf[e], s);
                score[u][r] = s;
            }
            Rows::reduce(score[u]);
        }
        // Online softmax of the owned rows, per step rather than per key: one exp2 a key and
        // one for the rescale factor, which is 1 unless the row's maximum moved (it rarely does
        // after the first steps, so the accumulators' rescale below is a branch usually not
        // taken). A row with nothing visible yet keeps m = -inf; its offset is 0 so that
        // exp2(-inf - offset) = 0 and no NaN comes from -inf - -inf.
        float weight[kUnroll][kOwned], rescale[kOwned];
        bool moved = false;
#pragma unroll
        for (int j = 0; j < kOwned; ++j) {
            float m_new = m[j];
#pragma unroll
            for (int u = 0; u < kUnroll; ++u) {
                score[u][j] = present[u] && key[u] <= last_key[j] ? score[u][j] : -CUDART_INF_F;
                m_new = fmaxf(m_new, score[u][j]);
            }
            const float offset = m_new == -CUDART_INF_F ? 0.f : m_new;
            moved |= m_new > m[j];
            rescale[j] = sm80::fast_exp2(m[j] - offset);
            float sum = l[j] * rescale[j];
#pragma unroll
            for (int u = 0; u < kUnroll; ++u) {
                weight[u][j] = sm80::fast_exp2(score[u][j] - offset);
                sum += weight[u][j];
            }
            l[j] = sum;
            m[j] = m_new;
        }
        if (__any_sync(0xffffffffu, moved)) {
#pragma unroll
            for (int r = 0; r < kRows; ++r) {
                const float factor = Rows::from_owner(rescale, r);
#pragma unroll
                for (int e = 0; e < kChunk; ++e) acc[r][e] *= factor;
            }
        }
        // Absent keys' V slots hold zeros and their weights are 0.
#pragma unroll
        for (int u = 0; u < kUnroll; ++u) {
            float w[kRows];
#pragma unroll
            for (int r = 0; r < kRows; ++r) w[r] = Rows::from_owner(weight[u], r);
            float vf[kChunk];
            unpack(ring_at(stage, u, 1), static_cast<const Element *>(nullptr), vf);
#pragma unroll
            for (int r = 0; r < kRows; ++r) {
#pragma unroll
                for (int e = 0; e < kChunk; ++e) acc[r][e] = fmaf(w[r], vf[e], acc[r][e]);
            }
        }
    }
    sm80::cp_async_wait<0>();  // only empty groups can remain; none may land in the merge area

    // Merge the slots of each warp (lanes kLanesPerKey apart hold the same chunk of other keys,
    // in the same storage order), with every lane given its rows' state from the owners.
    float m_row[kRows], l_row[kRows];
#pragma unroll
    for (int r = 0; r < kRows; ++r) {
        m_row[r] = Rows::from_owner(m, r);
        l_row[r] = Rows::from_owner(l, r);
    }
#pragma unroll
    for (int offset = kLanesPerKey; offset < 32; offset *= 2) {
#pragma unroll
        for (int r = 0; r < kRows; ++r) {
            const float m_other = __shfl_xor_sync(0xffffffffu, m_row[r], offset);
            const float l_other = __shfl_xor_sync(0xffffffffu, l_row[r], offset);
            const float m_new = fmaxf(m_row[r], m_other);
            const float self = m_row[r] == -CUDART_INF_F ? 0.f : exp2f(m_row[r] - m_new);
            const float other = m_other == -CUDART_INF_F ? 0.f : exp2f(m_other - m_new);
            m_row[r] = m_new;
            l_row[r] = l_row[r] * self + l_other * other;
#pragma unroll
            for (int e = 0; e < kChunk; ++e) {
                const float a_other = __shfl_xor_sync(0xffffffffu, acc[r][e], offset);
                acc[r][e] = acc[r][e] * self + a_other * other;
            }
        }
    }

    // Then the warps, through shared memory (the ring's bytes, once every warp is past it).
    __syncthreads();
    float(*s_acc)[kRows][kHeadDim] = reinterpret_cast<float(*)[kRows][kHeadDim]>(smem);
    if (slot == 0 && active) {
#pragma unroll
        for (int r = 0; r < kRows; ++r) {
#pragma unroll
            for (int e = 0; e < kChunk; ++e) s_acc[warp][own0 ^ r][part * kChunk + e] = acc[r][e];
            if (part == 0) {  // own0 = 0: storage order is row order
                s_m[warp][r] = m_row[r];
                s_l[warp][r] = l_row[r];
            }
        }
    }
    __syncthreads();

    write_rows<Element, kHeadDim, kRows>(p, cta, s_acc, s_m, s_l);
}

// Merge the splits' partial states of one row per CTA: LSE = log sum_s exp(LSE_s),
// O = sum_s exp(LSE_s - LSE) O_s. The splits are spread over the CTA's groups of kLanesPerSplit
// lanes (a batch-1 decode has few rows and many splits); each group merges its splits online
// (running maximum, rescaled sum), kBatch splits' LSE and O loaded together, so up to
// kGroups x kBatch splits cost one round of global loads, not the three of a max pass, a sum
// pass and a weighted pass; the groups then merge through shared memory.
template <typename Element, int kHeadDim>
__global__ void __launch_bounds__(kThreads) combine_kernel(const FlashAttnDecodeParams p) {
    constexpr int kChunks = kHeadDim / kChunk;
    constexpr int kLanesPerSplit = pow2_at_least(kChunks);
    constexpr int kGroups = kThreads / kLanesPerSplit;
    constexpr int kBatch = 8;  // a batch-1 call's 33 parts at head dim 128: one batch a group
    __shared__ float s_m[kGroups], s_total[kGroups];
    __shared__ float partial[kGroups][kHeadDim];

    // Launched before the split kernel finishes (programmatic dependent launch): this waits for
    // its completion and the visibility of its workspace writes. A plain launch returns at once.
    wait_for_prerequisite_grids();
    const int64_t rows_all = int64_t{p.batch} * p.heads_q * p.seqlen_q;
    const int64_t row = blockIdx.x;  // (b, h, i) with i fastest, as the LSE layout
    const float *lse_part = p.workspace + int64_t{p.num_splits} * rows_all * kHeadDim;
    const int group = threadIdx.x / kLanesPerSplit, c = threadIdx.x % kLanesPerSplit;
    const bool active = c < kChunks;

    // This group's splits, kBatch at a time; out = sum_s exp(LSE_s - run.m) O_s.
    MergeRunning run;
    float out[kChunk] = {};
    for (int s0 = group; s0 < p.num_splits; s0 += kGroups * kBatch) {
        float lse[kBatch], o[kBatch][kChunk];
#pragma unroll
        for (int j = 0; j < kBatch; ++j) {
            const int s = s0 + j * kGroups;
            // O is loaded whatever the LSE: every split wrote every row (O = 0, LSE = -inf when it
            // saw no key), and a load that waited for the LSE would be a second round trip.
            lse[j] = s < p.num_splits ? lse_part[s * rows_all + row] : -CUDART_INF_F;
            if (s < p.num_splits && active) {
                const float4 *src = reinterpret_cast<const float4 *>(p.workspace + (s * rows_all + row) * kHeadDim + c * kChunk);
#pragma unroll
                for (int e = 0; e < kChunk / 4; ++e) {
                    const float4 v = src[e];
                    o[j][4 * e] = v.x;
                    o[j][4 * e + 1] = v.y;
                    o[j][4 * e + 2] = v.z;
                    o[j][4 * e + 3] = v.w;
                }
            } else {
#pragma unroll
                for (int e = 0; e < kChunk; ++e) o[j][e] = 0.f;
            }
        }
        float weight[kBatch];
        const float rescale = run.fold(lse, weight);
#pragma unroll
        for (int e = 0; e < kChunk; ++e) out[e] *= rescale;
#pragma unroll
        for (int j = 0; j < kBatch; ++j)
#pragma unroll
            for (int e = 0; e < kChunk; ++e) out[e] = fmaf(weight[j], o[j][e], out[e]);
    }
    if (c == 0) {
        s_m[group] = run.m;
        s_total[group] = run.total;
    }
    if (active)
#pragma unroll
        for (int e = 0; e < kChunk; ++e) partial[group][c * kChunk + e] = out[e];
    __syncthreads();
    if (group != 0 || !active) return;

    // The groups' states, each itself a running merge.
    float weight[kGroups];
    MergeRunning all;
    all.fold(s_m, s_total, weight);
    float result[kChunk] = {};
    if (all.m != -CUDART_INF_F) {
#pragma unroll
        for (int g = 0; g < kGroups; ++g)
#pragma unroll
            for (int e = 0; e < kChunk; ++e) result[e] = fmaf(weight[g], partial[g][c * kChunk + e], result[e]);
#pragma unroll
        for (int e = 0; e < kChunk; ++e) result[e] /= all.total;
    }
    // A row no split saw a key of: O = 0, LSE = -inf.
    const float lse = all.lse();

    const int i = static_cast<int>(row % p.seqlen_q);
    const int h = static_cast<int>((row / p.seqlen_q) % p.heads_q);
    const int b = static_cast<int>(row / (int64_t{p.seqlen_q} * p.heads_q));
    if (p.lse && c == 0) p.lse[row] = lse;
    char *dst = static_cast<char *>(p.o) + (b * p.o_batch_stride + int64_t{i} * p.o_row_stride +
                                            int64_t{h} * p.o_head_stride + c * kChunk) *
                                               int64_t{sizeof(Element)};
    *reinterpret_cast<uint4 *>(dst) = pack(result, static_cast<const Element *>(nullptr));
}

// The split kernel over (splits, KV heads x row blocks of kRows, batch), as a programmatic
// dependent of the kernel ahead on the stream as the forward kernels are
// (FLASHATTN_DECODE_SERIAL_LAUNCH=1 launches it plainly); then, where it split the keys, the
// combine kernel, one CTA per query row.
template <typename Element, int kHeadDim, int kRows, typename SplitKernel>
cudaError_t launch_split_and_combine(const FlashAttnDecodeParams &p, cudaStream_t stream, SplitKernel split_kernel,
                                     int smem_bytes, KernelFacts &split_facts) {
    const int total_rows = (p.heads_q / p.heads_kv) * p.seqlen_q;
    const int row_blocks = (total_rows + kRows - 1) / kRows;
    cudaLaunchAttribute overlap = {};
    overlap.id = cudaLaunchAttributeProgrammaticStreamSerialization;
    overlap.val.programmaticStreamSerializationAllowed = 1;
    int device = -1;
    if (cudaGetDevice(&device) != cudaSuccess) (void)cudaGetLastError();
    cudaLaunchConfig_t config = {};
    config.gridDim = dim3(p.num_splits, p.heads_kv * row_blocks, p.batch);
    config.blockDim = dim3(kThreads);
    config.dynamicSmemBytes = static_cast<size_t>(smem_bytes);
    config.stream = stream;
    if (may_launch_as_dependent(split_kernel, device, split_facts, "FLASHATTN_DECODE_SERIAL_LAUNCH")) {
        config.attrs = &overlap;
        config.numAttrs = 1;
    }
    cudaError_t err = launch_opted_in(split_kernel, config, device, split_facts, p);
    if (err != cudaSuccess || p.num_splits == 1) return err;
    // One CTA per query row (at most i32::MAX rows: the Rust layer checks).
    config.gridDim = dim3(static_cast<unsigned>(int64_t{p.batch} * p.heads_q * p.seqlen_q));
    config.dynamicSmemBytes = 0;
    config.attrs = nullptr;
    config.numAttrs = 0;
    // Its CTAs get resident while the split kernel's last CTAs run, instead of launching after
    // the split kernel has drained (the gap is a few microseconds of a short decode call).
    const auto combine = combine_kernel<Element, kHeadDim>;
    // FLASHATTN_DECODE_SERIAL_COMBINE=1 launches it plainly, to time the difference.
    static KernelFacts facts;
    if (may_launch_as_dependent(combine, device, facts, "FLASHATTN_DECODE_SERIAL_COMBINE")) {
        config.attrs = &overlap;
        config.numAttrs = 1;
    }
    return cudaLaunchKernelEx(&config, combine, p);
}

// The lane kernel (head dim 256) with kRows rows a CTA.
template <typename Traits>
cudaError_t launch_rows(const FlashAttnDecodeParams &p, cudaStream_t stream) {
    static KernelFacts facts;
    return launch_split_and_combine<typename Traits::Element, Traits::kHeadDim, Traits::kRows>(
        p, stream, decode_kernel<Traits>, 0, facts);
}

// The launcher one instantiation file compiles per (dtype, head dim): the tensor-core kernel up to
// head dim 128 (eight rows a CTA); at 256 the lane kernel, with the row count per CTA picked from
// the GQA group and query length (fewer rows, fewer registers).
template <typename Element, int kHeadDim>
FlashAttnStatus launch_decode(FlashAttnDecodeParams *p, cudaStream_t stream) {
    const int rows = (p->heads_q / p->heads_kv) * p->seqlen_q;
    cudaError_t err;
    if constexpr (kHeadDim <= 128) {
        using Traits = MmaDecodeTraits<Element, kHeadDim>;
        static KernelFacts facts;
        err = launch_split_and_combine<Element, kHeadDim, Traits::kRows>(*p, stream, decode_mma_kernel<Traits>,
                                                                          Traits::kSmemBytes, facts);
    } else if (rows <= 1) {
        err = launch_rows<DecodeTraits<Element, kHeadDim, 1>>(*p, stream);
    } else if (rows <= 2) {
        err = launch_rows<DecodeTraits<Element, kHeadDim, 2>>(*p, stream);
    } else if (rows <= 4) {
        err = launch_rows<DecodeTraits<Element, kHeadDim, 4>>(*p, stream);
    } else {
        err = launch_rows<DecodeTraits<Element, kHeadDim, 8>>(*p, stream);
    }
    if (err != cudaSuccess) {
        (void)cudaGetLastError();  // a failed launch must not leak its error into the next call
        p->cuda_error = static_cast<int32_t>(err);
        return FLASHATTN_STATUS_CUDA_ERROR;
    }
    return FLASHATTN_STATUS_SUCCESS;
}

}  // namespace flashattn::decode
