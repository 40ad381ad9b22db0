// Does compute-sanitizer's racecheck treat a named barrier of 384 of a 512-thread CTA's threads
// (bar.sync 7, 384: three consumer warpgroups, the producer warpgroup not taking part) as ordering
// shared memory between the warpgroups that take part? The split-short merge's pattern, alone,
// then with one more of ws_kernel's features at a time, to find what racecheck objects to there.
//   ./racecheck_probe MODE   (run under compute-sanitizer --tool racecheck, one mode a run)
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#include <cstdint>

__device__ __forceinline__ void bar_sync(int id, int threads) {
    asm volatile("bar.sync %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
}
__device__ __forceinline__ void bar_arrive(int id, int threads) {
    asm volatile("bar.arrive %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
}

enum Mode : int {
    kMergeOnly = 0,     // bar.sync 7, 384; the producer warpgroup 0 exits at once
    kAllThreads = 1,    // __syncthreads, the producer taking part (the control)
    kProducerLane = 2,  // as 0, but the producer's thread 0 stays (ws_kernel's producer loop)
    kTurnRing = 3,      // as 0, plus ws_kernel's turn ring (bar.sync / bar.arrive 1-3, 256) per tile
    kBoth = 4,          // 2 and 3
    kRegisters = 5,     // 4 plus setmaxnreg (producer down to 24, consumers up to 160)
    kMbarriers = 6,     // 4, the merge's hand-overs by mbarriers (every thread arriving)
    kBarrierZero = 7,   // 4, the merge's bar.sync on barrier 0 with a count of 384
    kWithinGroup = 8,   // 4, no merge: each consumer's threads swap values ordered by bar.sync 4 + c, 128
};

__device__ __forceinline__ uint32_t smem_u32(const void *p) {
    return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}
__device__ __forceinline__ void mbar_init(uint64_t *bar, int count) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(smem_u32(bar)), "r"(count));
}
__device__ __forceinline__ void mbar_arrive(uint64_t *bar) {
    asm volatile("{\n.reg .b64 state;\nmbarrier.arrive.shared::cta.b64 state, [%0];\n}\n" ::"r"(smem_u32(bar)) : "memory");
}
__device__ __forceinline__ void mbar_wait(uint64_t *bar, int parity) {
    asm volatile(
        "{\n.reg .pred done;\nwait_%=:\n"
        "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
        "@!done bra wait_%=;\n}\n" ::"r"(smem_u32(bar)), "r"(parity) : "memory");
}

