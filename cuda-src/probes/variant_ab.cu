// The variant A/B probe: times source variants of the warp-specialized kernel against each other
// in one process, and checks that they compute the same O, bit for bit. A variant is a copy of
// cuda-src (a commit, or a tree with an edit) compiled into its own entry (variant_entry.cu);
// scripts/variant-ab.sh builds them all into one executable, sm_90a only, without Rust.
//
//   variant-ab ROUNDS "TILE DTYPE BATCH HEADS SEQLEN HEAD_DIM [MODS...]" ...
//
// MODS (probe_inputs.cuh, Mods): causal, window=LEFT,RIGHT, softcap=CAP, alibi, sinks, lse; each
// variant runs the kernel variant flashattn_fwd would pick for them (windows and sinks the general
// one, softcap and ALiBi the score-modifier one: built only with PROBE_EVERY_VARIANT=1).
//
// Per shape, every variant launches once into a poisoned O (0xff bytes, NaN in either dtype);
// the first variant's O must hold no NaN and every other variant's must equal it bitwise (the
// same arithmetic in another order of instructions changes no bit; a mismatch means the variants
// compute different things). Then each variant's 20 back-to-back launches are captured in a CUDA
// graph, and ROUNDS rounds time every variant's graph, replayed 5 times, between two events, in an
// order rotated each round so that no variant always follows the same one. One process, one
// context, one clock history: differences of about a percent, which separate runs of
// flashattn-bench cannot show (a build against itself moves 1-3% between runs), are resolved here
// (its own noise: docs/benchmarks/2026-11-28-h200-walk-loop.md). Printed per variant: median time
// per call, TFLOP/s, the ratio of its median to the first variant's, the median of the per-round
// ratios, and the elements of O that differ from the first variant's (for the first: its NaNs).
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "probes/probe_inputs.cuh"
#include "probes/variants.h"  // generated: #define PROBE_VARIANTS X(name) X(name) ...

using Entry = FlashAttnStatus (*)(const char *, int, FlashAttnFwdParams *, cudaStream_t);
#define X(name) extern "C" FlashAttnStatus variant_##name(const char *, int, FlashAttnFwdParams *, cudaStream_t);
PROBE_VARIANTS
#undef X

namespace {

struct Variant {
    const char *name;
    Entry launch;
};
#define X(name) {#name, variant_##name},
const Variant kVariants[] = {PROBE_VARIANTS};
#undef X
constexpr int kCount = sizeof(kVariants) / sizeof(kVariants[0]);
constexpr int kCallsPerGraph = 20;
constexpr int kReplaysPerSample = 5;

double median(std::vector<double> x) {
    std::sort(x.begin(), x.end());
    return x[x.size() / 2];
}

bool is_nan(uint16_t x, bool bf16) {
    return bf16 ? (x & 0x7f80) == 0x7f80 && (x & 0x7f) : (x & 0x7c00) == 0x7c00 && (x & 0x3ff);
}

// A 16-bit element as a float (fill()'s conversion, backwards).
float to_float(uint16_t x, bool bf16) {
    return bf16 ? __bfloat162float(__ushort_as_bfloat16(x)) : __half2float(__ushort_as_half(x));
}

}  // namespace

