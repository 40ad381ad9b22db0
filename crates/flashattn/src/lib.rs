//! Safe launch layer for flashattn-rs's hand-written CUDA FlashAttention forward kernels.
//!
//! ```text
//! flashattn (this crate)   validation, typed errors, kernel choice, cudarc streams and slices
//!   └─ flashattn-sys       bindgen'd FFI to cuda-src/include/flashattn.h (params struct + status)
//!        └─ cuda-src/      the kernels, compiled by nvcc at build time, static CUDA runtime
//! ```
//!
//! Tensors are `[batch, seqlen, heads, head_dim]` with free element [`Strides`] (head_dim
//! contiguous), so both `[B, S, H, D]` and `[B, H, S, D]` buffers work without copies.
//!
//! ```no_run
//! use flashattn::{AttentionParams, Strides, Tensor, TensorMut};
//! use half::bf16;
//! # fn main() -> Result<(), flashattn::Error> {
//! let ctx = flashattn::open_device(0)?;
//! let stream = ctx.default_stream();
//! let p = AttentionParams { causal: true, ..AttentionParams::new(2, 1024, 1024, 16, 128) };
//! let n = p.batch * p.seqlen_q * p.heads_q * p.head_dim;
//! let q = stream.alloc_zeros::<bf16>(n)?;
//! let (k, v) = (stream.alloc_zeros::<bf16>(n)?, stream.alloc_zeros::<bf16>(n)?);
//! let mut o = stream.alloc_zeros::<bf16>(n)?;
//! let s = Strides::bshd(1024, 16, 128);
//! flashattn::forward(&stream, &p, Tensor::new(&q, s), Tensor::new(&k, s), Tensor::new(&v, s),
//!                    TensorMut::new(&mut o, s), None)?;
//! # Ok(()) }
//! ```
#![warn(missing_docs)]

mod config;
pub mod decode;
mod device;
mod dispatch;
mod error;
mod forward;
pub mod merge;
mod problem;
pub mod varlen;

pub use config::{KernelConfig, compiled_head_dims, kernel_configs};
pub use decode::{
    DecodeParams, PagedKv, RawDecode, RawPaged, check_block_table, decode, decode_raw,
    decode_splits, decode_workspace_len, validate_decode,
};
pub use device::{
    DeviceFacts, SMEM_CAP_VARIABLE, built_archs, compute_capability, device_facts,
    driver_available, open_device, parse_smem_cap, require_supported_compute_capability,
};
pub use dispatch::{DISPATCH_VARIABLE, DispatchRow, RowModifier};
pub use error::{Error, Result};
pub use forward::{
    Feed, ForwardWorkspace, HeadVectors, LaunchInfo, Schedule, Tensor, TensorMut, choose_config,
    choose_config_for, forward, forward_raw, forward_with, forward_with_workspace,
    forward_workspace_len, prepare_forward,
};
pub use merge::{MergeShape, RawState, merge_states, merge_states_raw, validate_merge};
pub use problem::{
    AttentionParams, KernelChoice, MAX_BATCH_X_HEADS, MAX_GRID_YZ, MAX_SEQLEN, MaskAlignment,
    RawForward, RawLse, RawTensor, RawVarlen, RawVector, Strides, Window, validate,
    validate_varlen,
};
pub use varlen::{Varlen, check_varlen_seqlens, forward_varlen, forward_varlen_raw};

/// Re-export of the cudarc version this crate's API uses.
pub use cudarc;

/// Element types of the kernels.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DType {
    /// IEEE half precision (`half::f16`).
    F16,
    /// bfloat16 (`half::bf16`).
    BF16,
}

impl DType {
    /// Bytes per element.
    pub fn size_bytes(self) -> usize {
        2
    }

    /// Short name: `f16` or `bf16`.
    pub fn name(self) -> &'static str {
        match self {
            DType::F16 => "f16",
            DType::BF16 => "bf16",
        }
    }

    pub(crate) fn to_sys(self) -> flashattn_sys::FlashAttnDtype {
        match self {
            DType::F16 => flashattn_sys::FlashAttnDtype::FLASHATTN_DTYPE_F16,
            DType::BF16 => flashattn_sys::FlashAttnDtype::FLASHATTN_DTYPE_BF16,
        }
    }

    pub(crate) fn from_sys(d: flashattn_sys::FlashAttnDtype) -> Option<Self> {
        match d {
            flashattn_sys::FlashAttnDtype::FLASHATTN_DTYPE_F16 => Some(DType::F16),
            flashattn_sys::FlashAttnDtype::FLASHATTN_DTYPE_BF16 => Some(DType::BF16),
            _ => None,
        }
    }
}

impl std::fmt::Display for DType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// A Rust element type the kernels take: [`half::f16`] or [`half::bf16`].
///
/// Sealed: the safe [`forward`] sizes every buffer by `DTYPE`'s element size, so a type of
/// another size implementing it would make the kernels address memory outside the slices.
/// A 4-byte type claiming to be f16 does not compile:
///
/// ```compile_fail,E0277
/// #[derive(Clone, Copy)]
/// struct Wide(u32);
/// unsafe impl flashattn::cudarc::driver::DeviceRepr for Wide {}
/// impl flashattn::Element for Wide {
///     const DTYPE: flashattn::DType = flashattn::DType::F16;
/// }
/// ```
pub trait Element:
    sealed::Sealed + cudarc::driver::DeviceRepr + Copy + Send + Sync + 'static
{
    /// The matching [`DType`].
    const DTYPE: DType;
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for half::f16 {}
    impl Sealed for half::bf16 {}
}

impl Element for half::f16 {
    const DTYPE: DType = DType::F16;
}

impl Element for half::bf16 {
    const DTYPE: DType = DType::BF16;
}
