// The mask and score unit both forward kernels use: which keys each query row sees (sequence
// end, causal diagonal, sliding window, top-left or bottom-right alignment), which key tiles are
// skipped, fully visible or need a per-element test, and the score modifiers (softcap, ALiBi)
// applied to every element. Written once; the kernels only call it on their S fragments.
//
// Visibility, with diag = seqlen_k - seqlen_q (bottom-right alignment) or 0 (top-left), the
// lengths being the tile's sequence's (SeqLens: the launch's when dense, one sequence's varlen):
//   query i sees key j  iff  0 <= j < seqlen_k  and  lo <= j - i <= hi,
//   lo = diag - window_left  (-inf when window_left < 0),
//   hi = diag + window_right (+inf when window_right < 0; causal makes window_right 0).
// Every row's visible keys are one interval and consecutive rows' intervals shift by one key, so
// the keys some row of a CTA sees form one interval too (KeyRange): the kernels walk only the
// key tiles that meet it (a window of w keys costs O(w), not O(seqlen_k)). A tile whose keys all
// of a lane's rows see needs no per-element test (RowMask), so only the tiles at the two ends of
// the range (one to three at each) go through the element loop; the middle runs mask-free.
//
// Score modifiers (FlashAttention-2's semantics and order): logit = softcap * tanh(scale * q.k /
// softcap) when softcap > 0, else scale * q.k; then the ALiBi bias -slope[head] * |i + diag - j|;
// then the mask. They touch every element of every tile, so they live in their own variant
// (common/features.cuh): the others run the mask alone and keep the plain kernels' arithmetic
// (scores in raw q.k units, exponent factor scale * log2(e)). With score modifiers the unit
// rewrites each score once (tanh, bias) and the softmax's exponent factor becomes softcap *
// log2(e) with a softcap (see ScoreMod). The dense variant also compiles the window out (no
// 64-bit bounds, no left edge inside a tile).
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <math_constants.h>
#include <stdint.h>

#include <type_traits>

#include "common/softmax.cuh"
#include "flashattn.h"

namespace flashattn {

// Where each accumulator register sits. Both kernels' S fragments have the mma.sync m16n8 C
// layout per warp (the sm90 kernel's wgmma m64nN accumulator gives each warp 16 rows in the same
// layout): lane (g = lane / 4, t = lane % 4), register i of n8 tile nt holds
//   row g + 8 * (i / 2) of the warp's 16-row slice, column 8 * nt + 2 * t + i % 2 of the tile.
struct AccFrag {
    __device__ __forceinline__ static constexpr int col(int nt, int i) { return nt * 8 + i % 2; }  // + 2t
};

// The query and key counts of the sequence a tile belongs to: p.seqlen_q / p.seqlen_k for a
// dense launch, the sequence's own for a varlen one (common/tile_work.cuh resolves them once).
struct SeqLens {
    int q, k;
};

// The diagonal and the two window bounds of a sequence, in 64 bits (diag - window can leave int32).
struct Diagonal {
    long long lo, hi;  // visible iff lo <= key - row <= hi (and 0 <= key < seqlen_k)

    __host__ __device__ __forceinline__ Diagonal(const FlashAttnFwdParams &p, SeqLens len) {
        const long long diag = p.causal_top_left ? 0 : static_cast<long long>(len.k) - len.q;
        const int right = p.causal ? 0 : p.window_right;
        lo = p.window_left < 0 ? INT64_MIN / 4 : diag - p.window_left;
        hi = right < 0 ? INT64_MAX / 4 : diag + right;
    }
};

// Bounds below this are as good as -infinity: a lane's rows lie less than 2^10 below the CTA's
// first row and key - row offsets inside a tile stay above -2^10, so every sum and comparison
// the masks form stays exact in int32 (sequence lengths stay 1024 below INT32_MAX).
constexpr int kFarLeft = -(1 << 20);

// The keys a CTA's rows [row_begin, row_begin + rows_here) see, worked out once per CTA in 64
// bits (the only 64-bit mask arithmetic): row row_begin + c sees the keys k with
// first0 + c <= k <= last0 + c and 0 <= k < seqlen_k, where first0 = row_begin + lo and last0 =
// row_begin + hi saturated to int32 ranges that keep those sums exact. The union over the rows
// is [begin, end), empty when end <= begin: the key tiles the CTA walks.
struct KeyRange {
    int begin, end;
    int first0;  // in [kFarLeft, seqlen_k]: at seqlen_k a row sees nothing
    int last0;   // in [kFarLeft, seqlen_k - 1]: at seqlen_k - 1 the sequence end is the bound
    int seqlen_k;  // the sequence's key count (the K/V loads bound their rows with it too)

