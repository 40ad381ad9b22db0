// Why the persistent ws launch (B8 H16 S512: 132 CTAs of 512 threads, one per SM, about 26 us
// each) costs about 1 us more host time than the other configurations (call AO). Host cost per
// launch, same protocol as launch_floor.cu, of kernels that only wait (a clock spin of `us`
// microseconds) with the shapes of our launches: 132 CTAs x 512 threads and 177 KB of shared
// memory (the persistent ws tile), 512 CTAs x 384 threads and 113 KB (the 128-row ws tile at B4 H8
// has 128 such CTAs), 512 CTAs x 128 threads and no opt-in (the one-warpgroup tile), each empty
// and spinning 8 or 26 us (the GPU then runs behind the host, as in the seed suite's bursts).
//
// Build: nvcc -arch=sm_90a -O2 -o busy_launch busy_launch.cu
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(x)                                                                                   \
    do {                                                                                           \
        cudaError_t e_ = (x);                                                                      \
        if (e_ != cudaSuccess) {                                                                   \
            std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
            std::exit(1);                                                                          \
        }                                                                                          \
    } while (0)

struct alignas(64) Args {
    unsigned char bytes[896];
};

__global__ void spin_kernel(const __grid_constant__ Args arg, long long cycles) {
    const long long start = clock64();
    while (clock64() - start < cycles) {
    }
    if (arg.bytes[0] == 7 && threadIdx.x == 100000) asm volatile("trap;");
}

int main() {
    CHECK(cudaSetDevice(0));
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, 0));
    int clock_khz = 0;
    CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0));
    std::printf("%s, %d SMs, SM clock %d MHz\n", prop.name, prop.multiProcessorCount, clock_khz / 1000);
    cudaStream_t stream;
    CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    CHECK(cudaFuncSetAttribute(spin_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, 200 * 1024));
    struct Shape {
        const char *name;
        dim3 grid;
        int threads, smem;
    } shapes[] = {
        {"132 CTAs x 512 threads, 177 KB (persistent ws)", dim3(prop.multiProcessorCount), 512, 177 * 1024},
        {"512 CTAs x 384 threads, 113 KB", dim3(4, 16, 8), 384, 113 * 1024},
        {"512 CTAs x 128 threads, 40 KB", dim3(8, 16, 4), 128, 40 * 1024},
    };
    Args arg{};
    constexpr int kCalls = 200, kBursts = 30;
    for (const Shape &s : shapes) {
        for (double us : {0.0, 8.0, 26.0}) {
            const long long cycles = static_cast<long long>(us * clock_khz / 1000.0);
            auto launch = [&] {
                cudaLaunchConfig_t config = {};
                config.gridDim = s.grid;
                config.blockDim = dim3(s.threads);
                config.dynamicSmemBytes = s.smem;
                config.stream = stream;
                CHECK(cudaLaunchKernelEx(&config, spin_kernel, arg, cycles));
            };
            for (int i = 0; i < 20; ++i) launch();
            CHECK(cudaStreamSynchronize(stream));
            std::vector<double> host;
            for (int b = 0; b < kBursts; ++b) {
                const auto t0 = std::chrono::steady_clock::now();
                for (int i = 0; i < kCalls; ++i) launch();
                const auto t1 = std::chrono::steady_clock::now();
                CHECK(cudaStreamSynchronize(stream));
                host.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / kCalls);
            }
            std::sort(host.begin(), host.end());
            std::printf("%-48s spin %4.1f us: host p50 %6.3f us  p90 %6.3f us\n", s.name, us, host[host.size() / 2],
                        host[host.size() * 9 / 10]);
        }
    }
    CHECK(cudaStreamDestroy(stream));
    return 0;
}
