// The rest of what accumulation_probe.cu left unmeasured, dumped for fitting offline (fit.py):
// bf16 inputs (products over about 120 binades) and f16 inputs of which a third are subnormal,
// through the same two units (mma.sync via WMMA m16n16k16; wgmma m64n64k16 from swizzled shared
// memory, four k-steps). Each unit and type first runs small-integer inputs whose sums are exact
// (the layout check). Dumps: {mma,wgmma}-{bf16-positive,bf16-signed,f16-subnormal}.bin, each
// A, B (16-bit), C, D (f32) as in accumulation_probe.cu.
//
//   nvcc -std=c++17 -O3 -gencode=arch=compute_90a,code=sm_90a -I<repo>/cuda-src \
//        -o accumulation_dump accumulation_dump.cu && ./accumulation_dump 300 24 DIR
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "accumulation_kernels.cuh"


// The 16-bit values as their bits; C and D as f32.
struct Trials {
    std::vector<uint16_t> a, b;
    std::vector<float> c, d;
};

enum class Draw { Exact, Positive, Signed, Subnormal };

// bf16: binades +-30; f16: +-12, or (Subnormal) a third of the inputs in f16's subnormal range
// (2^-24 to 2^-15), signed.
template <typename T>
static uint16_t bits_of(float x) {
    T h;
    if constexpr (std::is_same_v<T, __half>)
        h = __float2half(x);
    else
        h = __float2bfloat16(x);
    uint16_t u;
    std::memcpy(&u, &h, 2);
    return u;
}

template <typename T>
static Trials draw_trials(int m, int n, int k, int count, Draw kind, std::mt19937_64 &rng) {
    constexpr bool kBf16 = std::is_same_v<T, __nv_bfloat16>;
    std::uniform_int_distribution<int> binade(kBf16 ? -30 : -12, kBf16 ? 30 : 12), small(-4, 4), third(0, 2),
        subnormal(-24, -15);
    std::uniform_real_distribution<float> frac(1.0f, 2.0f);
    auto sign = [&] { return kind == Draw::Positive || rng() & 1 ? 1.0f : -1.0f; };
    auto draw = [&] {
        if (kind == Draw::Exact) return static_cast<float>(small(rng));
        const int e = kind == Draw::Subnormal && third(rng) == 0 ? subnormal(rng) : binade(rng);
        return sign() * std::ldexp(frac(rng), e);
    };
    Trials t;
    t.a.resize(static_cast<size_t>(count) * m * k);
    t.b.resize(static_cast<size_t>(count) * n * k);
    t.c.resize(static_cast<size_t>(count) * m * n);
    t.d.assign(t.c.size(), NAN);
    for (auto &x : t.a) x = bits_of<T>(draw());
    for (auto &x : t.b) x = bits_of<T>(draw());
    for (auto &x : t.c) x = (kind == Draw::Exact ? draw() : std::ldexp(draw(), 4));
    return t;
}

template <typename T>
static void run(bool wgmma, Trials &t, int count) {
    T *da, *db;
    float *dc, *dd;
    CHECK(cudaMalloc(&da, t.a.size() * 2));
    CHECK(cudaMalloc(&db, t.b.size() * 2));
    CHECK(cudaMalloc(&dc, t.c.size() * 4));
    CHECK(cudaMalloc(&dd, t.d.size() * 4));
    CHECK(cudaMemcpy(da, t.a.data(), t.a.size() * 2, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(db, t.b.data(), t.b.size() * 2, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dc, t.c.data(), t.c.size() * 4, cudaMemcpyHostToDevice));
    CHECK(cudaMemset(dd, 0xff, t.d.size() * 4));
    if (wgmma)
        wgmma_trials<T><<<count, 128>>>(da, db, dc, dd);
    else
        mma_trials<T><<<count, 32>>>(da, db, dc, dd);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(t.d.data(), dd, t.d.size() * 4, cudaMemcpyDeviceToHost));
    CHECK(cudaFree(da));
    CHECK(cudaFree(db));
    CHECK(cudaFree(dc));
    CHECK(cudaFree(dd));
}