    // kWindow: whether the kernel honours p.window_left / p.window_right (common/features.cuh).
    template <bool kWindow>
    __host__ __device__ __forceinline__ KeyRange(const FlashAttnFwdParams &p, SeqLens len, int row_begin,
                                                 int rows_here, std::bool_constant<kWindow>)
        : seqlen_k(len.k) {
        if (!kWindow || (p.window_left < 0 && p.window_right < 0)) {
            // No window (every call without one): int32 suffices, since row + diag lies in
            // (-seqlen_q, seqlen_k + block_m), and the short kernels notice the 64-bit path.
            first0 = kFarLeft;
            last0 = len.k - 1;
            if (p.causal) last0 = max(min(row_begin + (p.causal_top_left ? 0 : len.k - len.q), last0), kFarLeft);
        } else {
            const Diagonal d(p, len);
            const long long sk = len.k;
            auto clamp = [](long long k, long long hi) {
                return static_cast<int>(k < kFarLeft ? kFarLeft : (k > hi ? hi : k));
            };
            first0 = clamp(row_begin + d.lo, sk);
            last0 = clamp(row_begin + d.hi, sk - 1);
        }
        begin = max(first0, 0);
        end = min(max(last0 + rows_here, 0), len.k);
    }
    __host__ __device__ __forceinline__ bool empty() const { return end <= begin; }
    // Key tiles [n_block_min, n_block_max) of block_n keys meet [begin, end).
    __host__ __device__ __forceinline__ int n_block_min(int block_n) const { return begin / block_n; }
    __host__ __device__ __forceinline__ int n_block_max(int block_n) const { return (end + block_n - 1) / block_n; }
};

// The mask of one lane's fragment rows row0 + c, 0 <= c <= kRowSpan (sm80: the warp's m16
// slices, sm90: rows g and g + 8), row0 = row_begin + row_off: row row0 + c sees the keys
// k < seqlen_k with first <= k - c <= last. Two int32 sums of the CTA's bounds and this lane's
// row offset: two registers through the key loop, or a few instructions a tile where ptxas
// recomputes them (it did, from 64-bit launch constants, when they were computed here in 64
// bits: a dozen instructions on every key tile, 3-6% on the short seed-suite kernels).
template <int kRowSpan>
struct RowMask {
    int first, last;
    int seqlen_k;  // the sequence's key count: the same register as the kernel's K/V load bound

    __device__ __forceinline__ RowMask(const FlashAttnFwdParams &, const KeyRange &keys, int row_off)
        : first(min(keys.first0 + row_off, keys.seqlen_k)),
          last(min(keys.last0 + row_off, keys.seqlen_k - 1)),
          seqlen_k(keys.seqlen_k) {}

