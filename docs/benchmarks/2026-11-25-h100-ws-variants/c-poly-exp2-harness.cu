// A/B harness for FLASHATTN_POLY_EXP_EVERY: the ws kernel's max error against an f64 CPU
// reference on small shapes, and its time on long shapes (plain and softcap).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <cmath>
#include <algorithm>
#include "sm90/ws_kernel.cuh"
#include "sm90/fwd_kernel.cuh"
using namespace flashattn;
using namespace flashattn::sm90;
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("CUDA %s at %d\n", cudaGetErrorString(e), __LINE__); exit(1);} } while (0)
template <typename T> T from_f(float);
template <> __half from_f<__half>(float f) { return __float2half(f); }
template <> __nv_bfloat16 from_f<__nv_bfloat16>(float f) { return __float2bfloat16(f); }
template <typename T> float to_f(T);
template <> float to_f<__half>(__half h) { return __half2float(h); }
template <> float to_f<__nv_bfloat16>(__nv_bfloat16 h) { return __bfloat162float(h); }
static uint64_t rng = 88172645463325252ull;
float frand() { rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17; return ((rng >> 40) / float(1 << 24)) * 2.f - 1.f; }
struct Shape { int b, h, sq, sk, causal; float softcap; float amp; };

template <typename T, int D, typename WsT>
void run(const Shape &s, bool check, int reps, const char *tag) {
    const size_t nq = size_t(s.b) * s.sq * s.h * D, nk = size_t(s.b) * s.sk * s.h * D;
    std::vector<T> hq(nq), hk(nk), hv(nk);
    for (auto &x : hq) x = from_f<T>(frand() * s.amp);
    for (auto &x : hk) x = from_f<T>(frand() * s.amp);
    for (auto &x : hv) x = from_f<T>(frand());
    T *q, *k, *v, *o;
    CK(cudaMalloc(&q, nq * 2)); CK(cudaMalloc(&k, nk * 2)); CK(cudaMalloc(&v, nk * 2)); CK(cudaMalloc(&o, nq * 2));
    CK(cudaMemcpy(q, hq.data(), nq * 2, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(k, hk.data(), nk * 2, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(v, hv.data(), nk * 2, cudaMemcpyHostToDevice));
    CK(cudaMemset(o, 0xff, nq * 2));
    FlashAttnFwdParams p; memset(&p, 0, sizeof p);
    p.q = q; p.k = k; p.v = v; p.o = o; p.lse = nullptr;
    p.q_row_stride = p.o_row_stride = int64_t(s.h) * D; p.q_head_stride = p.o_head_stride = D;
    p.q_batch_stride = p.o_batch_stride = int64_t(s.sq) * s.h * D;
    p.k_row_stride = p.v_row_stride = int64_t(s.h) * D; p.k_head_stride = p.v_head_stride = D;
    p.k_batch_stride = p.v_batch_stride = int64_t(s.sk) * s.h * D;
    p.batch = s.b; p.seqlen_q = s.sq; p.seqlen_k = s.sk; p.heads_q = s.h; p.heads_kv = s.h; p.head_dim = D;
    p.softmax_scale = 1.f / sqrtf(float(D)); p.causal = s.causal; p.softcap = s.softcap;
    p.dtype = std::is_same<T, __half>::value ? FLASHATTN_DTYPE_F16 : FLASHATTN_DTYPE_BF16;
    p.compute_capability = 90; p.config_id = -1; p.window_left = -1; p.window_right = -1;
    auto launch = [&]() {
        return s.softcap > 0 ? launch_ws<WsT, Variant::kScoreMod, -7>(&p, 0) : launch_ws<WsT, Variant::kDense, -7>(&p, 0);
    };
    FlashAttnStatus st = launch();
    if (st != FLASHATTN_STATUS_SUCCESS || p.config_used == -7) { printf("launch failed %d %d\n", st, p.config_used); exit(1); }
    CK(cudaDeviceSynchronize());
    if (check) {
        std::vector<T> ho(nq);
        CK(cudaMemcpy(ho.data(), o, nq * 2, cudaMemcpyDeviceToHost));
        double maxerr = 0, maxref = 0; size_t bad = 0;
        std::vector<double> sc(s.sk);
        for (int b = 0; b < s.b; ++b) for (int h = 0; h < s.h; ++h) for (int i = 0; i < s.sq; ++i) {
            double m = -INFINITY;
            const int diag = s.sk - s.sq;
            for (int j = 0; j < s.sk; ++j) {
                if (s.causal && j > i + diag) { sc[j] = -INFINITY; continue; }
                double d = 0;
                for (int c = 0; c < D; ++c) d += double(to_f(hq[((size_t(b) * s.sq + i) * s.h + h) * D + c])) * to_f(hk[((size_t(b) * s.sk + j) * s.h + h) * D + c]);
                d *= p.softmax_scale;
                if (s.softcap > 0) d = s.softcap * tanh(d / s.softcap);
                sc[j] = d; m = std::max(m, d);
            }
            double sum = 0;
            for (int j = 0; j < s.sk; ++j) { sc[j] = sc[j] == -INFINITY ? 0 : exp(sc[j] - m); sum += sc[j]; }
            for (int c = 0; c < D; ++c) {
                double acc = 0;
                for (int j = 0; j < s.sk; ++j) if (sc[j] != 0) acc += sc[j] * to_f(hv[((size_t(b) * s.sk + j) * s.h + h) * D + c]);
                const double want = sum > 0 ? acc / sum : 0;
                const float got = to_f(ho[((size_t(b) * s.sq + i) * s.h + h) * D + c]);
                if (!std::isfinite(got)) { ++bad; continue; }
                maxerr = std::max(maxerr, fabs(got - want)); maxref = std::max(maxref, fabs(want));
            }
        }
        printf("%s check %s D%d B%d H%d Sq%d Sk%d causal%d softcap%g amp%g: max err %.4e (|ref| %.3g) bad %zu\n", tag,
               p.dtype == FLASHATTN_DTYPE_F16 ? "f16" : "bf16", D, s.b, s.h, s.sq, s.sk, s.causal, s.softcap, s.amp, maxerr, maxref, bad);
    }
    if (reps > 0) {
        cudaEvent_t a, b2; CK(cudaEventCreate(&a)); CK(cudaEventCreate(&b2));
        double flops = 4.0 * s.b * s.h * double(s.sq) * s.sk * D * (s.causal ? 0.5 : 1.0);
        std::vector<float> t;
        for (int w = 0; w < 3; ++w) launch();
        for (int round = 0; round < 15; ++round) {
            CK(cudaEventRecord(a));
            for (int r = 0; r < reps; ++r) launch();
            CK(cudaEventRecord(b2)); CK(cudaEventSynchronize(b2));
            float ms; CK(cudaEventElapsedTime(&ms, a, b2)); t.push_back(ms / reps);
        }
        std::sort(t.begin(), t.end());
        printf("%s time %s D%d B%d H%d S%d causal%d softcap%g: p50 %.1f us (%.0f TFLOP/s) min %.1f\n", tag,
               p.dtype == FLASHATTN_DTYPE_F16 ? "f16" : "bf16", D, s.b, s.h, s.sq, s.causal, s.softcap, t[7] * 1e3, flops / t[7] / 1e9, t[0] * 1e3);
    }
    cudaFree(q); cudaFree(k); cudaFree(v); cudaFree(o);
}

int main(int argc, char **argv) {
    using B = __nv_bfloat16; using H = __half;
    const char *tag = argc > 1 ? argv[1] : "?";
    std::vector<Shape> small = {{1, 2, 300, 239, 0, 0.f, 1.f}, {1, 2, 300, 239, 1, 0.f, 3.f}, {1, 2, 257, 513, 0, 30.f, 4.f}, {1, 2, 129, 700, 1, 5.f, 2.f}};
    for (auto &s : small) {
        run<B, 64, WsTraits<B, 64, 128, 4>>(s, true, 0, tag);
        run<H, 64, WsTraits<H, 64, 128, 4>>(s, true, 0, tag);
        run<B, 128, WsTraits<B, 128, 128, 3>>(s, true, 0, tag);
        run<H, 128, WsTraits<H, 128, 128, 3>>(s, true, 0, tag);
        run<B, 256, WsTraits<B, 256, 64, 2>>(s, true, 0, tag);
    }
    run<B, 64, WsTraits<B, 64, 128, 4>>({4, 32, 4096, 4096, 0, 0.f, 1.f}, false, 10, tag);
    run<B, 64, WsTraits<B, 64, 128, 4>>({4, 32, 4096, 4096, 0, 30.f, 1.f}, false, 10, tag);
    run<H, 64, WsTraits<H, 64, 128, 4>>({4, 32, 4096, 4096, 0, 0.f, 1.f}, false, 10, tag);
    run<B, 128, WsTraits<B, 128, 128, 3>>({2, 16, 8192, 8192, 0, 0.f, 1.f}, false, 5, tag);
    run<B, 128, WsTraits<B, 128, 128, 3>>({2, 16, 8192, 8192, 0, 30.f, 1.f}, false, 5, tag);
    run<B, 128, WsTraits<B, 128, 128, 3>>({2, 16, 8192, 8192, 1, 0.f, 1.f}, false, 5, tag);
    run<B, 128, WsTraits<B, 128, 128, 3>>({8, 16, 2048, 2048, 0, 0.f, 1.f}, false, 10, tag);
    run<H, 128, WsTraits<H, 128, 128, 3>>({2, 16, 8192, 8192, 0, 0.f, 1.f}, false, 5, tag);
    run<B, 256, WsTraits<B, 256, 64, 2>>({2, 8, 8192, 8192, 0, 0.f, 1.f}, false, 5, tag);
    run<B, 256, WsTraits<B, 256, 64, 2>>({2, 8, 8192, 8192, 0, 30.f, 1.f}, false, 5, tag);
    return 0;
}
