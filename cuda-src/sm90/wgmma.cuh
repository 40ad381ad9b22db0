// Hopper (sm_90a) building blocks: warpgroup MMAs (wgmma) and their shared-memory matrix
// descriptors. Compiled only for sm_90a; every layout fact the kernel relies on is stated here.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <stdint.h>

namespace flashattn::sm90 {

// Tiles live in shared memory in the 128-byte swizzle layout that wgmma reads natively: rows of
// 64 16-bit elements (128 bytes), 16-byte chunk c of row r stored at chunk c ^ (r % 8), the tile
// 1024-byte aligned so the hardware's address-bit swizzle and ours agree. A head dim above 64 is
// split into 64-column "atoms" stored one after another, each [rows][64].
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
//
// Built once per tile and stepped by constant byte offsets: a wgmma's descriptor is the tile's
// plus offset / 16 in the start-address field. Encoding each one from its address instead
// (mask, shift, or, move to a uniform register) cost four to five instructions per wgmma, on
// the path from a consumer's turn to its first wgmma. The field holds the address >> 4 in 14
// bits; every shared-memory address is below 2^18 (228 KB per SM), so the sum never carries
// out of it. That holds for launches without clusters only: in a cluster a CTA's shared
// addresses carry its rank above bit 23, which would land in the leading offset here, so a
// cluster launch must mask the start address first (docs/benchmarks/2026-11-28-h100-multicast.md).
struct Sw128Desc {
    uint32_t lo;  // start address >> 4 | leading offset >> 4 << 16
    uint32_t hi;  // stride offset >> 4 | swizzle mode << 30

    __device__ __forceinline__ Sw128Desc(uint32_t smem_byte_addr, uint32_t leading_bytes, uint32_t stride_bytes)
        : lo((smem_byte_addr >> 4) | (((leading_bytes >> 4) & 0x3FFF) << 16)),
          hi(((stride_bytes >> 4) & 0x3FFF) | (1u << 30)) {}

