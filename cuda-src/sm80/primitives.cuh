// Warp-level building blocks of the portable (sm_80 and later) kernel: async copies,
// ldmatrix, the m16n8k16 tensor-core MMA and the shared-memory swizzle. Thin PTX wrappers
// so the kernel reads as its math; every layout fact the kernel relies on is stated here.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <stdint.h>

namespace flashattn::sm80 {

__device__ __forceinline__ uint32_t smem_addr(const void *p) {
    return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

// 16-byte global->shared copy that bypasses L1. src_bytes = 0 writes 16 zero bytes without
// reading: that is how rows past seqlen become zeros (a zero K row gives a finite score that
// the mask then removes; a zero V row keeps 0 * garbage = NaN out of the PV product).
__device__ __forceinline__ void cp_async_16(uint32_t dst, const void *src, bool valid) {
    const int src_bytes = valid ? 16 : 0;
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(src_bytes));
}
// The same copy for a row known to exist: no source-size operand to compute or keep.
__device__ __forceinline__ void cp_async_16(uint32_t dst, const void *src) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(dst), "l"(src));
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int kPendingAllowed>
__device__ __forceinline__ void cp_async_wait() {
    asm volatile("cp.async.wait_group %0;\n" ::"n"(kPendingAllowed));
}

// Four 8x8 b16 matrices; lanes 8i..8i+7 give the row addresses of matrix i, and register i of
// every lane receives matrix i with lane l holding (row l/4, columns 2(l%4), 2(l%4)+1).
__device__ __forceinline__ void ldmatrix_x4(uint32_t (&r)[4], uint32_t addr) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr));
}
// Same, transposed: lane l receives (rows 2(l%4), 2(l%4)+1, column l/4). Reading V [keys, d]
// row-major this way yields the "col" B operand of P.V with no transpose in memory.
__device__ __forceinline__ void ldmatrix_x4_trans(uint32_t (&r)[4], uint32_t addr) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr));
}

// Per-dtype tensor-core MMA (D += A.B, fp32 accumulate) and fp32 -> 16-bit packing.
// Fragments (g = lane/4, t = lane%4): A regs {(g, 2t..), (g+8, 2t..), (g, 2t+8..), (g+8, 2t+8..)};
// B regs {(k 2t.., n g), (k 2t+8.., n g)}; C {(g, 2t), (g, 2t+1), (g+8, 2t), (g+8, 2t+1)}.
template <typename T>
struct Mma;

template <>
struct Mma<__half> {
    __device__ __forceinline__ static void run(float (&d)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1) {
        asm volatile(
            "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
            "{%0, %1, %2, %3};\n"
            : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
            : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
    }
    __device__ __forceinline__ static uint32_t pack(float lo, float hi) {
        __half2 h = __floats2half2_rn(lo, hi);
        return *reinterpret_cast<uint32_t *>(&h);
    }
};

template <>
struct Mma<__nv_bfloat16> {
    __device__ __forceinline__ static void run(float (&d)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1) {
        asm volatile(
            "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
            "{%0, %1, %2, %3};\n"
            : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
            : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
    }
    __device__ __forceinline__ static uint32_t pack(float lo, float hi) {
        __nv_bfloat162 h = __floats2bfloat162_rn(lo, hi);
        return *reinterpret_cast<uint32_t *>(&h);
    }
};

// Element offset of 16-byte chunk `chunk` of row `row` in a [rows, kChunksPerRow * 8] tile.
// ldmatrix reads one chunk column of 8 consecutive rows; unswizzled, rows whose byte offsets
// differ by a multiple of 128 hit the same banks (an 8-way conflict for 128-byte rows). XOR-ing
// the chunk index with bits of the row spreads those 8 reads over all 32 banks:
//  - rows of a multiple of 128 bytes (head_dim 64, 128, 256): chunk ^ (row % 8);
//  - rows of 64 bytes mod 128 (head_dim 32, 96): two rows share each 128-byte line, so the
//    odd row already sits in the other half and chunk ^ ((row / 2) % 4) covers the rest.
// cp.async writes and ldmatrix reads both go through this function, so they cannot disagree.
template <int kChunksPerRow>
__device__ __forceinline__ int swizzle(int row, int chunk) {
    static_assert(kChunksPerRow % 4 == 0, "head_dim must be a multiple of 32");
    int physical;
    if constexpr (kChunksPerRow % 8 == 0) {
        physical = chunk ^ (row & 7);
    } else {
        physical = chunk ^ ((row >> 1) & 3);
    }
    return (row * kChunksPerRow + physical) * 8;
}

// Both swizzles repeat every 8 rows, so moving a lane's address by a multiple of 8 rows is a plain
// add: rows * kChunksPerRow * 16 bytes.
template <int kChunksPerRow>
__host__ __device__ constexpr uint32_t row_bytes(int rows) {
    return static_cast<uint32_t>(rows * kChunksPerRow * 16);
}

// A lane's ldmatrix address inside a swizzled tile, for a chunk that advances by even steps
// (the k16 steps of a GEMM move two chunks at a time). `lane_chunk` is 0 or 1, so
// lane_chunk + step == lane_chunk ^ step, and with a power-of-two row of chunks the chunk bits
// sit below the row bits: the step is one XOR of the byte offset, shared by every ldmatrix of
// that step, instead of a fresh swizzle per ldmatrix. Head dim 96 (12 chunks a row) recomputes.
template <int kChunksPerRow>
struct SwizzledLane {
    int row;
    int lane_chunk;
    uint32_t offset;  // bytes, at step 0

    __device__ __forceinline__ SwizzledLane(int row_, int lane_chunk_)
        : row(row_), lane_chunk(lane_chunk_), offset(swizzle<kChunksPerRow>(row_, lane_chunk_) * 2) {}

    __device__ __forceinline__ uint32_t at(int chunk_step) const {
        if constexpr ((kChunksPerRow & (kChunksPerRow - 1)) == 0) {
            return offset ^ static_cast<uint32_t>(chunk_step * 16);
        } else {
            return swizzle<kChunksPerRow>(row, lane_chunk + chunk_step) * 2;
        }
    }
};

}  // namespace flashattn::sm80
