// Merging softmax partial results. Attention over a key set split into parts gives per part an
// output O_i normalised by its own denominator and its log-sum-exp L_i; the whole is
//   L = log(sum_i exp(L_i)),   O = sum_i exp(L_i - L) * O_i.
// This is the one place that weighting is written for states that left a kernel (split-KV
// combine, cascade attention, ring attention).
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

}  // namespace flashattn
