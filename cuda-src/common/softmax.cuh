// The online softmax's arithmetic, in base 2, for every kernel (the portable and Hopper forward
// kernels, decode's split kernel, and the softcap's tanh in common/mask.cuh).
//
// A row's max stays in raw score units, so the LSE comes from it with one rounding; the exponent
// offset is round(max * c), c = softmax_scale * log2(e) (softcap * log2(e) under a softcap), and
// a score s becomes exp2(s * c - offset). Each key tile moves the offset to the new max and
// rescales what was summed before by alpha = exp2(old max * c - offset): an unchanged max gives
// alpha = exp2(0) = 1 exactly, which lets the kernels skip the rescale of O.
#pragma once

#include <cuda_runtime.h>
#include <math_constants.h>

namespace flashattn {

constexpr float kLog2e = 1.4426950408889634f;
constexpr float kLn2 = 0.6931471805599453f;

// 2^x on the special-function unit; ex2.approx(-inf) = +0, which the masked scores rely on.
__device__ __forceinline__ float fast_exp2(float x) {
    float y;
    asm("ex2.approx.ftz.f32 %0, %1;\n" : "=f"(y) : "f"(x));
    return y;
}

// Largest |round(row max * c)| for which the forward kernels use the fused exponent (see the
// portable kernel's loop, sm80/fwd_kernel.cuh). 2^8 bounds the residual at the max element by
// 2^-16: 16x below half an fp16 ulp.
constexpr float kFusedExpLimit = 256.f;

// The exponent offset of a row whose max (raw score units) is `max`: round(max * c). A row with
// nothing visible yet keeps max = -inf; 0 instead keeps exp2(-inf - -inf) = NaN out of it.
__device__ __forceinline__ float exponent_offset(float max, float scale_log2) {
    return max == -CUDART_INF_F ? 0.f : __fmul_rn(max, scale_log2);
}

// exp2(x * c - offset). Exact form: x * c rounded on its own (__fmul_rn, no FMA contraction),
// like the offset, so x == max gives exp2(0) = 1 exactly. Fused form: one FFMA and one
// rounding, with a residual at x == max (harmless below kFusedExpLimit).
template <bool kFused = false>
__device__ __forceinline__ float exp2_from_offset(float x, float scale_log2, float offset) {
    return fast_exp2(kFused ? __fmaf_rn(x, scale_log2, -offset) : __fmul_rn(x, scale_log2) - offset);
}

// One row's step of the forward kernels' online softmax, for a row whose scores are spread over
// the four lanes of a quad (the mma.sync m16n8 and wgmma accumulator layouts): `thread_max` is
// this lane's max over its scores of the tile and the row's max so far; the quad's max becomes
// the row's `max`, and the step returns the new offset and the factor alpha that rescales the
// row's sum and O.
struct RowStep {
    float offset, alpha;
};
__device__ __forceinline__ RowStep advance_row_max(float &max, float thread_max, float scale_log2) {
    float m_new = fmaxf(thread_max, __shfl_xor_sync(0xffffffff, thread_max, 1));
    m_new = fmaxf(m_new, __shfl_xor_sync(0xffffffff, m_new, 2));
    RowStep step;
    step.offset = exponent_offset(m_new, scale_log2);
    step.alpha = exp2_from_offset(max, scale_log2, step.offset);
    max = m_new;
    return step;
}

}  // namespace flashattn
