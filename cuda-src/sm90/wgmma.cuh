// Hopper (sm_90a) building blocks: warpgroup MMAs (wgmma) and their shared-memory matrix
// descriptors. Compiled only for sm_90a; every layout fact the kernel relies on is stated here.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <stdint.h>

#include <type_traits>

namespace flashattn::sm90 {

// Tiles live in shared memory in the 128-byte swizzle layout that wgmma reads natively: rows of
// 64 16-bit elements (128 bytes), 16-byte chunk c of row r stored at chunk c ^ (r % 8), the tile
// 1024-byte aligned so the hardware's address-bit swizzle and ours agree. A head dim above 64 is
// split into 64-column "atoms" stored one after another, each [rows][64].
constexpr int kAtomCols = 64;
constexpr int kAtomRowBytes = 128;
constexpr int kSwizzleBytes = 1024;  // 8 rows: the period of the swizzle

__host__ __device__ constexpr uint32_t sw128_offset(int tile_rows, int row, int chunk) {
    return static_cast<uint32_t>((chunk / 8) * tile_rows * kAtomRowBytes + row * kAtomRowBytes +
                                 (((chunk % 8) ^ (row % 8)) * 16));
}

// Shared-memory matrix descriptor (PTX ISA "matrix descriptor"): start address, leading and
// stride byte offsets (all >> 4) and the swizzle mode, 1 = 128-byte. For a K-major operand in
// this layout the stride offset is one 8-row swizzle period and the leading offset is unused;
// for an MN-major operand (V in P.V) the stride offset steps 8 rows along K and the leading
// offset steps between 64-column atoms along N.
__device__ __forceinline__ uint64_t sw128_desc(uint32_t smem_byte_addr, uint32_t leading_bytes, uint32_t stride_bytes) {
    return static_cast<uint64_t>((smem_byte_addr & 0x3FFFF) >> 4) |
           (static_cast<uint64_t>((leading_bytes >> 4) & 0x3FFF) << 16) |
           (static_cast<uint64_t>((stride_bytes >> 4) & 0x3FFF) << 32) | (1ull << 62);
}

// A batch of wgmmas: fence (orders earlier register writes before the async reads), the MMAs,
// commit, and later a wait. Accumulators and register A operands must be written before the
// fence and not touched again until the wait. The compiler knows none of this: it sees each
// wgmma as an ordinary asm that reads and writes registers at issue, so it may sink a write
// (a rescale, a packing) below the fence or hoist a read above the wait. `hold` pins a
// register's value at a point among the volatile asm statements, which keep their order:
// hold before the fence and after the wait.
__device__ __forceinline__ void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
template <int kPendingAllowed>
__device__ __forceinline__ void wgmma_wait() {
    asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(kPendingAllowed) : "memory");
}
__device__ __forceinline__ void hold(float &r) { asm volatile("" : "+f"(r)::"memory"); }
__device__ __forceinline__ void hold(uint32_t &r) { asm volatile("" : "+r"(r)::"memory"); }
template <typename T, int N>
__device__ __forceinline__ void hold(T (&r)[N]) {
#pragma unroll
    for (int i = 0; i < N; ++i) hold(r[i]);
}

// Generic-proxy writes to shared memory (cp.async, st.shared) become visible to wgmma, which
// reads through the async proxy, only after this fence in every writing thread and a barrier.
__device__ __forceinline__ void fence_proxy_async() { asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory"); }

// D[64 x 64] (+)= A[64 x 16] . B[16 x 64], fp32 accumulate, A from registers, B from shared memory.
// Warp w of the warpgroup owns rows 16w..16w+15; per warp, A and D have exactly the register
// layout of mma.sync m16n8k16 (A) and of eight m16n8 C fragments side by side (D[n8 tile][4]),
// so the S accumulator packs into P's A operand with no data movement. kTransB = 0: B is K-major
// (stored N rows of K, like K in Q.K^T); 1: MN-major (stored K rows of N, like V in P.V).
template <typename Element, int kTransB>
struct WgmmaRS64;

#define FLASHATTN_WGMMA_RS64(TYPE, PTX_TYPE)                                                                        \
    template <int kTransB>                                                                                           \
    struct WgmmaRS64<TYPE, kTransB> {                                                                                \
        __device__ __forceinline__ static void run(float (&d)[8][4], const uint32_t (&a)[4], uint64_t b_desc,       \
                                                   bool accumulate) {                                                \
            asm volatile(                                                                                            \
                "{\n.reg .pred p;\nsetp.ne.b32 p, %38, 0;\n"                                                         \
                "wgmma.mma_async.sync.aligned.m64n64k16.f32." PTX_TYPE "." PTX_TYPE " "                              \
                "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "                            \
                "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, "                  \
                "{%32, %33, %34, %35}, %36, p, 1, 1, %37;\n}\n"                                                      \
                : "+f"(d[0][0]), "+f"(d[0][1]), "+f"(d[0][2]), "+f"(d[0][3]), "+f"(d[1][0]), "+f"(d[1][1]),         \
                  "+f"(d[1][2]), "+f"(d[1][3]), "+f"(d[2][0]), "+f"(d[2][1]), "+f"(d[2][2]), "+f"(d[2][3]),         \
                  "+f"(d[3][0]), "+f"(d[3][1]), "+f"(d[3][2]), "+f"(d[3][3]), "+f"(d[4][0]), "+f"(d[4][1]),         \
                  "+f"(d[4][2]), "+f"(d[4][3]), "+f"(d[5][0]), "+f"(d[5][1]), "+f"(d[5][2]), "+f"(d[5][3]),         \
                  "+f"(d[6][0]), "+f"(d[6][1]), "+f"(d[6][2]), "+f"(d[6][3]), "+f"(d[7][0]), "+f"(d[7][1]),         \
                  "+f"(d[7][2]), "+f"(d[7][3])                                                                       \
                : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b_desc), "n"(kTransB),                            \
                  "r"(static_cast<int>(accumulate)));                                                                \
        }                                                                                                            \
    };