template <int kMode>
__global__ void __launch_bounds__(512, 1) merge_probe(float *out, int tiles) {
    extern __shared__ float slot[];  // 36 floats per consumer thread
    __shared__ uint64_t entry, full[2], read[2];  // kMbarriers: all consumers in; state c written; read
    const int wg = threadIdx.x / 128, j = threadIdx.x % 128;
    if (kMode == kMbarriers) {
        if (threadIdx.x == 0) {
            mbar_init(&entry, 384);
            for (int c = 0; c < 2; ++c) mbar_init(&full[c], 128), mbar_init(&read[c], 128);
            asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
        }
        __syncthreads();
    }
    auto sync = [&] {
        if (kMode == kAllThreads) __syncthreads();
        else if (kMode == kBarrierZero) bar_sync(0, 384);
        else bar_sync(7, 384);
    };
    if (wg == 0) {  // the producer: no part in the merge barrier
        if (kMode == kRegisters) asm volatile("setmaxnreg.dec.sync.aligned.u32 24;\n");
        if (kMode == kAllThreads)
            for (int t = 0; t < tiles; ++t) for (int s = 0; s < 5; ++s) __syncthreads();
        if ((kMode == kProducerLane || kMode >= kBoth) && threadIdx.x == 0)
            for (int i = 0; i < 2000; ++i) __nanosleep(1000);
        return;
    }
    if (kMode == kRegisters) asm volatile("setmaxnreg.inc.sync.aligned.u32 160;\n");
    const int consumer = wg - 1;
    const bool ring = kMode == kTurnRing || kMode >= kBoth;
    bool took_turn = false;
    float acc[36];
    for (int e = 0; e < 36; ++e) acc[e] = consumer + e + blockIdx.x;
    for (int t = 0; t < tiles; ++t) {
        if (ring) {  // consumer c waits for c - 1 (consumer 0 for 2 after the first tile), then hands on
            if (consumer != 0 || took_turn) bar_sync(1 + consumer, 256);
            took_turn = true;
            bar_arrive(1 + (consumer == 2 ? 0 : consumer + 1), 256);
        }
        if (kMode == kWithinGroup) {  // thread j's value to thread j ^ 1 of the same consumer
            float *mine = slot + consumer * 128 * 8;
            for (int e = 0; e < 8; ++e) mine[e * 128 + j] = acc[e] * (t + 1);
            bar_sync(4 + consumer, 128);
            for (int e = 0; e < 8; ++e) acc[e] += 0.5f * mine[e * 128 + (j ^ 1)];
            bar_sync(4 + consumer, 128);
            continue;
        }
        if (kMode == kMbarriers) {
            const int parity = t & 1;
            mbar_arrive(&entry);
            for (int c = 1; c < 3; ++c) {
                if (consumer == c) {
                    mbar_wait(c == 1 ? &entry : &read[c - 2], parity);
                    for (int e = 0; e < 36; ++e) slot[e * 128 + j] = acc[e] * (t + 1);
                    mbar_arrive(&full[c - 1]);
                }
                if (consumer == 0) {
                    mbar_wait(&full[c - 1], parity);
                    for (int e = 0; e < 36; ++e) acc[e] += 0.5f * slot[e * 128 + j];
                    mbar_arrive(&read[c - 1]);
                }
            }
            if (consumer != 0) mbar_wait(&read[1], parity);  // the slot is read: free for anything
            continue;
        }
        sync();
        for (int c = 1; c < 3; ++c) {
            if (consumer == c)
                for (int e = 0; e < 36; ++e) slot[e * 128 + j] = acc[e] * (t + 1);
            sync();
            if (consumer == 0)
                for (int e = 0; e < 36; ++e) acc[e] += 0.5f * slot[e * 128 + j];
            sync();
        }
    }
    if (ring && consumer == 0) bar_sync(1, 256);  // consumer 2's last hand-over
    if (consumer == 0)
        for (int e = 0; e < 36; ++e) out[(blockIdx.x * 36 + e) * 128 + j] = acc[e];
}

int main(int argc, char **argv) {
    const int mode = argc > 1 ? atoi(argv[1]) : 0;
    float *out;
    const int blocks = 8, tiles = 4;
    if (cudaMalloc(&out, blocks * 36 * 128 * sizeof(float)) != cudaSuccess) return 2;
    const size_t smem = 36 * 128 * sizeof(float);
    switch (mode) {
        case 0: merge_probe<0><<<blocks, 512, smem>>>(out, tiles); break;
        case 1: merge_probe<1><<<blocks, 512, smem>>>(out, tiles); break;
        case 2: merge_probe<2><<<blocks, 512, smem>>>(out, tiles); break;
        case 3: merge_probe<3><<<blocks, 512, smem>>>(out, tiles); break;
        case 4: merge_probe<4><<<blocks, 512, smem>>>(out, tiles); break;
        case 5: merge_probe<5><<<blocks, 512, smem>>>(out, tiles); break;
        case 6: merge_probe<6><<<blocks, 512, smem>>>(out, tiles); break;
        case 7: merge_probe<7><<<blocks, 512, smem>>>(out, tiles); break;
        case 8: merge_probe<8><<<blocks, 512, smem>>>(out, tiles); break;
        default: return 2;
    }
    const cudaError_t e = cudaDeviceSynchronize();
    printf("merge_probe mode %d: %s\n", mode, cudaGetErrorString(e));
    return e == cudaSuccess ? 0 : 1;
}
