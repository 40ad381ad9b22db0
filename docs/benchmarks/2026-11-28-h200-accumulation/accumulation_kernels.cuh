// The two probes' shared parts (accumulation_probe.cu, accumulation_dump.cu): one trial of
// D = A B + C per block through each matrix unit our kernels use, for either 16-bit type. A is
// [m][k] row-major, B is stored as [n][k] (column-major, like K in Q K^T), C and D [m][n].
#pragma once

#include <cstdio>
#include <cstdlib>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <mma.h>

#include "sm90/wgmma.cuh"

#define CHECK(call)                                                                               \
    do {                                                                                          \
        cudaError_t e_ = (call);                                                                  \
        if (e_ != cudaSuccess) {                                                                  \
            fprintf(stderr, "%s: %s\n", #call, cudaGetErrorString(e_));                          \
            exit(2);                                                                              \
        }                                                                                         \
    } while (0)

// One warp per trial, through WMMA (mma.sync m16n8k16 underneath).
template <typename T>
__global__ void mma_trials(const T *a, const T *b, const float *c, float *d) {
    using namespace nvcuda;
    const int trial = blockIdx.x;
    wmma::fragment<wmma::matrix_a, 16, 16, 16, T, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, T, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::load_matrix_sync(fa, a + trial * 256, 16);
    wmma::load_matrix_sync(fb, b + trial * 256, 16);
    wmma::load_matrix_sync(acc, c + trial * 256, 16, wmma::mem_row_major);
    wmma::mma_sync(acc, fa, fb, acc);
    wmma::store_matrix_sync(d + trial * 256, acc, 16, wmma::mem_row_major);
}

// One warpgroup per trial: A and B staged into shared memory in the kernels' 128-byte swizzle
// layout, D initialised to C in the accumulator registers (warp w holds rows 16w..16w+15 as eight
// m16n8 fragments), then four k16 wgmmas, each accumulating.
template <typename T>
__global__ void __launch_bounds__(128) wgmma_trials(const T *a, const T *b, const float *c, float *d) {
    using namespace flashattn::sm90;
    __shared__ __align__(1024) T a_tile[64 * 64];
    __shared__ __align__(1024) T b_tile[64 * 64];
    const int trial = blockIdx.x;
    const T *ta = a + trial * 4096;
    const T *tb = b + trial * 4096;
    for (int i = threadIdx.x; i < 64 * 8; i += 128) {
        const int row = i / 8, chunk = i % 8;
        *reinterpret_cast<uint4 *>(reinterpret_cast<char *>(a_tile) + sw128_offset(64, row, chunk)) =
            *reinterpret_cast<const uint4 *>(ta + row * 64 + chunk * 8);
        *reinterpret_cast<uint4 *>(reinterpret_cast<char *>(b_tile) + sw128_offset(64, row, chunk)) =
            *reinterpret_cast<const uint4 *>(tb + row * 64 + chunk * 8);
    }
    fence_proxy_async();
    __syncthreads();
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int row0 = warp * 16 + lane / 4;
    const float *tc = c + trial * 4096;
    float acc[8][4];
    for (int nt = 0; nt < 8; ++nt) {
        const int col = nt * 8 + 2 * (lane % 4);
        acc[nt][0] = tc[row0 * 64 + col];
        acc[nt][1] = tc[row0 * 64 + col + 1];
        acc[nt][2] = tc[(row0 + 8) * 64 + col];
        acc[nt][3] = tc[(row0 + 8) * 64 + col + 1];
    }
    const Sw128Desc a_desc(static_cast<uint32_t>(__cvta_generic_to_shared(a_tile)), 16, kSwizzleBytes);
    const Sw128Desc b_desc(static_cast<uint32_t>(__cvta_generic_to_shared(b_tile)), 16, kSwizzleBytes);
    for (int nt = 0; nt < 8; ++nt) hold(acc[nt]);
    wgmma_fence();
#pragma unroll
    for (int ks = 0; ks < 4; ++ks) Wgmma<T>::ss(acc, a_desc.at(ks * 32), b_desc.at(ks * 32), true);
    wgmma_commit();
    wgmma_wait<0>();
    for (int nt = 0; nt < 8; ++nt) hold(acc[nt]);
    float *td = d + trial * 4096;
    for (int nt = 0; nt < 8; ++nt) {
        const int col = nt * 8 + 2 * (lane % 4);
        td[row0 * 64 + col] = acc[nt][0];
        td[row0 * 64 + col + 1] = acc[nt][1];
        td[(row0 + 8) * 64 + col] = acc[nt][2];
        td[(row0 + 8) * 64 + col + 1] = acc[nt][3];
    }
}
