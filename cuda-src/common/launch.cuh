// How every kernel of the library is launched: the shared-memory opt-in remembered per kernel
// and device, and programmatic dependent launch (sm_90 and later), by which a grid is launched
// while the kernel before it on the stream finishes, instead of after.
//
// The rule that keeps a dependent launch as ordered as a plain one: a kernel launched as a
// dependent runs wait_for_prerequisite_grids() before it touches global memory (reads of its
// inputs and of cu_seqlens or sinks, writes of O and LSE alike: the kernel before it may still
// be reading the buffer this one writes). The wait returns once that kernel has completed and
// its memory operations are visible; after a plain launch, or when nothing came before, it
// returns at once. A kernel that lets its own dependents launch early
// (allow_dependent_launch) promises nothing else: those dependents wait the same way for its
// completion, so a dependent kernel of the caller's that honours the rule sees all of it.
//
// What the forward kernels do with it, from same-run A/Bs on the H100
// (docs/benchmarks/2026-11-27-h100-dependent-launch.md): every launch but the persistent one is
// a dependent, and none calls allow_dependent_launch, so a dependent of theirs is scheduled once
// all their CTAs have exited, before the grid's completion is signalled. Small launches gain
// 3-6% of their time by graph replay (the seed suite's B1 to B4 H8). Letting dependents launch
// from the start of a CTA, or from the end of its key loop, schedules the next grid while this
// one runs: its CTAs then take whatever SM room is left at that moment and pile onto the SMs
// that had it, and one-wave and causal launches ran up to 32% slower (from the start) or 5%
// (from the loop's end). The persistent launch (one CTA per SM walking its tiles) ran 3-4.5%
// slower as a dependent even without the early call, so it launches plainly.
#pragma once

#include <cuda_runtime.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>

#include "flashattn.h"

namespace flashattn {

// Waits for the grids this one was launched as a dependent of (see above). Before sm_90 the
// instruction does not exist and no launch is made as a dependent (may_launch_as_dependent).
__device__ __forceinline__ void wait_for_prerequisite_grids() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;\n" ::: "memory");
#endif
}

// Lets the next kernel on the stream, if launched as a dependent, be scheduled once every CTA
// of this grid has run this (or exited), instead of after the grid completes. The decode split
// kernel calls it when its combine kernel follows; the forward kernels do not (above).
__device__ __forceinline__ void allow_dependent_launch() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.launch_dependents;\n" ::: "memory");
#endif
}

// What launches of one kernel remember per device (a bit per ordinal below 64), so that the
// driver calls behind each fact run once per device instead of on every launch. One per kernel:
// a function-local static of its launcher, constant-initialised (no guard on the launch path).
struct KernelFacts {
    // The kernel opted in to more than 48 KB of dynamic shared memory. cudaFuncSetAttribute
    // takes the context's lock, and the opt-in stays on the kernel for the life of the context.
    std::atomic<uint64_t> opted_in{0};
    // Whether the kernel may be launched as a programmatic dependent is known / allowed.
    std::atomic<uint64_t> overlap_known{0}, overlap_allowed{0};
};

// Whether `kernel` may be launched as a programmatic dependent on `device`: the device overlaps
// dependent launches (compute capability 9.0 and later) and the code that runs there was
// compiled for sm_90 or later, so that its wait_for_prerequisite_grids() is in it (a build whose
// newest target is sm_80 runs on a Hopper from compute_80 PTX, without the wait: launched as a
// dependent, it could read its inputs before the kernel writing them is done). The environment
// variable `serial_env` set to 1 turns it off, to time the difference.
template <typename Kernel>
bool may_launch_as_dependent(Kernel kernel, int device, KernelFacts &facts, const char *serial_env) {
    if (device < 0) return false;
    const uint64_t bit = device < 64 ? uint64_t{1} << device : 0;
    if (bit && (facts.overlap_known.load(std::memory_order_acquire) & bit))
        return (facts.overlap_allowed.load(std::memory_order_relaxed) & bit) != 0;
    const char *serial = std::getenv(serial_env);
    int major = 0;
    cudaFuncAttributes attributes = {};
    const bool queried = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) == cudaSuccess &&
                         cudaFuncGetAttributes(&attributes, kernel) == cudaSuccess;
    if (!queried) (void)cudaGetLastError();  // a failed query must not leak into the next check
    const bool allowed = queried && !(serial && serial[0] == '1') && major >= 9 && attributes.ptxVersion >= 90;
    if (bit) {
        if (allowed) facts.overlap_allowed.fetch_or(bit, std::memory_order_relaxed);
        facts.overlap_known.fetch_or(bit, std::memory_order_release);
    }
    return allowed;
}

// The forward kernels' switch for may_launch_as_dependent (documented in the README).
inline constexpr const char *kForwardSerialEnv = "FLASHATTN_FORWARD_SERIAL_LAUNCH";