    // Whether the key tile [key0, key0 + block_n) holds a key one of this lane's rows must not
    // see (or one past the sequence end): only then the per-element test runs. Per lane, so a
    // warp may diverge here, on boundary tiles only; the masked loop has no shuffles.
    __device__ __forceinline__ bool needs_mask(int key0, int block_n) const {
        return key0 - kRowSpan < first || key0 + block_n - 1 > last;
    }
};

// softcap and ALiBi as one per-element map of the raw score q.k, with the factor the softmax's
// exponent then applies: base-2 logit = factor * modified score, LSE = max * factor * ln 2 +
// ln(sum). kOn = false is the plain kernel: nothing here, nothing loaded.
template <typename Element, bool kOn>
struct ScoreMod {
    __device__ __forceinline__ ScoreMod(const FlashAttnFwdParams &, SeqLens, int, int) {}
    // The softmax's exponent factor (scores to base-2 logits) and the factor from the row max to
    // LSE's natural units.
    __device__ __forceinline__ float exp_factor(const FlashAttnFwdParams &p) const { return p.softmax_scale * kLog2e; }
    __device__ __forceinline__ float lse_factor(const FlashAttnFwdParams &p) const { return p.softmax_scale; }
};

// tanh for the softcap. bf16 P carries 8 bits, and tanh.approx (one MUFU.TANH, relative error
// 2^-11) is far inside that: a framework that computes softcap in bf16 rounds its tanh coarser.
// f16 P carries 11 bits, the same as tanh.approx, so f16 takes 1 - 2 / (1 + 2^(2x log2 e))
// (ex2 and rcp, relative error ~2^-21 for |x| >= 1/4) and a short series below that.
template <typename Element>
__device__ __forceinline__ float softcap_tanh(float x);

template <>
__device__ __forceinline__ float softcap_tanh<__nv_bfloat16>(float x) {
    float y;
    asm("tanh.approx.f32 %0, %1;\n" : "=f"(y) : "f"(x));
    return y;
}

template <>
__device__ __forceinline__ float softcap_tanh<__half>(float x) {
    // e = +inf for large x gives r = 0 and tanh = 1; e = 0 gives r = 1 and tanh = -1.
    const float e = fast_exp2(x * (2.f * kLog2e));
    float r;
    asm("rcp.approx.ftz.f32 %0, %1;\n" : "=f"(r) : "f"(1.f + e));
    const float tanh_exp = __fmaf_rn(-2.f, r, 1.f);
    // 1 - 2r cancels for small x: its error is absolute (~2^-23), so a large cap (logit = cap *
    // tanh) would turn it into a logit error of cap * 2^-23 whatever the logit. Below |x| = 1/4
    // the odd Taylor series to x^9 is exact to 2^-27 relative instead; a select, not a branch,
    // keeps the warp converged.
    const float x2 = x * x;
    float poly = __fmaf_rn(x2, 62.f / 2835.f, -17.f / 315.f);
    poly = __fmaf_rn(x2, poly, 2.f / 15.f);
    poly = __fmaf_rn(x2, poly, -1.f / 3.f);
    const float tanh_series = __fmaf_rn(x * x2, poly, x);
    return fabsf(x) < 0.25f ? tanh_series : tanh_exp;
}

// Two softcap tanh values at once (adjacent keys of one row). Both go through the f32 path:
// tanh.approx.f16x2 is no cheaper on sm_90 (ptxas emits two MUFU.TANH.F16 plus the packing and
// unpacking): on the H100 the bf16 softcap shapes cost 1.13-1.32x plain attention with it and
// 1.05-1.25x with two f32 tanh, in the same run (docs/benchmarks/2026-11-25-h100.md).
template <typename Element>
__device__ __forceinline__ float2 softcap_tanh2(float a, float b) {
    return make_float2(softcap_tanh<Element>(a), softcap_tanh<Element>(b));
}

template <typename Element>
struct ScoreMod<Element, true> {
    float pre;     // the raw score's factor inside tanh: scale / softcap (unused without softcap)
    float factor;  // the softmax's exponent factor: softcap * log2 e, or scale * log2 e
    float slope;   // -slope[head] * log2 e / factor (0: no ALiBi)
    float row_diag;  // this lane's first fragment row + diag: the ALiBi distance is key - c - row_diag

    // row0: this lane's first fragment row (as for RowMask).
    __device__ __forceinline__ ScoreMod(const FlashAttnFwdParams &p, SeqLens len, int head, int row0) {
        const bool cap = p.softcap > 0.f;
        pre = cap ? p.softmax_scale / p.softcap : 0.f;
        factor = (cap ? p.softcap : p.softmax_scale) * kLog2e;
        slope = p.alibi_slopes ? -p.alibi_slopes[head] * kLog2e / factor : 0.f;
        // row0 + diag lies in (-seqlen_q, seqlen_k + block_m): no int32 overflow.
        row_diag = static_cast<float>(row0 + (p.causal_top_left ? 0 : len.k - len.q));
    }
    __device__ __forceinline__ float exp_factor(const FlashAttnFwdParams &) const { return factor; }
    __device__ __forceinline__ float lse_factor(const FlashAttnFwdParams &) const { return factor * kLn2; }

