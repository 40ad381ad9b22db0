// The Hopper asynchronous-copy machinery (the warp-specialized kernel and the TMA feed of the
// one-warpgroup kernels): tensor maps (built on the host), TMA tile loads into the 128-byte swizzle layout, the shared-memory barriers
// (mbarrier) that count their bytes in, and warpgroup register reallocation.
#pragma once

#include <cuda.h>
#include <cuda_runtime.h>
#include <cudaTypedefs.h>
#include <stdint.h>

#include "flashattn.h"

namespace flashattn::sm90 {

// ---------------------------------------------------------------------------------------------
// Host: tensor maps.

// cuTensorMapEncodeTiled is a driver function; the project links the static runtime, not
// libcuda, so the runtime hands out the driver's entry point (looked up once per process).
inline PFN_cuTensorMapEncodeTiled_v12000 tensor_map_encoder() {
    static const PFN_cuTensorMapEncodeTiled_v12000 encode = [] {
        void *fn = nullptr;
        cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
        if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &found) !=
                cudaSuccess ||
            found != cudaDriverEntryPointSuccess)
            fn = nullptr;
        (void)cudaGetLastError();
        return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(fn);
    }();
    return encode;
}

// Everything encode_bshd_map hands the encoder besides the fixed choices (rank, box width,
// swizzle, L2 promotion, fill).
struct TensorMapKey {
    const void *base;
    cuuint64_t dims[4];
    cuuint64_t strides[3];
    uint32_t box_rows;
    uint32_t type;
    bool operator==(const TensorMapKey &o) const {
        return base == o.base && dims[0] == o.dims[0] && dims[1] == o.dims[1] && dims[2] == o.dims[2] &&
               dims[3] == o.dims[3] && strides[0] == o.strides[0] && strides[1] == o.strides[1] &&
               strides[2] == o.strides[2] && box_rows == o.box_rows && type == o.type;
    }
};

// A thread's recently encoded tensor maps. An encode is arithmetic on its arguments alone (no
// context, no device state: the same arguments give the same 128 bytes), yet it cost 0.06-0.22 us
// of host time on the lent H100's hosts, and a warp-specialized launch encodes four
// (docs/benchmarks/2026-11-26-h100-launch-floor.md). A loop over one layer (a benchmark, a decode
// step of a one-layer model) passes the same few tensors call after call, so each thread keeps its
// last kSlots maps, four launches' worth, searched in full (a direct-mapped table let two of one
// launch's four maps share a slot and evict each other on every call) and replaced oldest first;
// a miss costs the full search. Many layers, each with its own K/V cache, cycle
// through more maps than that and miss every time: a larger, hashed table would cover them. Per
// thread: no lock on the launch path. Zero-initialised static storage, no guard.
struct TensorMapMemo {
    static constexpr int kSlots = 16;
    struct Slot {
        TensorMapKey key;
        CUtensorMap map;
        bool filled;
    };
    struct Table {
        Slot slots[kSlots];
        int next;  // the slot the next miss replaces
    };
    static Table &table() {
        static thread_local Table t;
        return t;
    }
    // The slot holding `key`, or null.
    static const Slot *find(const Table &t, const TensorMapKey &key) {
        for (const Slot &s : t.slots)
            if (s.filled && s.key == key) return &s;
        return nullptr;
    }
    static void remember(Table &t, const TensorMapKey &key, const CUtensorMap &map) {
        Slot &s = t.slots[t.next];
        s.key = key;
        s.map = map;
        s.filled = true;
        t.next = (t.next + 1) % kSlots;
    }
};

