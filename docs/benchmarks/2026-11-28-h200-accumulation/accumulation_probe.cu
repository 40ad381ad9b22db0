// How do Hopper's matrix units sum a k-step's products into an f32 accumulator? The naive
// yardstick (crates/flashattn-ref, naive_same_precision) keeps a row's scores in f32 when they
// overflow the input type, "as a fused kernel would"; a fused kernel's scores come from these
// units, so the yardstick should sum as they do. This probe times nothing. It puts random f16
// products through both units our kernels use:
//   - mma.sync (the sm80 kernels, also on Hopper), through WMMA m16n16k16: D = A B + C, K = 16;
//   - wgmma (the sm90 kernels): m64n64k16, both operands in shared memory in the 128-byte
//     swizzle layout of cuda-src/sm90/wgmma.cuh, four k16 steps, K = 64;
// with input exponents spread over +-12 binades, and compares every output bit for bit with
// models of the sum. A model sums K products in blocks of B: the block's products (and the
// accumulator, when `acc_aligned`) are aligned to the largest, each cut to KEEP bits below that
// term's leading bit (truncated), summed exactly, and the block's sum goes to f32 truncated or
// rounded to nearest (added to the accumulator in f32 first, when it was not aligned). "exact"
// sums each K exactly and rounds once. Before the random trials each unit runs integer inputs
// whose sums are exact; a mismatch there means the probe's own layouts are wrong, and it says so.
//
//   nvcc -std=c++17 -O3 -gencode=arch=compute_90a,code=sm_90a -I<repo>/cuda-src \
//        -o accumulation_probe accumulation_probe.cu && ./accumulation_probe 300 12 [DUMP_DIR]
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "accumulation_kernels.cuh"


// A trial of either unit: A [M][K] row-major, B stored as [N][K] (B column-major, like K in
// Q K^T), C and D [M][N] row-major, all f32 except A and B.
struct Shape {
    int m, n, k;
    __host__ __device__ constexpr int a_len() const { return m * k; }
    __host__ __device__ constexpr int b_len() const { return n * k; }
    __host__ __device__ constexpr int c_len() const { return m * n; }
};
constexpr Shape kMmaShape{16, 16, 16};
constexpr Shape kWgmmaShape{64, 64, 64};

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
    int block;         // products per step; 0: the exact sum of all K, rounded once
    int keep;          // bits kept below the largest term's leading bit (with it)
    bool acc_aligned;  // the accumulator is one of the aligned terms, else added in f32 after
    bool truncate;     // a step's result to f32: truncated, else rounded to nearest
};

static float model_dot(const Model &m, const double *prod, int k_len, float acc) {
    if (m.block == 0) {
        double s = acc;
        for (int k = 0; k < k_len; ++k) s += prod[k];
        return to_f32(s, m.truncate);
    }
    for (int k0 = 0; k0 < k_len; k0 += m.block) {
        double big = m.acc_aligned ? std::fabs(static_cast<double>(acc)) : 0.0;
        for (int k = k0; k < k0 + m.block; ++k) big = std::fmax(big, std::fabs(prod[k]));
        if (big == 0.0) continue;
        const int quantum = std::ilogb(big) - m.keep + 1;
        double s = m.acc_aligned ? cut(acc, quantum) : 0.0;
        for (int k = k0; k < k0 + m.block; ++k) s += cut(prod[k], quantum);
        acc = m.acc_aligned ? to_f32(s, m.truncate) : to_f32(static_cast<double>(acc) + to_f32(s, m.truncate), m.truncate);
    }
    return acc;
}

struct Trials {
    std::vector<__half> a, b;
    std::vector<float> c, d;
};

// What the inputs are: small integers (every sum exact: the layout check), magnitudes spread
// over +-12 binades with random signs, or the same all positive (no cancellation, which
// separates the alignment from the sign handling).
enum class Draw { Exact, Wide, WidePositive };

static Trials draw_trials(const Shape &shape, int count, Draw kind, std::mt19937_64 &rng) {
    std::uniform_int_distribution<int> binade(-12, 12), small(-4, 4);
    std::uniform_real_distribution<float> frac(1.0f, 2.0f);
    auto sign = [&] { return kind == Draw::WidePositive || rng() & 1 ? 1.0f : -1.0f; };
    auto wide = [&] { return sign() * std::ldexp(frac(rng), binade(rng)); };
    auto draw = [&] { return kind == Draw::Exact ? static_cast<float>(small(rng)) : wide(); };
    Trials t;
    t.a.resize(static_cast<size_t>(count) * shape.a_len());
    t.b.resize(static_cast<size_t>(count) * shape.b_len());
    t.c.resize(static_cast<size_t>(count) * shape.c_len());
    t.d.assign(t.c.size(), NAN);
    for (auto &x : t.a) x = __float2half(draw());
    for (auto &x : t.b) x = __float2half(draw());
    for (auto &x : t.c) x = draw() * 16.0f;
    return t;
}

using Launch = std::function<void(const __half *, const __half *, const float *, float *, int)>;

