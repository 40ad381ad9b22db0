// The timeline probe: runs one warp-specialized Hopper configuration on a dense shape with the
// kernel's phase marks compiled in (common/timeline.cuh) and writes every CTA's and tile's
// record, for scripts/timeline-report.py to read. Built and run by scripts/timeline.sh, apart
// from the library (its own nvcc call, sm_90a only, no Rust).
//
//   timeline OUT.bin CONFIG DTYPE BATCH HEADS SEQLEN HEAD_DIM
//
// CONFIG is a ws tile name without dtype and head dim (m128n176w12s2ws); the record of the
// last of kLaunches back-to-back launches is kept (the ones before it warm the clocks and L2).
// Also prints the mean time per launch, by CUDA events, of kLaunches launches with the records
// off (each mark a load and a branch) and of as many with them on, to show what writing them
// costs; the library's own kernels have no marks at all (compare with flashattn-bench).
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "sm90/ws_kernel.cuh"

namespace flashattn::sm90 {
// The cp.async fallback tile is not compiled here: a call that would need it fails instead.
template <typename Traits, Variant kVariant>
FlashAttnStatus launch_fwd(FlashAttnFwdParams *, cudaStream_t) {
    return FLASHATTN_STATUS_UNKNOWN_CONFIG;
}
}  // namespace flashattn::sm90

namespace {

using namespace flashattn;
using namespace flashattn::sm90;
using Launcher = FlashAttnStatus (*)(FlashAttnFwdParams *, cudaStream_t);

template <typename T, int D, int N, int C, int S>
constexpr Launcher ws = launch_ws<WsTraits<T, D, N, C, S>, Variant::kDense, 0>;

struct Entry {
    const char *name;
    int head_dim;
    Launcher f16, bf16;
};
// The tiles whose boundaries are in question: the head-dim-128 ones of the H100 table and the
// head-dim-64 ones (persistent).
const Entry kEntries[] = {
    {"m128n176w12s2ws", 128, ws<__half, 128, 176, 2, 2>, ws<__nv_bfloat16, 128, 176, 2, 2>},
    {"m128n128w12s3ws", 128, ws<__half, 128, 128, 2, 3>, ws<__nv_bfloat16, 128, 128, 2, 3>},
    {"m192n80w16s4ws", 128, ws<__half, 128, 80, 3, 4>, ws<__nv_bfloat16, 128, 80, 3, 4>},
    {"m192n128w16s4ws", 64, ws<__half, 64, 128, 3, 4>, ws<__nv_bfloat16, 64, 128, 3, 4>},
    {"m128n128w12s4ws", 64, ws<__half, 64, 128, 2, 4>, ws<__nv_bfloat16, 64, 128, 2, 4>},
};
constexpr int kLaunches = 20;

#define CHECK(call)                                                                         \
    do {                                                                                    \
        cudaError_t e_ = (call);                                                            \
        if (e_ != cudaSuccess) {                                                            \
            std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
            std::exit(1);                                                                   \
        }                                                                                   \
    } while (0)

// Inputs in [-1, 1) from a hash of the index: the values do not matter to the timing, only that
// they are finite and not all equal.
__global__ void fill(uint16_t *x, size_t n, uint32_t seed, bool bf16) {
    for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        uint32_t h = static_cast<uint32_t>(i) * 2654435761u ^ seed;
        h ^= h >> 15;
        h *= 2246822519u;
        h ^= h >> 13;
        const float v = (h & 0xffff) / 32768.0f - 1.0f;
        x[i] = bf16 ? __bfloat16_as_ushort(__float2bfloat16(v)) : __half_as_ushort(__float2half(v));
    }
}

}  // namespace

