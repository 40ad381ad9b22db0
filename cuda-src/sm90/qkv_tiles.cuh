// Where a Hopper CTA keeps its Q tile and its ring of K/V buffers, the layout both sm_90a kernels
// share: from the first 1024-byte aligned address of the dynamic shared memory (wgmma's 128-byte
// swizzle is a function of address bits and repeats every 1024 bytes; TMA boxes assume it too),
//
//   Q tile | K 0 | V 0 | K 1 | V 1 | ... | (the warp-specialized kernel's own: ws_shared_memory.cuh)
//
// each tile whole swizzle atoms (Traits::kQBytes, kTileBytes).
#pragma once

#include <cstdint>

#include "sm80/primitives.cuh"
#include "sm90/wgmma.cuh"

namespace flashattn::sm90 {

template <typename Traits>
struct QkvTiles {
    uint32_t base;  // the first 1024-byte aligned address

    __device__ __forceinline__ explicit QkvTiles(unsigned char *smem_raw)
        : base((sm80::smem_addr(smem_raw) + kSwizzleBytes - 1) & ~static_cast<uint32_t>(kSwizzleBytes - 1)) {}

    __device__ __forceinline__ uint32_t q_tile() const { return base; }
    __device__ __forceinline__ uint32_t k_tile(int stage) const {
        return base + Traits::kQBytes + stage * 2 * Traits::kTileBytes;
    }
    __device__ __forceinline__ uint32_t v_tile(int stage) const { return k_tile(stage) + Traits::kTileBytes; }
    // The end of the ring: where the warp-specialized kernel's own buffers begin.
    __device__ __forceinline__ uint32_t ring_end() const { return k_tile(Traits::kStages); }
};

// Zero rows [valid_rows, kBlockN) of a K/V tile, each of kThreads threads (numbered `thread`)
// taking every kThreads-th 16-byte chunk: a TMA box of packed varlen rows reads past its
// sequence's last key into the next sequence's V, whose values P's zeros would turn into NaN
// where they are infinite. A row's 128 bytes in each atom are its own (the swizzle permutes
// chunks within the row), so whole rows are cleared without computing the permutation. The
// writes go through the generic proxy; the fence orders them before the tensor cores' (async
// proxy) reads, which the caller then releases (a barrier).
template <typename Traits, int kThreads>
__device__ __forceinline__ void zero_tile_rows(uint32_t tile, int valid_rows, int thread) {
    constexpr int kChunksPerAtomRow = kAtomRowBytes / 16;
    const int chunks = (Traits::kBlockN - valid_rows) * Traits::kAtoms * kChunksPerAtomRow;
    for (int i = thread; i < chunks; i += kThreads) {
        const int row = valid_rows + i / (Traits::kAtoms * kChunksPerAtomRow);
        const int atom = i / kChunksPerAtomRow % Traits::kAtoms;
        const int chunk = i % kChunksPerAtomRow;
        const uint32_t addr = tile + (atom * Traits::kBlockN + row) * kAtomRowBytes + chunk * 16;
        asm volatile("st.shared.v4.b32 [%0], {%1, %1, %1, %1};\n" ::"r"(addr), "r"(0) : "memory");
    }
    fence_proxy_async();
}

}  // namespace flashattn::sm90
