// How do the matrix units sum a k-step's products into an f32 accumulator? Call FR's open
// failure (the page) points at it: the naive yardstick's f32 scores are sequential sums rounded
// to nearest; a kernel's come from mma.sync (the sm80 kernels) or wgmma (the sm90 ones). This
// probe times nothing. It runs one m16n16k16 f16 x f16 + f32 product per trial through WMMA
// (mma.sync's m16n8k16 underneath), on random inputs whose exponents spread over +-12 binades,
// and compares every output bit for bit with models of the sum: exact then rounded to nearest,
// or blocks of B products plus the accumulator aligned to the largest term, each term cut to
// KEEP bits below that term's leading bit (truncated), summed exactly, then truncated or rounded
// to f32. The model that matches every output is the one to put into the naive's overflow path.
//
//   nvcc -O3 -gencode=arch=compute_90a,code=sm_90a -gencode=arch=compute_80,code=sm_80 \
//        -o mma_accumulation_probe mma_accumulation_probe.cu && ./mma_accumulation_probe 400
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <mma.h>

#define CHECK(call)                                                                               \
    do {                                                                                          \
        cudaError_t e_ = (call);                                                                  \
        if (e_ != cudaSuccess) {                                                                  \
            fprintf(stderr, "%s: %s\n", #call, cudaGetErrorString(e_));                          \
            exit(2);                                                                              \
        }                                                                                         \
    } while (0)

// One warp per trial: D = A (16x16, row-major) x B (16x16, column-major) + C (16x16 f32).
__global__ void wmma_trials(const __half *a, const __half *b, const float *c, float *d) {
    using namespace nvcuda;
    const int trial = blockIdx.x;
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::load_matrix_sync(fa, a + trial * 256, 16);
    wmma::load_matrix_sync(fb, b + trial * 256, 16);
    wmma::load_matrix_sync(acc, c + trial * 256, 16, wmma::mem_row_major);
    wmma::mma_sync(acc, fa, fb, acc);
    wmma::store_matrix_sync(d + trial * 256, acc, 16, wmma::mem_row_major);
}

// Cut x to a multiple of 2^quantum_exp, toward zero.
static double cut(double x, int quantum_exp) {
    const double q = std::ldexp(1.0, quantum_exp);
    return std::trunc(x / q) * q;
}

// f32 of an exact double: rounded to nearest, or truncated toward zero.
static float to_f32(double x, bool truncate) {
    if (!truncate) return static_cast<float>(x);
    float f = static_cast<float>(x);
    if (std::fabs(static_cast<double>(f)) > std::fabs(x)) f = std::nextafter(f, 0.0f);
    return f;
}

struct Model {
    int block;      // products summed per step (16: one step per k16); 0: exact sum of all
    int keep;       // bits kept below the largest term's leading bit (with it)
    bool truncate;  // the step's result to f32: truncated, else rounded to nearest
};

static float model_dot(const Model &m, const float *prod, float acc) {
    if (m.block == 0) {
        double s = acc;
        for (int k = 0; k < 16; ++k) s += prod[k];
        return to_f32(s, m.truncate);
    }
    for (int k0 = 0; k0 < 16; k0 += m.block) {
        double big = std::fabs(static_cast<double>(acc));
        for (int k = k0; k < k0 + m.block; ++k) big = std::fmax(big, std::fabs(static_cast<double>(prod[k])));
        if (big == 0.0) continue;
        const int lead = std::ilogb(big);
        const int quantum = lead - m.keep + 1;
        double s = cut(acc, quantum);
        for (int k = k0; k < k0 + m.block; ++k) s += cut(prod[k], quantum);
        acc = to_f32(s, m.truncate);
    }
    return acc;
}

int main(int argc, char **argv) {
    const int trials = argc > 1 ? atoi(argv[1]) : 400;
    std::mt19937_64 rng(20261128);
    std::uniform_int_distribution<int> binade(-12, 12);
    std::uniform_real_distribution<float> frac(1.0f, 2.0f);
    auto draw = [&] { return (rng() & 1 ? -1.0f : 1.0f) * std::ldexp(frac(rng), binade(rng)); };
    std::vector<__half> a(trials * 256), b(trials * 256);
    std::vector<float> c(trials * 256), d(trials * 256);
    for (auto &x : a) x = __float2half(draw());
    for (auto &x : b) x = __float2half(draw());
    for (auto &x : c) x = draw() * 16.0f;
    __half *da, *db;
    float *dc, *dd;
    CHECK(cudaMalloc(&da, a.size() * sizeof(__half)));
    CHECK(cudaMalloc(&db, b.size() * sizeof(__half)));
    CHECK(cudaMalloc(&dc, c.size() * sizeof(float)));
    CHECK(cudaMalloc(&dd, d.size() * sizeof(float)));
    CHECK(cudaMemcpy(da, a.data(), a.size() * sizeof(__half), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(db, b.data(), b.size() * sizeof(__half), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dc, c.data(), c.size() * sizeof(float), cudaMemcpyHostToDevice));
    wmma_trials<<<trials, 32>>>(da, db, dc, dd);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(d.data(), dd, d.size() * sizeof(float), cudaMemcpyDeviceToHost));

    std::vector<Model> models;
    for (bool t : {false, true}) models.push_back({0, 0, t});
    for (int block : {4, 8, 16})
        for (int keep = 23; keep <= 30; ++keep)
            for (bool t : {false, true}) models.push_back({block, keep, t});
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, 0));
    printf("device %s (sm %d.%d), %d trials x 256 outputs; bit-exact matches per model:\n", prop.name, prop.major,
           prop.minor, trials);
    for (const Model &m : models) {
        long match = 0, total = 0;
        double worst_ulps = 0;
        for (int t = 0; t < trials; ++t)
            for (int i = 0; i < 16; ++i)
                for (int j = 0; j < 16; ++j) {
                    float prod[16];
                    for (int k = 0; k < 16; ++k)
                        prod[k] = __half2float(a[t * 256 + i * 16 + k]) * __half2float(b[t * 256 + j * 16 + k]);
                    const float want = model_dot(m, prod, c[t * 256 + i * 16 + j]);
                    const float got = d[t * 256 + i * 16 + j];
                    ++total;
                    if (std::memcmp(&want, &got, 4) == 0) {
                        ++match;
                    } else {
                        const double ulp = std::ldexp(1.0, std::ilogb(std::fabs(got) + 1e-30) - 23);
                        worst_ulps = std::fmax(worst_ulps, std::fabs(static_cast<double>(want) - got) / ulp);
                    }
                }
        printf("  %-6s block %2d keep %2d -> f32 %-8s %7.3f%%  (worst miss %.1f ulps)\n", m.block ? "steps" : "exact",
               m.block, m.keep, m.truncate ? "truncated" : "rounded", 100.0 * match / total, worst_ulps);
    }
    return 0;
}