int main(int argc, char **argv) {
    if (argc != 8) {
        std::fprintf(stderr, "usage: %s OUT.bin CONFIG f16|bf16 BATCH HEADS SEQLEN HEAD_DIM\n", argv[0]);
        return 2;
    }
    const char *out_path = argv[1];
    const bool bf16 = std::strcmp(argv[3], "bf16") == 0;
    const int batch = std::atoi(argv[4]), heads = std::atoi(argv[5]), seqlen = std::atoi(argv[6]),
              head_dim = std::atoi(argv[7]);
    const Entry *entry = nullptr;
    for (const Entry &e : kEntries)
        if (std::strcmp(e.name, argv[2]) == 0 && e.head_dim == head_dim) entry = &e;
    if (entry == nullptr) {
        std::fprintf(stderr, "no compiled tile %s at head dim %d\n", argv[2], head_dim);
        return 2;
    }

    const size_t elems = static_cast<size_t>(batch) * seqlen * heads * head_dim;
    uint16_t *q, *k, *v, *o;
    CHECK(cudaMalloc(&q, elems * 2));
    CHECK(cudaMalloc(&k, elems * 2));
    CHECK(cudaMalloc(&v, elems * 2));
    CHECK(cudaMalloc(&o, elems * 2));
    fill<<<1024, 256>>>(q, elems, 1, bf16);
    fill<<<1024, 256>>>(k, elems, 2, bf16);
    fill<<<1024, 256>>>(v, elems, 3, bf16);
    CHECK(cudaGetLastError());

    FlashAttnFwdParams p{};
    p.q = q;
    p.k = k;
    p.v = v;
    p.o = o;
    const int64_t row = static_cast<int64_t>(heads) * head_dim, bat = row * seqlen;
    p.q_batch_stride = p.k_batch_stride = p.v_batch_stride = p.o_batch_stride = bat;
    p.q_row_stride = p.k_row_stride = p.v_row_stride = p.o_row_stride = row;
    p.q_head_stride = p.k_head_stride = p.v_head_stride = p.o_head_stride = head_dim;
    p.batch = batch;
    p.seqlen_q = p.seqlen_k = seqlen;
    p.heads_q = p.heads_kv = heads;
    p.head_dim = head_dim;
    p.softmax_scale = 1.0f / std::sqrt(static_cast<float>(head_dim));
    p.dtype = bf16 ? FLASHATTN_DTYPE_BF16 : FLASHATTN_DTYPE_F16;
    p.compute_capability = 90;
    p.config_id = -1;
    p.window_left = p.window_right = -1;
    p.total_q = p.total_k = 1;
    p.causal_section = batch * heads;
    const Launcher launch = bf16 ? entry->bf16 : entry->f16;

    // Records for as many CTAs as tiles (a persistent launch uses fewer), and as many tiles per
    // CTA as a persistent CTA can walk.
    int sms = 0;
    CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    const int block_m = std::atoi(entry->name + 1);
    const long long tiles = static_cast<long long>((seqlen + block_m - 1) / block_m) * heads * batch;
    const int tiles_per_cta = static_cast<int>((tiles + sms - 1) / sms) + 1;
    const size_t record_count = static_cast<size_t>(tiles) * tiles_per_cta * kTimelineSlots;
    unsigned long long *records;
    CHECK(cudaMalloc(&records, record_count * 8));

    cudaStream_t stream;
    CHECK(cudaStreamCreate(&stream));
    auto run = [&] {
        const FlashAttnStatus s = launch(&p, stream);
        if (s != FLASHATTN_STATUS_SUCCESS) {
            std::fprintf(stderr, "launch failed: status %d, cuda error %d\n", s, p.cuda_error);
            std::exit(1);
        }
    };
    TimelineBuffer off{nullptr, 0}, on{records, tiles_per_cta};
    // Records off, then on: the launches' mean times.
    CHECK(cudaMemcpyToSymbol(flashattn_timeline, &off, sizeof off));
    for (int i = 0; i < kLaunches; ++i) run();
    cudaEvent_t start, stop;
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
    CHECK(cudaEventRecord(start, stream));
    for (int i = 0; i < kLaunches; ++i) run();
    CHECK(cudaEventRecord(stop, stream));
    CHECK(cudaStreamSynchronize(stream));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, start, stop));
    // With records: the last launch's survive (every launch writes the same slots).
    CHECK(cudaMemset(records, 0, record_count * 8));
    CHECK(cudaMemcpyToSymbol(flashattn_timeline, &on, sizeof on));
    CHECK(cudaEventRecord(start, stream));
    for (int i = 0; i < kLaunches; ++i) run();
    CHECK(cudaEventRecord(stop, stream));
    CHECK(cudaStreamSynchronize(stream));
    float ms_marked = 0;
    CHECK(cudaEventElapsedTime(&ms_marked, start, stop));
    CHECK(cudaMemset(records, 0, record_count * 8));
    run();
    CHECK(cudaStreamSynchronize(stream));

    std::vector<unsigned long long> host(record_count);
    CHECK(cudaMemcpy(host.data(), records, record_count * 8, cudaMemcpyDeviceToHost));
    FILE *f = std::fopen(out_path, "wb");
    if (f == nullptr) {
        std::perror(out_path);
        return 1;
    }
    // Header: eight int64 values; then each record a tile wrote (most slots of a launch of one
    // tile per CTA stay empty), as its CTA, its tile within the CTA and its kTimelineSlots values.
    const long long header[8] = {tiles, tiles_per_cta, kTimelineSlots, block_m, sms, p.config_used, 0, 0};
    std::fwrite(header, 8, 8, f);
    for (long long cta = 0; cta < tiles; ++cta)
        for (int t = 0; t < tiles_per_cta; ++t) {
            const unsigned long long *r = &host[(cta * tiles_per_cta + t) * kTimelineSlots];
            if (r[kMarkEntry] == 0 && r[kMarkTile] == 0) continue;
            const long long where[2] = {cta, t};
            std::fwrite(where, 8, 2, f);
            std::fwrite(r, 8, kTimelineSlots, f);
        }
    std::fclose(f);
    std::printf("%s %s B%d H%d S%d D%d: %.4f ms per launch without marks, %.4f with (%d launches each)\n", entry->name,
                argv[3], batch, heads, seqlen, head_dim, ms / kLaunches, ms_marked / kLaunches, kLaunches);
    return 0;
}
