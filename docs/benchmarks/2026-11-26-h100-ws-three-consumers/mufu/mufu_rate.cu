// Special-function unit throughput on the GPU it runs on: warp instructions per SM per clock of
// ex2.approx.ftz.f32, tanh.approx.f32, rcp.approx.ftz.f32 and ex2 + tanh interleaved, each in 8
// independent chains per thread (so latency does not limit), with one FFMA per op to keep the
// values in range. Question it answers: does a softcap's tanh cost the special-function unit as
// much as the softmax's exp2 (the softcap profile, docs/benchmarks/2026-11-26-h100-softcap-profile.md)?
#include <cstdio>
#include <cuda_runtime.h>

template <int kOp>
__device__ __forceinline__ float op(float x) {
    float y;
    if (kOp == 0) asm volatile("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
    if (kOp == 1) asm volatile("tanh.approx.f32 %0, %1;" : "=f"(y) : "f"(x));
    if (kOp == 2) asm volatile("rcp.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
}

template <int kOp>
__global__ void chains(float *out, int iters, long long *clocks) {
    float v[8];
#pragma unroll
    for (int c = 0; c < 8; ++c) v[c] = 0.001f * (threadIdx.x + c);
    const long long start = clock64();
    for (int i = 0; i < iters; ++i) {
#pragma unroll
        for (int c = 0; c < 8; ++c) {
            if (kOp == 3)
                v[c] = (c & 1) ? op<1>(v[c]) * 0.5f + 0.25f : op<0>(v[c]) * -0.5f + 0.25f;
            else
                v[c] = op<kOp>(v[c]) * -0.5f + 0.75f;
        }
    }
    const long long stop = clock64();
    float s = 0.f;
#pragma unroll
    for (int c = 0; c < 8; ++c) s += v[c];
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;
    if (threadIdx.x == 0) clocks[blockIdx.x] = stop - start;
}

int main() {
    int sms = 0;
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    const int blocks = sms, threads = 1024, iters = 4096;
    float *out;
    long long *clocks;
    cudaMalloc(&out, sizeof(float) * blocks * threads);
    cudaMalloc(&clocks, sizeof(long long) * blocks);
    const char *names[] = {"ex2.approx.ftz.f32", "tanh.approx.f32", "rcp.approx.ftz.f32", "ex2 + tanh, alternating"};
    void (*kernels[])(float *, int, long long *) = {chains<0>, chains<1>, chains<2>, chains<3>};
    for (int k = 0; k < 4; ++k) {
        for (int rep = 0; rep < 2; ++rep) kernels[k]<<<blocks, threads>>>(out, iters, clocks);
        long long host[1024];
        cudaMemcpy(host, clocks, sizeof(long long) * blocks, cudaMemcpyDeviceToHost);
        long long worst = 0;
        for (int b = 0; b < blocks; ++b) worst = host[b] > worst ? host[b] : worst;
        const double warp_ops = double(threads / 32) * iters * 8;  // per SM (one block an SM)
        printf("%-26s %.3f warp instructions per SM clock (%.1f lanes per clock)\n", names[k], warp_ops / worst,
               32.0 * warp_ops / worst);
    }
    const cudaError_t err = cudaDeviceSynchronize();
    printf("status: %s\n", cudaGetErrorString(err));
    return err == cudaSuccess ? 0 : 1;
}