template <typename T>
static float value_of(uint16_t u) {
    T h;
    std::memcpy(&h, &u, 2);
    if constexpr (std::is_same_v<T, __half>)
        return __half2float(h);
    else
        return __bfloat162float(h);
}

// Outputs of integer trials equal to the exact sum (a wrong layout shows here).
template <typename T>
static long exact_outputs(const Trials &t, int m, int n, int k, int count) {
    long ok = 0;
    for (int tr = 0; tr < count; ++tr)
        for (int i = 0; i < m; ++i)
            for (int j = 0; j < n; ++j) {
                double s = t.c[(static_cast<size_t>(tr) * m + i) * n + j];
                for (int kk = 0; kk < k; ++kk)
                    s += static_cast<double>(value_of<T>(t.a[(static_cast<size_t>(tr) * m + i) * k + kk])) *
                         value_of<T>(t.b[(static_cast<size_t>(tr) * n + j) * k + kk]);
                ok += static_cast<float>(s) == t.d[(static_cast<size_t>(tr) * m + i) * n + j];
            }
    return ok;
}

static void dump(const std::string &path, const Trials &t) {
    FILE *f = fopen(path.c_str(), "wb");
    if (!f) {
        fprintf(stderr, "cannot write %s\n", path.c_str());
        exit(2);
    }
    fwrite(t.a.data(), 2, t.a.size(), f);
    fwrite(t.b.data(), 2, t.b.size(), f);
    fwrite(t.c.data(), 4, t.c.size(), f);
    fwrite(t.d.data(), 4, t.d.size(), f);
    fclose(f);
}

template <typename T>
static void unit(bool wgmma, int count, const std::vector<std::pair<Draw, const char *>> &draws, const std::string &dir,
                 std::mt19937_64 &rng) {
    const int m = wgmma ? 64 : 16, n = m, k = m;
    const char *name = wgmma ? "wgmma" : "mma";
    Trials layout = draw_trials<T>(m, n, k, 4, Draw::Exact, rng);
    run<T>(wgmma, layout, 4);
    const long ok = exact_outputs<T>(layout, m, n, k, 4);
    printf("%s %s: layout check %ld of %d exact%s\n", name, std::is_same_v<T, __half> ? "f16" : "bf16", ok,
           4 * m * n, ok == 4 * m * n ? "" : "  ** LAYOUT WRONG **");
    for (const auto &[kind, label] : draws) {
        Trials t = draw_trials<T>(m, n, k, count, kind, rng);
        run<T>(wgmma, t, count);
        dump(dir + "/" + name + "-" + label + ".bin", t);
        printf("  %s-%s: %d trials dumped\n", name, label, count);
    }
}

int main(int argc, char **argv) {
    const int mma_count = argc > 1 ? atoi(argv[1]) : 300;
    const int wgmma_count = argc > 2 ? atoi(argv[2]) : 24;
    const std::string dir = argc > 3 ? argv[3] : ".";
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, 0));
    printf("device %s (sm %d.%d)\n", prop.name, prop.major, prop.minor);
    std::mt19937_64 rng(20261129);
    const std::vector<std::pair<Draw, const char *>> bf16{{Draw::Positive, "bf16-positive"},
                                                          {Draw::Signed, "bf16-signed"}};
    const std::vector<std::pair<Draw, const char *>> f16{{Draw::Subnormal, "f16-subnormal"}};
    for (bool wgmma : {false, true}) {
        const int count = wgmma ? wgmma_count : mma_count;
        unit<__nv_bfloat16>(wgmma, count, bf16, dir, rng);
        unit<__half>(wgmma, count, f16, dir, rng);
    }
    return 0;
}