    // The descriptor of the matrix offset_bytes (a multiple of 16) past the tile's start.
    __device__ __forceinline__ uint64_t at(uint32_t offset_bytes) const {
        return (static_cast<uint64_t>(hi) << 32) | (lo + (offset_bytes >> 4));
    }
};

// This thread's warpgroup (threadIdx.x / 128), broadcast from lane 0 so ptxas knows it is the
// same across the warp: the wgmma descriptors derived from it then live in uniform registers
// instead of being moved there before every wgmma.
__device__ __forceinline__ int warpgroup_index() {
    return __shfl_sync(0xffffffff, static_cast<int>(threadIdx.x / 128), 0);
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

// The accumulator D[n8 tile][4] of an m64nN wgmma as asm outputs, and its register list text.
#define FLASHATTN_D_TILE(d, i) "+f"(d[i][0]), "+f"(d[i][1]), "+f"(d[i][2]), "+f"(d[i][3])
#define FLASHATTN_D64(d)                                                                            \
    FLASHATTN_D_TILE(d, 0), FLASHATTN_D_TILE(d, 1), FLASHATTN_D_TILE(d, 2), FLASHATTN_D_TILE(d, 3), \
        FLASHATTN_D_TILE(d, 4), FLASHATTN_D_TILE(d, 5), FLASHATTN_D_TILE(d, 6), FLASHATTN_D_TILE(d, 7)
#define FLASHATTN_D80(d) FLASHATTN_D64(d), FLASHATTN_D_TILE(d, 8), FLASHATTN_D_TILE(d, 9)
#define FLASHATTN_D96(d) FLASHATTN_D80(d), FLASHATTN_D_TILE(d, 10), FLASHATTN_D_TILE(d, 11)
#define FLASHATTN_D128(d)                                                                              \
    FLASHATTN_D64(d), FLASHATTN_D_TILE(d, 8), FLASHATTN_D_TILE(d, 9), FLASHATTN_D_TILE(d, 10),         \
        FLASHATTN_D_TILE(d, 11), FLASHATTN_D_TILE(d, 12), FLASHATTN_D_TILE(d, 13), FLASHATTN_D_TILE(d, 14), \
        FLASHATTN_D_TILE(d, 15)
#define FLASHATTN_D176(d)                                                                           \
    FLASHATTN_D128(d), FLASHATTN_D_TILE(d, 16), FLASHATTN_D_TILE(d, 17), FLASHATTN_D_TILE(d, 18),        \
        FLASHATTN_D_TILE(d, 19), FLASHATTN_D_TILE(d, 20), FLASHATTN_D_TILE(d, 21)
#define FLASHATTN_D64_REGS \
    "{" "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, " \
    "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31" "}"
#define FLASHATTN_D80_REGS \
    "{" "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, " \
    "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, " \
    "%32, %33, %34, %35, %36, %37, %38, %39" "}"
#define FLASHATTN_D96_REGS \
    "{" "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, " \
    "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, " \
    "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47" "}"
#define FLASHATTN_D176_REGS \
    "{" \
    "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, " \
    "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, " \
    "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, " \
    "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, " \
    "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, " \
    "%80, %81, %82, %83, %84, %85, %86, %87" "}"
#define FLASHATTN_D128_REGS \
    "{" "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, " \
    "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, " \
    "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, " \
    "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63" "}"

// The two warpgroup MMAs of the kernel, fp32 accumulate, for one 16-bit element type:
// - ss: D[64 x N] (+)= A[64 x 16] . B[16 x N] with both operands K-major in shared memory (Q and
//   K for S = Q K^T); N = 64, 80, 96, 128 or 176, from the size of D. Q is not a register operand: one that
//   stayed live across loop trips had its registers handed to other values by ptxas inside
//   the loop.
// - rs: D[64 x N] += A[64 x 16] . B[16 x N] with A from registers and B MN-major (stored K
//   rows of N, like V in O += P V); N = 64, 96 or 128, from the size of D. One N = 128 wgmma
//   replaces two N = 64 halves for head dim 128: half the MMA instructions for the same work,
//   which frees issue slots for the softmax (the B descriptor's leading offset steps from one
//   64-column atom of V to the next). Head dim 96 reads its second atom's first 32 columns
//   only: the hardware addresses each 8-column core matrix through the swizzle on its own.
// Warp w of the warpgroup owns rows 16w..16w+15; per warp, A and D have exactly the register
// layout of mma.sync m16n8k16 (A) and of N / 8 m16n8 C fragments side by side (D[n8 tile][4]),
// so the S accumulator packs into P's A operand with no data movement.
template <typename Element>
struct Wgmma;

// One overload of each, for N columns: D's asm outputs and register list, then the operands after
// it (their numbers follow D's N / 2 registers) and the number of the predicate's operand.
#define FLASHATTN_WGMMA_SS(PTX_TYPE, N, D, D_REGS, OPERANDS, P)                                               \
    __device__ __forceinline__ static void ss(float (&d)[N / 8][4], uint64_t a_desc, uint64_t b_desc,          \
                                              bool accumulate) {                                                \
        asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %" #P ", 0;\n"                                          \
                     "wgmma.mma_async.sync.aligned.m64n" #N "k16.f32." PTX_TYPE "." PTX_TYPE " " D_REGS ", "    \
                     OPERANDS ", p, 1, 1, 0, 0;\n}\n"                                                          \
                     : D(d)                                                                                     \
                     : "l"(a_desc), "l"(b_desc), "r"(static_cast<int>(accumulate)));                            \
    }
#define FLASHATTN_WGMMA_RS(PTX_TYPE, N, D, D_REGS, OPERANDS, P)                                               \
    __device__ __forceinline__ static void rs(float (&d)[N / 8][4], const uint32_t (&a)[4], uint64_t b_desc) { \
        asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %" #P ", 0;\n"                                          \
                     "wgmma.mma_async.sync.aligned.m64n" #N "k16.f32." PTX_TYPE "." PTX_TYPE " " D_REGS ", "    \
                     OPERANDS ", p, 1, 1, 1;\n}\n"                                                             \
                     : D(d)                                                                                     \
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b_desc), "r"(1));                       \
    }
#define FLASHATTN_WGMMA(TYPE, PTX_TYPE)                                                                   \
    template <>                                                                                            \
    struct Wgmma<TYPE> {                                                                                   \
        FLASHATTN_WGMMA_SS(PTX_TYPE, 64, FLASHATTN_D64, FLASHATTN_D64_REGS, "%32, %33", 34)                \
        FLASHATTN_WGMMA_SS(PTX_TYPE, 80, FLASHATTN_D80, FLASHATTN_D80_REGS, "%40, %41", 42)                \
        FLASHATTN_WGMMA_SS(PTX_TYPE, 96, FLASHATTN_D96, FLASHATTN_D96_REGS, "%48, %49", 50)                \
        FLASHATTN_WGMMA_SS(PTX_TYPE, 128, FLASHATTN_D128, FLASHATTN_D128_REGS, "%64, %65", 66)             \
        FLASHATTN_WGMMA_SS(PTX_TYPE, 176, FLASHATTN_D176, FLASHATTN_D176_REGS, "%88, %89", 90)             \
        FLASHATTN_WGMMA_RS(PTX_TYPE, 64, FLASHATTN_D64, FLASHATTN_D64_REGS, "{%32, %33, %34, %35}, %36", 37) \
        FLASHATTN_WGMMA_RS(PTX_TYPE, 96, FLASHATTN_D96, FLASHATTN_D96_REGS, "{%48, %49, %50, %51}, %52", 53) \
        FLASHATTN_WGMMA_RS(PTX_TYPE, 128, FLASHATTN_D128, FLASHATTN_D128_REGS, "{%64, %65, %66, %67}, %68", 69) \
    };

FLASHATTN_WGMMA(__half, "f16")
FLASHATTN_WGMMA(__nv_bfloat16, "bf16")
#undef FLASHATTN_WGMMA
#undef FLASHATTN_WGMMA_SS
#undef FLASHATTN_WGMMA_RS
#undef FLASHATTN_D_TILE
#undef FLASHATTN_D64
#undef FLASHATTN_D80
#undef FLASHATTN_D96
#undef FLASHATTN_D128
#undef FLASHATTN_D176
#undef FLASHATTN_D64_REGS
#undef FLASHATTN_D80_REGS
#undef FLASHATTN_D96_REGS
#undef FLASHATTN_D128_REGS
#undef FLASHATTN_D176_REGS

}  // namespace flashattn::sm90