int main(int argc, char **argv) {
    if (argc < 3) {
        std::fprintf(stderr, "usage: %s ROUNDS \"TILE f16|bf16 BATCH HEADS SEQLEN HEAD_DIM [MODS...]\" ...\n", argv[0]);
        return 2;
    }
    const int rounds = std::atoi(argv[1]);
    if (rounds < 1) {
        std::fprintf(stderr, "ROUNDS must be at least 1, not \"%s\"\n", argv[1]);
        return 2;
    }
    int status = 0;
    for (int a = 2; a < argc; ++a) {
        char tile[32], dtype[8];
        int batch, heads, seqlen, head_dim, used = 0;
        if (std::sscanf(argv[a], "%31s %7s %d %d %d %d%n", tile, dtype, &batch, &heads, &seqlen, &head_dim, &used) != 6) {
            std::fprintf(stderr, "bad shape \"%s\"\n", argv[a]);
            return 2;
        }
        probe_inputs::Mods mods;
        char word[64];
        for (int n = 0; std::sscanf(argv[a] + used, " %63s%n", word, &n) == 1; used += n)
            if (!mods.parse(word)) {
                std::fprintf(stderr, "unknown word \"%s\" in shape \"%s\"\n", word, argv[a]);
                return 2;
            }
        const bool bf16 = std::strcmp(dtype, "bf16") == 0;
        const int keys = mods.keys > 0 ? mods.keys : seqlen;
        probe_inputs::DenseCall call(bf16, batch, heads, seqlen, keys, head_dim);
        call.apply(mods);
        cudaStream_t stream;
        PROBE_CHECK(cudaStreamCreate(&stream));
        auto launch = [&](int v) {
            FlashAttnFwdParams p = call.params;
            const FlashAttnStatus s = kVariants[v].launch(tile, head_dim, &p, stream);
            if (s != FLASHATTN_STATUS_SUCCESS) {
                std::fprintf(stderr, "%s: %s at head dim %d: status %d, cuda error %d\n", kVariants[v].name, tile,
                             head_dim, s, p.cuda_error);
                std::exit(1);
            }
        };

        std::vector<uint16_t> first(call.elems), out(call.elems);
        long long differ[kCount] = {};
        // The largest |O - first's O|: variants that change the order of the arithmetic (another
        // key width) differ by rounding, a broken one by far more or by NaN (which this shows).
        float max_diff[kCount] = {};
        for (int v = 0; v < kCount; ++v) {
            PROBE_CHECK(cudaMemset(call.o, 0xff, call.elems * 2));
            launch(v);
            PROBE_CHECK(cudaStreamSynchronize(stream));
            PROBE_CHECK(cudaMemcpy(v == 0 ? first.data() : out.data(), call.o, call.elems * 2, cudaMemcpyDeviceToHost));
            for (size_t i = 0; i < call.elems; ++i) {
                differ[v] += v == 0 ? is_nan(first[i], bf16) : first[i] != out[i];
                if (v > 0 && first[i] != out[i]) {
                    const float d = std::fabs(to_float(first[i], bf16) - to_float(out[i], bf16));
                    if (!(d <= max_diff[v])) max_diff[v] = d;  // a NaN stays
                }
            }
        }

        std::vector<cudaGraphExec_t> graphs(kCount);
        for (int v = 0; v < kCount; ++v) {
            cudaGraph_t graph;
            PROBE_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
            for (int i = 0; i < kCallsPerGraph; ++i) launch(v);
            PROBE_CHECK(cudaStreamEndCapture(stream, &graph));
            PROBE_CHECK(cudaGraphInstantiate(&graphs[v], graph, 0));
            PROBE_CHECK(cudaGraphDestroy(graph));
            for (int w = 0; w < 3; ++w) PROBE_CHECK(cudaGraphLaunch(graphs[v], stream));
        }
        cudaEvent_t start, stop;
        PROBE_CHECK(cudaEventCreate(&start));
        PROBE_CHECK(cudaEventCreate(&stop));
        std::vector<std::vector<double>> us(kCount);
        for (int r = 0; r < rounds; ++r)
            for (int j = 0; j < kCount; ++j) {
                const int v = (j + r) % kCount;
                PROBE_CHECK(cudaEventRecord(start, stream));
                for (int rep = 0; rep < kReplaysPerSample; ++rep) PROBE_CHECK(cudaGraphLaunch(graphs[v], stream));
                PROBE_CHECK(cudaEventRecord(stop, stream));
                PROBE_CHECK(cudaEventSynchronize(stop));
                float ms = 0;
                PROBE_CHECK(cudaEventElapsedTime(&ms, start, stop));
                us[v].push_back(ms * 1000.0 / (kReplaysPerSample * kCallsPerGraph));
            }

        // A causal call's work counted as half the rectangle's; windows as the whole rectangle.
        const double flops = (mods.causal ? 2.0 : 4.0) * batch * heads * static_cast<double>(seqlen) * keys * head_dim;
        const double first_p50 = median(us[0]);
        for (int v = 0; v < kCount; ++v) {
            std::vector<double> ratios;
            for (int r = 0; r < rounds; ++r) ratios.push_back(us[v][r] / us[0][r]);
            const double p50 = median(us[v]);
            std::printf("%-16s %-44s p50 %9.2f us  %6.1f TFLOP/s  ratio %.4f  median ratio %.4f  %s %lld",
                        kVariants[v].name, argv[a], p50, flops / p50 * 1e-6, p50 / first_p50, median(ratios),
                        v == 0 ? "NaN" : "differ", differ[v]);
            if (v > 0) std::printf(" max |diff| %.3g", max_diff[v]);
            std::printf("\n");
            if (differ[v] != 0) status = 1;
        }
        std::fflush(stdout);
        for (cudaGraphExec_t g : graphs) PROBE_CHECK(cudaGraphExecDestroy(g));
        PROBE_CHECK(cudaEventDestroy(start));
        PROBE_CHECK(cudaEventDestroy(stop));
        PROBE_CHECK(cudaStreamDestroy(stream));
    }
    return status;
}