    // The modified scores of raw scores s0, s1 (adjacent keys of one row) at signed distances
    // dist = key - row - diag, in units
    // of 1 / factor base-2 logits: tanh(s * pre) with a softcap (the cap itself is in factor),
    // else s; plus the ALiBi bias. The softmax multiplies by factor inside its exponent FFMA, as
    // the plain kernels do with scale * log2 e, so neither feature pays a multiply for it.
    template <bool kSoftcap, bool kAlibi>
    __device__ __forceinline__ float2 logits(float s0, float s1, float dist0, float dist1) const {
        const float2 x = kSoftcap ? softcap_tanh2<Element>(s0 * pre, s1 * pre) : make_float2(s0, s1);
        if (!kAlibi) return x;
        return make_float2(__fmaf_rn(fabsf(dist0), slope, x.x), __fmaf_rn(fabsf(dist1), slope, x.y));
    }
};

// Apply the score modifiers and the mask to one warp's m16 slice of S (kNTiles n8 tiles) for
// the key tile starting at key0: the slice's rows are this lane's fragment rows from row_off on
// (row_off: the slice's offset from the lane's first row), t = lane % 4. Masked elements become
// -inf, which the softmax turns into exact zeros; a row that sees nothing keeps max = -inf and
// sum = 0.
// kWindow: whether a window can put a bound left of the tile (without one, only the diagonal
// and the sequence end cut a tile, both from the right).
template <bool kWindow, typename Element, bool kScoreMod, int kNTiles, int kRowSpan>
__device__ __forceinline__ void apply_score_mask(float (&s)[kNTiles][4], const FlashAttnFwdParams &p,
                                                 const RowMask<kRowSpan> &mask,
                                                 const ScoreMod<Element, kScoreMod> &mod, int row_off, int key0,
                                                 int t, int block_n) {
    const int col0 = key0 + 2 * t;
    if constexpr (kScoreMod) {
        auto modify = [&](auto softcap, auto alibi) {
            constexpr bool kSoftcap = decltype(softcap)::value, kAlibi = decltype(alibi)::value;
            // The distance key - row - diag of element (r, nt, e) is base + 8 (nt + 1 - r) + e:
            // the second row (8 below the first) at tile nt shares the first row's distance at
            // tile nt - 1, so kNTiles + 1 pairs of distances serve both rows. Exact while
            // |distance| < 2^24 (beyond, the bias is rounded like any float, on keys whose
            // weight is exp(-slope * 2^24) anyway).
            float dist[kAlibi ? kNTiles + 1 : 1][2];
            if constexpr (kAlibi) {
                const float base = static_cast<float>(col0 - row_off - 8) - mod.row_diag;
#pragma unroll
                for (int k = 0; k <= kNTiles; ++k)
#pragma unroll
                    for (int e = 0; e < 2; ++e) dist[k][e] = base + static_cast<float>(8 * k + e);
            }
#pragma unroll
            for (int r = 0; r < 2; ++r)
#pragma unroll
                for (int nt = 0; nt < kNTiles; ++nt) {
                    const int k = kAlibi ? nt + 1 - r : 0;
                    const float2 x = mod.template logits<kSoftcap, kAlibi>(
                        s[nt][2 * r], s[nt][2 * r + 1], kAlibi ? dist[k][0] : 0.f, kAlibi ? dist[k][1] : 0.f);
                    s[nt][2 * r] = x.x;
                    s[nt][2 * r + 1] = x.y;
                }
        };
        // Launch-uniform branches: each feature costs only where it is on.
        using On = std::true_type;
        using Off = std::false_type;
        const bool softcap = p.softcap > 0.f, alibi = p.alibi_slopes != nullptr;
        if (softcap && alibi)
            modify(On{}, On{});
        else if (softcap)
            modify(On{}, Off{});
        else
            modify(Off{}, On{});  // ALiBi alone (or, from a C caller, neither: slope 0)
    }
    if (mask.needs_mask(key0, block_n)) {
        // Per row, the visible keys as offsets from col0: element (nt, e) of a row holds key
        // col0 + 8 nt + e, visible iff lo <= 8 nt + e <= hi, a comparison with a constant. Tiles
        // that straddle only the diagonal or the sequence end (every masked tile without a
        // window) test one side.
        int lo[2], hi[2];
#pragma unroll
        for (int r = 0; r < 2; ++r) {
            // Clamped to one key beyond the tile on either side before subtracting col0, so a
            // far bound cannot overflow.
            const int c = row_off + 8 * r;
            lo[r] = max(mask.first + c, col0 - 1) - col0;
            hi[r] = max(min(mask.last + c, mask.seqlen_k - 1), col0 - 1) - col0;
        }
        auto apply = [&](auto two_sided) {
#pragma unroll
            for (int nt = 0; nt < kNTiles; ++nt)
#pragma unroll
                for (int i = 0; i < 4; ++i) {
                    const int k = AccFrag::col(nt, i), r = i / 2;
                    if (k > hi[r] || (decltype(two_sided)::value && k < lo[r])) s[nt][i] = -CUDART_INF_F;
                }
        };
        if (!kWindow || (lo[0] <= 0 && lo[1] <= 0))
            apply(std::false_type{});
        else
            apply(std::true_type{});
    }
}

// The normalisation of one finished row: O is multiplied by `inv`; its log-sum-exp is
// lse_max + ln(lse_sum), taken only where LSE is stored. The logarithm is lg2.approx (one MUFU
// op and a multiply, absolute error below 2^-21, inside the LSE bound's 1e-5): logf's range
// reduction and series were ~25 instructions a row, on the epilogue's critical path.
struct RowFinish {
    float inv;
    float lse_max;
    float lse_sum;  // 0 for a row that saw nothing (LSE = -inf)