// A [batch, rows, heads, head_dim] tensor of 2-byte elements (element strides, head_dim
// contiguous) as a 4-D tensor map whose box is `box_rows` rows of one head and 64 columns (one
// 128-byte swizzle atom): a load lands exactly in the layout wgmma.cuh describes, and rows past
// `rows` arrive as zeros. Returns false where TMA cannot express the tensor (a zero or huge
// stride over a dimension longer than one, no driver entry point); the caller then takes
// another kernel.
inline bool encode_bshd_map(CUtensorMap *map, FlashAttnDtype dtype, const void *base, int batch, int rows, int heads,
                            int head_dim, int64_t batch_stride, int64_t row_stride, int64_t head_stride,
                            int box_rows) {
    const PFN_cuTensorMapEncodeTiled_v12000 encode = tensor_map_encoder();
    if (!encode) return false;
    const CUtensorMapDataType type =
        dtype == FLASHATTN_DTYPE_BF16 ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 : CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
    // The key is the encoder's arguments themselves: its extents and strides are handed over.
    TensorMapKey key{base,
                     {static_cast<cuuint64_t>(head_dim), static_cast<cuuint64_t>(rows),
                      static_cast<cuuint64_t>(heads), static_cast<cuuint64_t>(batch)},
                     {},
                     static_cast<uint32_t>(box_rows),
                     static_cast<uint32_t>(type)};
    // The strides of dimensions 1-3 in bytes. A dimension of extent one is never stepped, so its
    // stride only has to be legal (a positive multiple of 16 below 2^40).
    const int64_t element_strides[3] = {row_stride, head_stride, batch_stride};
    for (int i = 0; i < 3; ++i) {
        const int64_t bytes = element_strides[i] * 2;
        if (key.dims[i + 1] == 1) {
            key.strides[i] = 16;
        } else {
            if (bytes <= 0 || bytes % 16 != 0 || bytes >= (int64_t{1} << 40)) return false;
            key.strides[i] = static_cast<cuuint64_t>(bytes);
        }
    }
    TensorMapMemo::Table &memo = TensorMapMemo::table();
    if (const TensorMapMemo::Slot *hit = TensorMapMemo::find(memo, key)) {
        *map = hit->map;
        return true;
    }
    const cuuint32_t box[4] = {64, static_cast<cuuint32_t>(box_rows), 1, 1};
    const cuuint32_t unit[4] = {1, 1, 1, 1};
    if (encode(map, type, 4, const_cast<void *>(base), key.dims, key.strides, box, unit, CU_TENSOR_MAP_INTERLEAVE_NONE,
               CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
               CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) != CUDA_SUCCESS)
        return false;
    TensorMapMemo::remember(memo, key, *map);
    return true;
}

// How a launch's maps see the call's tensors: `batch` batches of `rows_q` query rows and `rows_k`
// key rows; packed varlen tensors are one batch of every sequence's rows (their batch strides
// unused).
struct MapRows {
    int batch, rows_q, rows_k;
};
inline MapRows map_rows(const FlashAttnFwdParams &p, bool packed) {
    return packed ? MapRows{1, p.total_q, p.total_k} : MapRows{p.batch, p.seqlen_q, p.seqlen_k};
}

// The call's Q (and O), K and V as such maps, for a launch that sees its tensors as `batch`
// batches of `rows_q` query rows and `rows_k` key rows (map_rows); false where the map cannot
// describe the tensor.
inline bool encode_q_map(CUtensorMap *map, const FlashAttnFwdParams &p, int batch, int rows_q, int head_dim,
                         int box_rows) {
    return encode_bshd_map(map, p.dtype, p.q, batch, rows_q, p.heads_q, head_dim, p.q_batch_stride, p.q_row_stride,
                           p.q_head_stride, box_rows);
}
inline bool encode_o_map(CUtensorMap *map, const FlashAttnFwdParams &p, int batch, int rows_q, int head_dim,
                         int box_rows) {
    return encode_bshd_map(map, p.dtype, p.o, batch, rows_q, p.heads_q, head_dim, p.o_batch_stride, p.o_row_stride,
                           p.o_head_stride, box_rows);
}
inline bool encode_kv_maps(CUtensorMap *k, CUtensorMap *v, const FlashAttnFwdParams &p, int batch, int rows_k,
                           int head_dim, int box_rows) {
    return encode_bshd_map(k, p.dtype, p.k, batch, rows_k, p.heads_kv, head_dim, p.k_batch_stride, p.k_row_stride,
                           p.k_head_stride, box_rows) &&
           encode_bshd_map(v, p.dtype, p.v, batch, rows_k, p.heads_kv, head_dim, p.v_batch_stride, p.v_row_stride,
                           p.v_head_stride, box_rows);
}

