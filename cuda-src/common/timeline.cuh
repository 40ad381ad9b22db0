// Timestamps of a kernel's phases, per CTA and tile, for the timeline probe (probes/timeline.cu,
// run by scripts/timeline.sh): where a tile's time goes outside its key loop (the CTA's start,
// the first copies, the first softmax, the epilogue, the gap before the SM's next CTA), which
// Nsight Compute sums over the whole launch but cannot place in time. Compiled in only with
// -DFLASHATTN_TIMELINE; in the library every mark is nothing.
#pragma once

#include <stdint.h>

namespace flashattn {

// A tile's record: kTimelineSlots 64-bit values, SM clock cycles unless said.
enum TimelineSlot : int {
    kMarkEntry = 0,        // producer thread: kernel entry (tile 0 only)
    kMarkGridReady = 1,    // producer thread: past the wait for the grid ahead (tile 0 only)
    kMarkBarriersReady = 2,  // producer thread: past the barrier setup's __syncthreads (tile 0 only)
    kMarkQIssued = 3,      // producer thread: the tile's Q copy issued
    kMarkSm = 4,           // value: the SM's id (tile 0 only)
    kMarkEntryNs = 5,      // value: %globaltimer at entry, ns (tile 0 only)
    kMarkTile = 6,         // value: 1 + the tile's (query tile, head, batch) packed, 0 = no record
    kMarkKeyTiles = 7,     // value: the tile's key tiles
    // Consumer c's marks start at kMarkConsumer + c * kMarkConsumerStride.
    kMarkConsumer = 16,
    kMarkConsumerStride = 80,
};
// Offsets within a consumer's marks.
enum TimelineConsumerMark : int {
    kMarkQLanded = 0,      // the tile's Q has landed
    kMarkFirstS = 1,       // S of the first key tile is in registers
    kMarkLastTurn = 2,     // the tile's last turn (P.V of its last key tile) begins
    kMarkLastPV = 3,       // that P.V has completed
    kMarkStaged = 4,       // O normalised and written to shared memory
    kMarkStoreIssued = 5,  // O's copy out issued (or, by threads, done)
    kMarkExit = 6,         // the CTA's stores have read shared memory (last tile only)
    kMarkExitNs = 7,       // value: %globaltimer then, ns
    kMarkTurn = 16,        // kMarkTurn + i: the turn of key tile i begins (i < kTimelineTurns)
};
constexpr int kTimelineSlots = kMarkConsumer + 3 * kMarkConsumerStride;
constexpr int kTimelineTurns = kMarkConsumerStride - kMarkTurn;

#ifdef FLASHATTN_TIMELINE
// Set by the probe (cudaMemcpyToSymbol) before the launch it records. In constant memory, so
// that a mark reads it from the constant cache instead of waiting on a global load (the first
// version's marks, global, put a few hundred cycles between two marks in a row).
struct TimelineBuffer {
    unsigned long long *records;  // [ctas][tiles_per_cta][kTimelineSlots]
    int tiles_per_cta;
};
__constant__ TimelineBuffer flashattn_timeline;

__device__ __forceinline__ unsigned long long *timeline_record(int tile) {
    const TimelineBuffer b = flashattn_timeline;
    if (b.records == nullptr) return nullptr;
    const long long cta = blockIdx.x + static_cast<long long>(gridDim.x) * (blockIdx.y + gridDim.y * blockIdx.z);
    const int t = tile < b.tiles_per_cta ? tile : b.tiles_per_cta - 1;
    return b.records + (cta * b.tiles_per_cta + t) * kTimelineSlots;
}
__device__ __forceinline__ void timeline_value(int tile, int slot, unsigned long long value) {
    if (unsigned long long *r = timeline_record(tile)) r[slot] = value;
}
__device__ __forceinline__ unsigned long long timeline_clock() {
    unsigned long long c;
    asm volatile("mov.u64 %0, %%clock64;\n" : "=l"(c));
    return c;
}
__device__ __forceinline__ unsigned long long timeline_ns() {
    unsigned long long c;
    asm volatile("mov.u64 %0, %%globaltimer;\n" : "=l"(c));
    return c;
}
__device__ __forceinline__ unsigned timeline_sm() {
    unsigned s;
    asm volatile("mov.u32 %0, %%smid;\n" : "=r"(s));
    return s;
}
// The mark of one thread (the caller picks which).
__device__ __forceinline__ void timeline_mark(int tile, int slot) { timeline_value(tile, slot, timeline_clock()); }
#else
__device__ __forceinline__ void timeline_value(int, int, unsigned long long) {}
__device__ __forceinline__ unsigned long long timeline_ns() { return 0; }
__device__ __forceinline__ unsigned timeline_sm() { return 0; }
__device__ __forceinline__ void timeline_mark(int, int) {}
#endif

}  // namespace flashattn
