//! The co-build check of issue 11: an application that depends on candle-core 0.11 with its
//! `cuda` feature and on flashattn type-checks, and both see one cudarc.
//!
//! candle-core asks cudarc for `dynamic-linking`; flashattn asks for `fallback-dynamic-loading`,
//! which gives way to whatever linking mode the application picks (cudarc's build script would
//! panic on two modes at once). `cargo check -p flashattn-cobuild-check` runs that build script
//! with the unified features, and the functions below compile only if candle's cudarc types
//! are flashattn's: candle's stream and candle-allocated buffers go straight into
//! `flashattn::forward`. scripts/test.sh also asserts that the lockfile holds a single cudarc.
#![warn(missing_docs)]

use std::sync::Arc;

use candle_core::cuda_backend::cudarc as candle_cudarc;
use flashattn::{AttentionParams, Strides, Tensor, TensorMut};

/// candle's stream, typed as flashattn's: the same `cudarc::driver::CudaStream`.
pub fn candle_stream(dev: &candle_core::CudaDevice) -> Arc<flashattn::cudarc::driver::CudaStream> {
    dev.cuda_stream()
}

/// One launch on buffers that candle allocated, on candle's stream.
pub fn launch_on_candle_buffers(
    dev: &candle_core::CudaDevice,
    p: &AttentionParams,
) -> Result<flashattn::LaunchInfo, Box<dyn std::error::Error + Send + Sync>> {
    let stream = dev.cuda_stream();
    let q_len = p.batch * p.seqlen_q * p.heads_q * p.head_dim;
    let kv_len = p.batch * p.seqlen_k * p.heads_kv * p.head_dim;
    let q: candle_cudarc::driver::CudaSlice<half::bf16> = dev.alloc_zeros(q_len)?;
    let k: candle_cudarc::driver::CudaSlice<half::bf16> = dev.alloc_zeros(kv_len)?;
    let v: candle_cudarc::driver::CudaSlice<half::bf16> = dev.alloc_zeros(kv_len)?;
    let mut o: candle_cudarc::driver::CudaSlice<half::bf16> = dev.alloc_zeros(q_len)?;
    let mut lse = dev.alloc_zeros::<f32>(p.batch * p.heads_q * p.seqlen_q)?;
    let qs = Strides::bshd(p.seqlen_q, p.heads_q, p.head_dim);
    let ks = Strides::bshd(p.seqlen_k, p.heads_kv, p.head_dim);
    Ok(flashattn::forward(
        &stream,
        p,
        Tensor::new(&q, qs),
        Tensor::new(&k, ks),
        Tensor::new(&v, ks),
        TensorMut::new(&mut o, qs),
        Some(&mut lse),
    )?)
}

/// flashattn's device probe under candle's linking mode: a plain `bool`, never a panic.
pub fn driver_present() -> bool {
    flashattn::driver_available()
}
