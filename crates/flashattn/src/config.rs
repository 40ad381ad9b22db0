//! The compiled kernel configurations, read once from the C registry.

use std::ffi::CStr;
use std::sync::OnceLock;

use crate::DType;

/// One compiled kernel configuration (a tile shape of one kernel for one dtype and head dim).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelConfig {
    /// Id to pass as [`crate::KernelChoice::Id`].
    pub id: u32,
    /// Element type.
    pub dtype: DType,
    /// Head dim.
    pub head_dim: usize,
    /// Query rows per CTA.
    pub block_m: usize,
    /// Keys per inner iteration.
    pub block_n: usize,
    /// Warps per CTA, all KV groups together.
    pub warps: usize,
    /// K/V shared-memory buffers per KV group.
    pub stages: usize,
    /// Warp groups that split the key range inside one CTA and merge at the end (1: none).
    pub kv_splits: usize,
    /// Oldest compute capability it runs on (major * 10 + minor).
    pub min_compute_capability: u32,
    /// Newest compute capability it runs on: arch-specific code (the `sm90_` kernels, built
    /// for sm_90a) runs on one only.
    pub max_compute_capability: u32,
    /// Dynamic shared memory per CTA.
    pub smem_bytes: usize,
    /// Whether this tile was also compiled with softcap and ALiBi (its score-modifier kernel).
    /// Calls with either run only on such configurations; windows, the mask alignment, sinks and
    /// variable length run on every one. (Each tile is compiled in up to three variants, one per
    /// set of inputs, and a call runs the smallest that honours its inputs: see
    /// cuda-src/common/features.cuh; the variant changes no result.)
    pub score_mods: bool,
    /// Stable name, e.g. `sm80_bf16_d128_m128n64w4s2`.
    pub name: &'static str,
}

impl KernelConfig {
    /// Whether this configuration runs on a device of compute capability `cc` (major * 10 + minor).
    pub fn runs_on(&self, cc: u32) -> bool {
        (self.min_compute_capability..=self.max_compute_capability).contains(&cc)
    }

    /// Whether this is a configuration of the warp-specialized Hopper kernel
    /// (cuda-src/sm90/ws_kernel.cuh: a TMA producer warpgroup and two or three consumer
    /// warpgroups), whose names end in `ws`. Its calls run that kernel, except those whose
    /// strides no TMA tensor map describes (a zero batch stride, say), which run its fallback
    /// tile's kernel (cuda-src/tiles.rs, `SM90_WS_TILES`); [`LaunchInfo`](crate::LaunchInfo)
    /// names the one that ran.
    pub fn warp_specialized(&self) -> bool {
        self.name.ends_with("ws")
    }
}

/// Every configuration this build compiled, in id order.
pub fn kernel_configs() -> &'static [KernelConfig] {
    static CONFIGS: OnceLock<Vec<KernelConfig>> = OnceLock::new();
    CONFIGS.get_or_init(|| {
        let n = unsafe { flashattn_sys::flashattn_fwd_config_count() };
        (0..n)
            .filter_map(|id| {
                let mut c = flashattn_sys::FlashAttnConfig::default();
                // SAFETY: `c` is a valid out-pointer; ids 0..n exist.
                let st = unsafe { flashattn_sys::flashattn_fwd_config(id, &mut c) };
                if st != flashattn_sys::FlashAttnStatus::FLASHATTN_STATUS_SUCCESS {
                    return None;
                }
                // SAFETY: names are static NUL-terminated strings in the registry.
                let name = unsafe { CStr::from_ptr(c.name) }.to_str().ok()?;
                Some(KernelConfig {
                    id: c.id as u32,
                    dtype: DType::from_sys(c.dtype)?,
                    head_dim: c.head_dim as usize,
                    block_m: c.block_m as usize,
                    block_n: c.block_n as usize,
                    warps: c.warps as usize,
                    stages: c.stages as usize,
                    kv_splits: c.kv_splits as usize,
                    min_compute_capability: c.min_compute_capability as u32,
                    max_compute_capability: c.max_compute_capability as u32,
                    smem_bytes: c.smem_bytes as usize,
                    score_mods: c.score_mods != 0,
                    name,
                })
            })
            .collect()
    })
}

/// Head dims compiled for `dtype`, ascending.
pub fn compiled_head_dims(dtype: DType) -> Vec<usize> {
    let mut dims: Vec<usize> = kernel_configs()
        .iter()
        .filter(|c| c.dtype == dtype)
        .map(|c| c.head_dim)
        .collect();
    dims.sort_unstable();
    dims.dedup();
    dims
}

/// The configurations that can run a (dtype, head dim) call.
pub(crate) fn candidates(
    dtype: DType,
    head_dim: usize,
) -> impl Iterator<Item = &'static KernelConfig> {
    kernel_configs()
        .iter()
        .filter(move |c| c.dtype == dtype && c.head_dim == head_dim)
}