// The current device's SM count (a persistent launch's CTAs), 0 if unknown. Cached per device
// ordinal below 64: this runs on every launch. Zero-initialised static storage, no guard.
inline int current_device_sm_count() {
    static std::atomic<int> cached[64];
    int device = -1;
    if (cudaGetDevice(&device) != cudaSuccess || device < 0) {
        (void)cudaGetLastError();
        return 0;
    }
    if (device < 64) {
        if (const int known = cached[device].load(std::memory_order_relaxed)) return known;
    }
    int sms = 0;
    if (cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    if (device < 64) cached[device].store(sms, std::memory_order_relaxed);
    return sms;
}

// How a forward launch is ordered after the kernel ahead of it (see the top of this file).
enum class LaunchOrder {
    kDependent,  // a programmatic dependent where may_launch_as_dependent allows
    kPlain,      // after that kernel completes
};

// A launch's status for the C API: success, or FLASHATTN_STATUS_CUDA_ERROR with the CUDA error
// in `cuda_error` and the runtime's per-thread last error cleared (left set, the next healthy
// launch on this thread, ours or the caller's, would read it back from cudaGetLastError() and
// report a failure that is not its own).
inline FlashAttnStatus launch_status(cudaError_t err, int32_t *cuda_error) {
    if (err == cudaSuccess) return FLASHATTN_STATUS_SUCCESS;
    (void)cudaGetLastError();
    *cuda_error = static_cast<int32_t>(err);
    return FLASHATTN_STATUS_CUDA_ERROR;
}

// cudaLaunchKernelEx with `config`'s dynamic shared memory opted in where it is above 48 KB: once
// per device, remembered in `facts` (cudaFuncSetAttribute takes the context's lock; idempotent).
// A context destroyed and created again (cudaDeviceReset, a primary context released by every
// holder) forgets the opt-in, so a launch that fails after a remembered one sets it again and
// retries once: a failed launch queued nothing, so the kernel cannot run twice. Returns the
// status; the caller clears the runtime's last error on failure.
template <typename Kernel, typename Args>
cudaError_t launch_opted_in(Kernel kernel, const cudaLaunchConfig_t &config, int device, KernelFacts &facts,
                            const Args &args) {
    const auto opt_in = [&] {
        return cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    static_cast<int>(config.dynamicSmemBytes));
    };
    const bool needs_opt_in = config.dynamicSmemBytes > 48 * 1024;
    // 0: this device is not remembered (ordinal >= 64, or unknown)
    const uint64_t device_bit = device >= 0 && device < 64 ? uint64_t{1} << device : 0;
    const bool remembered = device_bit != 0 && (facts.opted_in.load(std::memory_order_acquire) & device_bit) != 0;
    if (needs_opt_in && !remembered) {
        const cudaError_t err = opt_in();
        if (err != cudaSuccess) return err;
        facts.opted_in.fetch_or(device_bit, std::memory_order_release);
    }
    cudaError_t err = cudaLaunchKernelEx(&config, kernel, args);
    if (err != cudaSuccess && needs_opt_in && remembered) {
        (void)cudaGetLastError();
        const cudaError_t set = opt_in();
        if (set != cudaSuccess) return set;
        err = cudaLaunchKernelEx(&config, kernel, args);
    }
    return err;
}

// Launch a forward kernel over `grid` (tile_grid, or a persistent kernel's CTAs) with the tile's
// dynamic shared memory and `args` as its argument (the params themselves, or a struct that
// carries them), in `order` (every forward kernel begins with wait_for_prerequisite_grids, so it
// may be launched either way); every CUDA status goes back through params->cuda_error
// (launch_status). cudaLaunchKernelEx returns this launch's own status, so no earlier error
// leaks in here.
template <typename Kernel, typename Args>
FlashAttnStatus launch_tiles(Kernel kernel, dim3 grid, int threads, int smem_bytes, FlashAttnFwdParams *params,
                             cudaStream_t stream, KernelFacts &facts, const Args &args,
                             LaunchOrder order = LaunchOrder::kDependent) {
    int device = -1;
    if (cudaGetDevice(&device) != cudaSuccess) {
        (void)cudaGetLastError();
        device = -1;  // neither fact is remembered; the launch itself reports a missing device
    }
    cudaLaunchConfig_t config = {};
    config.gridDim = grid;
    config.blockDim = dim3(threads);
    config.dynamicSmemBytes = static_cast<size_t>(smem_bytes);
    config.stream = stream;
    cudaLaunchAttribute overlap = {};
    overlap.id = cudaLaunchAttributeProgrammaticStreamSerialization;
    overlap.val.programmaticStreamSerializationAllowed = 1;
    if (order == LaunchOrder::kDependent && may_launch_as_dependent(kernel, device, facts, kForwardSerialEnv)) {
        config.attrs = &overlap;
        config.numAttrs = 1;
    }
    return launch_status(launch_opted_in(kernel, config, device, facts, args), &params->cuda_error);
}

}  // namespace flashattn
