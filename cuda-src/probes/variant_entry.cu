// One source variant of the warp-specialized kernel for the variant A/B probe (variant_ab.cu):
// compiled once per variant, each against its own copy of cuda-src (scripts/variant-ab.sh), with
// the library's namespace renamed so that the variants' kernels, launchers and statics stay apart
// when one executable links them all, and reached through one C entry named by the build.
//
// The rename is a macro on the namespace's name (VARIANT_NAMESPACE), set before anything of
// cuda-src is included; the C contract (flashattn.h) sits outside that namespace and is shared.
#ifndef VARIANT_NAMESPACE
#error "build through scripts/variant-ab.sh: VARIANT_NAMESPACE and VARIANT_ENTRY name this variant"
#endif
#define flashattn VARIANT_NAMESPACE
#include "probes/probe_tiles.cuh"

// Launches the tile of that name and head dim as flashattn_fwd would, with this variant's code:
// UNKNOWN_CONFIG where this variant has no such tile, UNSUPPORTED_FEATURE where the kernel variant
// the call needs was not compiled (scripts/variant-ab.sh: PROBE_EVERY_VARIANT=1).
extern "C" FlashAttnStatus VARIANT_ENTRY(const char *tile, int head_dim, FlashAttnFwdParams *params,
                                         cudaStream_t stream) {
    const flashattn::probe::ProbeTile *t = flashattn::probe::find_probe_tile(tile, head_dim);
    if (t == nullptr) return FLASHATTN_STATUS_UNKNOWN_CONFIG;
    return flashattn::probe::launch_like_fwd(*t, params, stream);
}