FLASHATTN_WGMMA_RS64(__half, "f16")
FLASHATTN_WGMMA_RS64(__nv_bfloat16, "bf16")
#undef FLASHATTN_WGMMA_RS64

// D[64 x N] (+)= A[64 x 16] . B[16 x N], fp32 accumulate, both operands from shared memory
// (A K-major). Same D layout as WgmmaRS64, N / 8 n8 tiles. Used for Q.K^T with Q in shared
// memory: a register A operand that stays live across loop trips (Q) was seen to have its
// registers handed to other values by ptxas inside the loop.
enum WgmmaN { N64 = 64, N128 = 128 };
template <WgmmaN kN, int kTransB>
struct WgmmaSS;

template <int kTransB>
struct WgmmaSS<N64, kTransB> {
    template <typename Element>
    __device__ __forceinline__ static void run(float (&d)[8][4], uint64_t a_desc, uint64_t b_desc, bool accumulate) {
        constexpr bool kBf16 = std::is_same_v<Element, __nv_bfloat16>;
        if constexpr (kBf16) {
            asm volatile(
                "{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
                "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {"
                "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
                "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31"
                "}, %32, %33, p, 1, 1, 0, %35;\n}\n"
                : "+f"(d[0][0]), "+f"(d[0][1]), "+f"(d[0][2]), "+f"(d[0][3]), "+f"(d[1][0]), "+f"(d[1][1]), "+f"(d[1][2]), "+f"(d[1][3]),
                  "+f"(d[2][0]), "+f"(d[2][1]), "+f"(d[2][2]), "+f"(d[2][3]), "+f"(d[3][0]), "+f"(d[3][1]), "+f"(d[3][2]), "+f"(d[3][3]),
                  "+f"(d[4][0]), "+f"(d[4][1]), "+f"(d[4][2]), "+f"(d[4][3]), "+f"(d[5][0]), "+f"(d[5][1]), "+f"(d[5][2]), "+f"(d[5][3]),
                  "+f"(d[6][0]), "+f"(d[6][1]), "+f"(d[6][2]), "+f"(d[6][3]), "+f"(d[7][0]), "+f"(d[7][1]), "+f"(d[7][2]), "+f"(d[7][3])
                : "l"(a_desc), "l"(b_desc), "r"(static_cast<int>(accumulate)), "n"(kTransB));
        } else {
            asm volatile(
                "{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
                "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {"
                "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
                "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31"
                "}, %32, %33, p, 1, 1, 0, %35;\n}\n"
                : "+f"(d[0][0]), "+f"(d[0][1]), "+f"(d[0][2]), "+f"(d[0][3]), "+f"(d[1][0]), "+f"(d[1][1]), "+f"(d[1][2]), "+f"(d[1][3]),
                  "+f"(d[2][0]), "+f"(d[2][1]), "+f"(d[2][2]), "+f"(d[2][3]), "+f"(d[3][0]), "+f"(d[3][1]), "+f"(d[3][2]), "+f"(d[3][3]),
                  "+f"(d[4][0]), "+f"(d[4][1]), "+f"(d[4][2]), "+f"(d[4][3]), "+f"(d[5][0]), "+f"(d[5][1]), "+f"(d[5][2]), "+f"(d[5][3]),
                  "+f"(d[6][0]), "+f"(d[6][1]), "+f"(d[6][2]), "+f"(d[6][3]), "+f"(d[7][0]), "+f"(d[7][1]), "+f"(d[7][2]), "+f"(d[7][3])
                : "l"(a_desc), "l"(b_desc), "r"(static_cast<int>(accumulate)), "n"(kTransB));
        }
    }
};

