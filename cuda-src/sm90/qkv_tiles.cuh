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

}  // namespace flashattn::sm90