    __device__ __forceinline__ float lse() const { return lse_sum > 0.f ? lse_max + __logf(lse_sum) : -CUDART_INF_F; }
};

// `max`: the row max in the softmax's units (raw scores, or base-2 logits with kScoreMod);
// `sum`: the row sum relative to exp2(exponent_offset(max)); exp_factor/lse_factor from
// ScoreMod. Without a sink (has_sink false) this is the plain kernels' epilogue, bit for bit:
// a row that saw no key gets O = 0 and LSE = -inf. An attention sink is one more logit (natural
// units) in the softmax's denominator and nowhere else: total = sum + exp(sink - max), O =
// acc / total, LSE = ln(exp(LSE_keys) + exp(sink)); a row that saw no key gets O = 0 and LSE =
// sink exactly (ln 1 = 0). Whichever of the row max and the sink is larger is the reference
// point, so nothing overflows: a sink far above every score gives O -> 0, LSE -> sink.
__device__ __forceinline__ RowFinish finish_row(float max, float sum, float exp_factor, float lse_factor,
                                                bool has_sink, float sink) {
    if (!has_sink) {
        // sum == 0 only for a row that saw no key: O = 0, LSE = -inf.
        return {sum > 0.f ? 1.f / sum : 0.f, max * lse_factor, sum > 0.f ? sum : 0.f};
    }
    if (!(sum > 0.f)) return {0.f, sink, 1.f};
    const float offset = exponent_offset(max, exp_factor);  // what `sum` is relative to
    const float sink2 = sink * kLog2e;
    if (sink2 <= offset) {
        const float total = sum + fast_exp2(sink2 - offset);
        return {1.f / total, max * lse_factor, total};
    }
    const float f = fast_exp2(offset - sink2);
    const float total = __fmaf_rn(sum, f, 1.f);
    return {f / total, sink, total};
}

}  // namespace flashattn