template <int kTransB>
struct WgmmaSS<N128, kTransB> {
    template <typename Element>
    __device__ __forceinline__ static void run(float (&d)[16][4], uint64_t a_desc, uint64_t b_desc, bool accumulate) {
        constexpr bool kBf16 = std::is_same_v<Element, __nv_bfloat16>;
        if constexpr (kBf16) {
            asm volatile(
                "{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
                "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {"
                "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
                "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
                "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
                "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"
                "}, %64, %65, p, 1, 1, 0, %67;\n}\n"
                : "+f"(d[0][0]), "+f"(d[0][1]), "+f"(d[0][2]), "+f"(d[0][3]), "+f"(d[1][0]), "+f"(d[1][1]), "+f"(d[1][2]), "+f"(d[1][3]),
                  "+f"(d[2][0]), "+f"(d[2][1]), "+f"(d[2][2]), "+f"(d[2][3]), "+f"(d[3][0]), "+f"(d[3][1]), "+f"(d[3][2]), "+f"(d[3][3]),
                  "+f"(d[4][0]), "+f"(d[4][1]), "+f"(d[4][2]), "+f"(d[4][3]), "+f"(d[5][0]), "+f"(d[5][1]), "+f"(d[5][2]), "+f"(d[5][3]),
                  "+f"(d[6][0]), "+f"(d[6][1]), "+f"(d[6][2]), "+f"(d[6][3]), "+f"(d[7][0]), "+f"(d[7][1]), "+f"(d[7][2]), "+f"(d[7][3]),
                  "+f"(d[8][0]), "+f"(d[8][1]), "+f"(d[8][2]), "+f"(d[8][3]), "+f"(d[9][0]), "+f"(d[9][1]), "+f"(d[9][2]), "+f"(d[9][3]),
                  "+f"(d[10][0]), "+f"(d[10][1]), "+f"(d[10][2]), "+f"(d[10][3]), "+f"(d[11][0]), "+f"(d[11][1]), "+f"(d[11][2]), "+f"(d[11][3]),
                  "+f"(d[12][0]), "+f"(d[12][1]), "+f"(d[12][2]), "+f"(d[12][3]), "+f"(d[13][0]), "+f"(d[13][1]), "+f"(d[13][2]), "+f"(d[13][3]),
                  "+f"(d[14][0]), "+f"(d[14][1]), "+f"(d[14][2]), "+f"(d[14][3]), "+f"(d[15][0]), "+f"(d[15][1]), "+f"(d[15][2]), "+f"(d[15][3])
                : "l"(a_desc), "l"(b_desc), "r"(static_cast<int>(accumulate)), "n"(kTransB));
        } else {
            asm volatile(
                "{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
                "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {"
                "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
                "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
                "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
                "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"
                "}, %64, %65, p, 1, 1, 0, %67;\n}\n"
                : "+f"(d[0][0]), "+f"(d[0][1]), "+f"(d[0][2]), "+f"(d[0][3]), "+f"(d[1][0]), "+f"(d[1][1]), "+f"(d[1][2]), "+f"(d[1][3]),
                  "+f"(d[2][0]), "+f"(d[2][1]), "+f"(d[2][2]), "+f"(d[2][3]), "+f"(d[3][0]), "+f"(d[3][1]), "+f"(d[3][2]), "+f"(d[3][3]),
                  "+f"(d[4][0]), "+f"(d[4][1]), "+f"(d[4][2]), "+f"(d[4][3]), "+f"(d[5][0]), "+f"(d[5][1]), "+f"(d[5][2]), "+f"(d[5][3]),
                  "+f"(d[6][0]), "+f"(d[6][1]), "+f"(d[6][2]), "+f"(d[6][3]), "+f"(d[7][0]), "+f"(d[7][1]), "+f"(d[7][2]), "+f"(d[7][3]),
                  "+f"(d[8][0]), "+f"(d[8][1]), "+f"(d[8][2]), "+f"(d[8][3]), "+f"(d[9][0]), "+f"(d[9][1]), "+f"(d[9][2]), "+f"(d[9][3]),
                  "+f"(d[10][0]), "+f"(d[10][1]), "+f"(d[10][2]), "+f"(d[10][3]), "+f"(d[11][0]), "+f"(d[11][1]), "+f"(d[11][2]), "+f"(d[11][3]),
                  "+f"(d[12][0]), "+f"(d[12][1]), "+f"(d[12][2]), "+f"(d[12][3]), "+f"(d[13][0]), "+f"(d[13][1]), "+f"(d[13][2]), "+f"(d[13][3]),
                  "+f"(d[14][0]), "+f"(d[14][1]), "+f"(d[14][2]), "+f"(d[14][3]), "+f"(d[15][0]), "+f"(d[15][1]), "+f"(d[15][2]), "+f"(d[15][3])
                : "l"(a_desc), "l"(b_desc), "r"(static_cast<int>(accumulate)), "n"(kTransB));
        }
    }
};

}  // namespace flashattn::sm90