static void run_on_device(const Launch &launch, Trials &t, int count) {
    __half *da, *db;
    float *dc, *dd;
    CHECK(cudaMalloc(&da, t.a.size() * sizeof(__half)));
    CHECK(cudaMalloc(&db, t.b.size() * sizeof(__half)));
    CHECK(cudaMalloc(&dc, t.c.size() * sizeof(float)));
    CHECK(cudaMalloc(&dd, t.d.size() * sizeof(float)));
    CHECK(cudaMemcpy(da, t.a.data(), t.a.size() * sizeof(__half), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(db, t.b.data(), t.b.size() * sizeof(__half), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dc, t.c.data(), t.c.size() * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemset(dd, 0xff, t.d.size() * sizeof(float)));
    launch(da, db, dc, dd, count);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(t.d.data(), dd, t.d.size() * sizeof(float), cudaMemcpyDeviceToHost));
    CHECK(cudaFree(da));
    CHECK(cudaFree(db));
    CHECK(cudaFree(dc));
    CHECK(cudaFree(dd));
}

// Bit-exact matches of `m` over every output, and the worst miss in ulps of the device's value.
static void score(const Shape &s, const Trials &t, int count, const Model &m, long &match, long &total,
                  double &worst_ulps) {
    std::vector<double> prod(s.k);
    match = total = 0;
    worst_ulps = 0;
    for (int tr = 0; tr < count; ++tr)
        for (int i = 0; i < s.m; ++i)
            for (int j = 0; j < s.n; ++j) {
                const __half *ar = &t.a[static_cast<size_t>(tr) * s.a_len() + i * s.k];
                const __half *br = &t.b[static_cast<size_t>(tr) * s.b_len() + j * s.k];
                for (int k = 0; k < s.k; ++k)
                    prod[k] = static_cast<double>(__half2float(ar[k])) * static_cast<double>(__half2float(br[k]));
                const size_t out = static_cast<size_t>(tr) * s.c_len() + i * s.n + j;
                const float want = model_dot(m, prod.data(), s.k, t.c[out]);
                const float got = t.d[out];
                ++total;
                if (std::memcmp(&want, &got, 4) == 0) {
                    ++match;
                } else {
                    const double ulp = std::ldexp(1.0, std::ilogb(std::fabs(got) + 1e-30) - 23);
                    worst_ulps = std::fmax(worst_ulps, std::fabs(static_cast<double>(want) - got) / ulp);
                }
            }
}

// The raw trials, for fitting models offline: A, B (f16 bits), C, D (f32), in that order.
static void dump(const char *dir, const char *name, const Trials &t) {
    if (!dir) return;
    char path[512];
    snprintf(path, sizeof path, "%s/%s.bin", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f) {
        fprintf(stderr, "cannot write %s\n", path);
        exit(2);
    }
    fwrite(t.a.data(), sizeof(__half), t.a.size(), f);
    fwrite(t.b.data(), sizeof(__half), t.b.size(), f);
    fwrite(t.c.data(), sizeof(float), t.c.size(), f);
    fwrite(t.d.data(), sizeof(float), t.d.size(), f);
    fclose(f);
}

static void probe(const char *name, const char *tag, const Shape &shape, const Launch &launch, int count,
                  std::mt19937_64 &rng, const char *dump_dir) {
    Trials layout = draw_trials(shape, 4, Draw::Exact, rng);
    run_on_device(launch, layout, 4);
    long match, total;
    double worst;
    score(shape, layout, 4, Model{0, 0, true, false}, match, total, worst);
    printf("%s (m%dn%dk%d): layout check on integer inputs: %ld of %ld outputs exact%s\n", name, shape.m, shape.n,
           shape.k, match, total, match == total ? "" : "  ** LAYOUT WRONG: the models below mean nothing **");

    Trials positive = draw_trials(shape, count, Draw::WidePositive, rng);
    run_on_device(launch, positive, count);
    std::string file = std::string(tag) + "-positive";
    dump(dump_dir, file.c_str(), positive);
    Trials t = draw_trials(shape, count, Draw::Wide, rng);
    run_on_device(launch, t, count);
    file = std::string(tag) + "-signed";
    dump(dump_dir, file.c_str(), t);
    printf("%s: %d trials each, bit-exact matches per model, all-positive inputs / signed inputs:\n", name, count);
    std::vector<Model> models{{0, 0, true, false}, {0, 0, true, true}};
    for (int block : {4, 8, 16})
        for (int keep = 23; keep <= 28; ++keep)
            for (bool aligned : {true, false})
                for (bool trunc : {false, true}) models.push_back({block, keep, aligned, trunc});
    for (const Model &m : models) {
        long match_pos, total_pos;
        double worst_pos;
        score(shape, positive, count, m, match_pos, total_pos, worst_pos);
        score(shape, t, count, m, match, total, worst);
        if (m.block == 0)
            printf("  exact sum of %d, f32 %-9s             ", shape.k, m.truncate ? "truncated" : "rounded");
        else
            printf("  block %2d keep %2d acc %-8s f32 %-9s", m.block, m.keep, m.acc_aligned ? "aligned" : "separate",
                   m.truncate ? "truncated" : "rounded");
        printf(" %8.3f%% / %8.3f%%  (worst misses %.1f / %.1f ulps)\n", 100.0 * match_pos / total_pos,
               100.0 * match / total, worst_pos, worst);
    }
}

int main(int argc, char **argv) {
    const int mma_count = argc > 1 ? atoi(argv[1]) : 300;
    const int wgmma_count = argc > 2 ? atoi(argv[2]) : 12;
    const char *dump_dir = argc > 3 ? argv[3] : nullptr;  // where to write the raw trials
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, 0));
    printf("device %s (sm %d.%d)\n", prop.name, prop.major, prop.minor);
    std::mt19937_64 rng(20261128);
    probe("mma.sync via WMMA", "mma", kMmaShape,
          [](const __half *a, const __half *b, const float *c, float *d, int n) { mma_trials<__half><<<n, 32>>>(a, b, c, d); },
          mma_count, rng, dump_dir);
    probe("wgmma", "wgmma", kWgmmaShape,
          [](const __half *a, const __half *b, const float *c, float *d, int n) { wgmma_trials<__half><<<n, 128>>>(a, b, c, d); },
          wgmma_count, rng, dump_dir);
    return 0;
}
