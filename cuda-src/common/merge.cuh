// Merging softmax partial results. Attention over a key set split into parts gives per part an
// output O_i normalised by its own denominator and its log-sum-exp L_i; the whole is
//   L = log(sum_i exp(L_i)),   O = sum_i exp(L_i - L) * O_i.
// This is the one place that weighting is written for states that left a kernel (split-KV
// combine, cascade attention, ring attention): two at a time (MergeWeights) or many folded in
// batches (MergeRunning).
#pragma once

#include <math_constants.h>

namespace flashattn {

// Weights of two partial states and the merged LSE. A state with LSE = -inf saw no key and
// contributes nothing (weight 0, whatever its O holds); if neither saw a key the merge is
// O = 0, LSE = -inf, as for a forward row with no visible key.
struct MergeWeights {
    float a, b, lse;

    __device__ __forceinline__ MergeWeights(float lse_a, float lse_b) {
        const float m = fmaxf(lse_a, lse_b);
        if (m == -CUDART_INF_F) {
            a = b = 0.f;
            lse = -CUDART_INF_F;
            return;
        }
        // The larger state gets exp(0) = 1 before normalisation: no overflow, and the merge of
        // a state with an empty one returns the state's O exactly.
        const float ea = expf(lse_a - m), eb = expf(lse_b - m);
        const float total = ea + eb;
        lse = m + logf(total);
        a = ea / total;
        b = eb / total;
    }

    __device__ __forceinline__ float apply(float o_a, float o_b) const {
        return (a == 0.f ? 0.f : a * o_a) + (b == 0.f ? 0.f : b * o_b);
    }
};

// Many partial states folded in batches (the decode combine's parts, then its lane groups), so a
// batch's LSEs and O's can be loaded together: the running maximum LSE m and total = sum_i
// exp(L_i - m) * t_i, where t_i is 1 for a normalised state and its own total for a state that is
// itself a MergeRunning. The caller keeps its O sum, sum_i exp(L_i - m) * (t_i O_i), scales it by
// what each fold returns and divides by total at the end.
struct MergeRunning {
    float m, total;

    __device__ __forceinline__ MergeRunning() {
        m = -CUDART_INF_F;
        total = 0.f;
    }

    // Fold in kN states (maxima m_in, totals t_in): returns the factor for the O sum so far and
    // writes each state's weight (0 for a state that saw no key; all 0 and factor 1 while no
    // state has).
    template <int kN>
    __device__ __forceinline__ float fold(const float (&m_in)[kN], const float (&t_in)[kN], float (&weight)[kN]) {
        float m_new = m;
#pragma unroll
        for (int j = 0; j < kN; ++j) m_new = fmaxf(m_new, m_in[j]);
        if (m_new == -CUDART_INF_F) {
#pragma unroll
            for (int j = 0; j < kN; ++j) weight[j] = 0.f;
            return 1.f;
        }
        const float rescale = expf(m - m_new);  // 0 while m = -inf
        total *= rescale;
#pragma unroll
        for (int j = 0; j < kN; ++j) {
            weight[j] = expf(m_in[j] - m_new);
            total = fmaf(weight[j], t_in[j], total);
        }
        m = m_new;
        return rescale;
    }
    // Normalised states, by their LSEs.
    template <int kN>
    __device__ __forceinline__ float fold(const float (&lse)[kN], float (&weight)[kN]) {
        float ones[kN];
#pragma unroll
        for (int j = 0; j < kN; ++j) ones[j] = 1.f;
        return fold(lse, ones, weight);
    }
    // The merged LSE: -inf if no state saw a key.
    __device__ __forceinline__ float lse() const { return m == -CUDART_INF_F ? -CUDART_INF_F : m + logf(total); }
};

}  // namespace flashattn