// ---------------------------------------------------------------------------------------------
// Device: barriers, loads, registers.

// Shared-memory barriers (mbarrier, 8 bytes at a shared address): a phase completes when `count`
// threads have arrived and every byte announced with arrive_expect_tx has landed; waiters name
// the phase by its parity.
__device__ __forceinline__ void barrier_init(uint32_t bar, int count) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(count) : "memory");
}
// Makes the initialised barriers visible to the async proxy (TMA) before any copy names them.
__device__ __forceinline__ void fence_barrier_init() {
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
}
__device__ __forceinline__ void barrier_arrive_expect_tx(uint32_t bar, uint32_t bytes) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar), "r"(bytes) : "memory");
}
__device__ __forceinline__ void barrier_arrive(uint32_t bar) {
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(bar) : "memory");
}
__device__ __forceinline__ void barrier_wait(uint32_t bar, uint32_t parity) {
    asm volatile(
        "{\n.reg .pred done;\n"
        "WAIT_%=:\n"
        "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
        "@!done bra WAIT_%=;\n}\n" ::"r"(bar),
        "r"(parity)
        : "memory");
}

// Fetch a tensor map into the TMA unit's descriptor cache ahead of its first copy. The maps are
// kernel parameters, written by no kernel, so this may run before the wait for the grid ahead.
__device__ __forceinline__ void prefetch_tensor_map(const CUtensorMap *map) {
    asm volatile("prefetch.tensormap [%0];\n" ::"l"(reinterpret_cast<uint64_t>(map)) : "memory");
}

// One box of a 4-D tensor map into shared memory; the barrier counts its bytes.
__device__ __forceinline__ void tma_load_4d(uint32_t dst, const CUtensorMap *map, uint32_t bar, int c0, int c1, int c2,
                                            int c3) {
    asm volatile(
        "cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4, "
        "%5}], [%6];\n" ::"r"(dst),
        "l"(reinterpret_cast<uint64_t>(map)), "r"(c0), "r"(c1), "r"(c2), "r"(c3), "r"(bar)
        : "memory");
}

// One box of shared memory (the tensor map's swizzle layout) out to a 4-D tensor map; boxes that
// reach past the tensor's extents are clipped, nothing outside it is written. The copy reads
// shared memory asynchronously: the source may be rewritten only after bulk_wait_read.
__device__ __forceinline__ void tma_store_4d(const CUtensorMap *map, uint32_t src, int c0, int c1, int c2, int c3) {
    asm volatile("cp.async.bulk.tensor.4d.global.shared::cta.bulk_group [%0, {%1, %2, %3, %4}], [%5];\n" ::"l"(
                     reinterpret_cast<uint64_t>(map)),
                 "r"(c0), "r"(c1), "r"(c2), "r"(c3), "r"(src)
                 : "memory");
}
// The stores this thread issued since its last commit become one bulk group.
__device__ __forceinline__ void bulk_commit() { asm volatile("cp.async.bulk.commit_group;\n" ::: "memory"); }
// Wait until every committed bulk group of this thread has read its shared-memory source.
__device__ __forceinline__ void bulk_wait_read() { asm volatile("cp.async.bulk.wait_group.read 0;\n" ::: "memory"); }

// Hand registers between warpgroups: the producer gives back what it does not need, the
// consumers take it (every warp of a warpgroup executes the same one).
template <int kRegs>
__device__ __forceinline__ void warpgroup_release_registers() {
    asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(kRegs));
}
template <int kRegs>
__device__ __forceinline__ void warpgroup_claim_registers() {
    asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(kRegs));
}

// A barrier among `threads` threads of the CTA (a multiple of 32), id 1-15 (0 is __syncthreads).
__device__ __forceinline__ void named_barrier_sync(int id, int threads) {
    asm volatile("bar.sync %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
}
__device__ __forceinline__ void named_barrier_arrive(int id, int threads) {
    asm volatile("bar.arrive %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
}

}  // namespace flashattn::sm90
