// The timeline probe: runs one warp-specialized Hopper configuration on a dense shape with the
// kernel's phase marks compiled in (common/timeline.cuh) and writes every CTA's and tile's
// record, for scripts/timeline-report.py to read. Built and run by scripts/timeline.sh, apart
// from the library (its own nvcc call, sm_90a only, no Rust).
//
//   timeline OUT.bin CONFIG DTYPE BATCH HEADS SEQLEN HEAD_DIM
//
// TIMELINE_SPLIT=1 in the environment gives the call a workspace (a walk may split its tail).
// CONFIG is a ws tile name without dtype and head dim (m128n176w12s2ws); the record of the
// last of kLaunches back-to-back launches is kept (the ones before it warm the clocks and L2).
// Also prints the mean time per launch, by CUDA events, of kLaunches launches with the records
// off (each mark a load and a branch) and of as many with them on, to show what writing them
// costs; the library's own kernels have no marks at all (compare with flashattn-bench).
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "probes/probe_inputs.cuh"
#include "probes/probe_tiles.cuh"

namespace {
using namespace flashattn;
using namespace flashattn::probe;
constexpr int kLaunches = 20;
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
    const ProbeTile *entry = find_probe_tile(argv[2], head_dim);
    if (entry == nullptr) {
        std::fprintf(stderr, "no compiled tile %s at head dim %d\n", argv[2], head_dim);
        return 2;
    }
    probe_inputs::DenseCall call(bf16, batch, heads, seqlen, head_dim);
    FlashAttnFwdParams &p = call.params;
    // TIMELINE_SPLIT=1: with a workspace, so that a walk may split its tail (SplitTail).
    if (const char *split = std::getenv("TIMELINE_SPLIT"); split != nullptr && std::strcmp(split, "1") == 0) {
        probe_inputs::Mods mods;
        mods.split = true;
        call.apply(mods);
    }

    // Records for as many CTAs as tiles (a persistent launch uses fewer), and as many tiles per
    // CTA as a persistent CTA can walk.
    int sms = 0;
    PROBE_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    const int block_m = std::atoi(entry->name + 1);
    const long long tiles = static_cast<long long>((seqlen + block_m - 1) / block_m) * heads * batch;
    const int tiles_per_cta = static_cast<int>((tiles + sms - 1) / sms) + 1;
    const size_t record_count = static_cast<size_t>(tiles) * tiles_per_cta * kTimelineSlots;
    unsigned long long *records;
    PROBE_CHECK(cudaMalloc(&records, record_count * 8));

    cudaStream_t stream;
    PROBE_CHECK(cudaStreamCreate(&stream));
    auto run = [&] {
        const FlashAttnStatus s = launch_like_fwd(*entry, &p, stream);
        if (s != FLASHATTN_STATUS_SUCCESS) {
            std::fprintf(stderr, "launch failed: status %d, cuda error %d\n", s, p.cuda_error);
            std::exit(1);
        }
    };
    TimelineBuffer off{nullptr, 0}, on{records, tiles_per_cta};
    // Records off, then on: the launches' mean times.
    PROBE_CHECK(cudaMemcpyToSymbol(flashattn_timeline, &off, sizeof off));
    for (int i = 0; i < kLaunches; ++i) run();
    cudaEvent_t start, stop;
    PROBE_CHECK(cudaEventCreate(&start));
    PROBE_CHECK(cudaEventCreate(&stop));
    PROBE_CHECK(cudaEventRecord(start, stream));
    for (int i = 0; i < kLaunches; ++i) run();
    PROBE_CHECK(cudaEventRecord(stop, stream));
    PROBE_CHECK(cudaStreamSynchronize(stream));
    float ms = 0;
    PROBE_CHECK(cudaEventElapsedTime(&ms, start, stop));
    // With records: the last launch's survive (every launch writes the same slots).
    PROBE_CHECK(cudaMemset(records, 0, record_count * 8));
    PROBE_CHECK(cudaMemcpyToSymbol(flashattn_timeline, &on, sizeof on));
    PROBE_CHECK(cudaEventRecord(start, stream));
    for (int i = 0; i < kLaunches; ++i) run();
    PROBE_CHECK(cudaEventRecord(stop, stream));
    PROBE_CHECK(cudaStreamSynchronize(stream));
    float ms_marked = 0;
    PROBE_CHECK(cudaEventElapsedTime(&ms_marked, start, stop));
    PROBE_CHECK(cudaMemset(records, 0, record_count * 8));
    run();
    PROBE_CHECK(cudaStreamSynchronize(stream));

    std::vector<unsigned long long> host(record_count);
    PROBE_CHECK(cudaMemcpy(host.data(), records, record_count * 8, cudaMemcpyDeviceToHost));
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
