//! flashattn-rs's FlashAttention forward kernels for [candle](https://docs.rs/candle-core)
//! tensors, with the call shapes of `candle-flash-attn`: switching is a change of import.
//!
//! ```no_run
//! # fn main() -> candle_core::Result<()> {
//! use candle_core::{DType, Device, Tensor};
//! let dev = Device::new_cuda(0)?;
//! // [batch, seq, heads, head_dim], f16 or bf16, on the GPU.
//! let q = Tensor::randn(0f32, 1.0, (1, 4096, 32, 128), &dev)?.to_dtype(DType::BF16)?;
//! let k = Tensor::randn(0f32, 1.0, (1, 4096, 8, 128), &dev)?.to_dtype(DType::BF16)?; // GQA: 8 KV heads
//! let v = Tensor::randn(0f32, 1.0, (1, 4096, 8, 128), &dev)?.to_dtype(DType::BF16)?;
//! let scale = 1.0 / (128f32).sqrt();
//! let o = flashattn_candle::flash_attn(&q, &k, &v, scale, true)?; // [1, 4096, 32, 128]
//! let (o, lse) = flashattn_candle::flash_attn_with_lse(&q, &k, &v, scale, true)?; // lse: f32 [1, 32, 4096]
//! # Ok(()) }
//! ```
//!
//! # Layouts
//!
//! q is `[batch, seqlen_q, heads_q, head_dim]`, k and v are `[batch, seqlen_k, heads_kv,
//! head_dim]` with `heads_q` a multiple of `heads_kv` (GQA/MQA). Any strides are taken as they
//! are, without a copy, as long as `head_dim` is the contiguous dimension: contiguous tensors,
//! `[batch, heads, seq, head_dim]` tensors viewed through `.transpose(1, 2)`, narrowed (offset)
//! views and broadcast (stride 0) dimensions. A layout the kernels cannot take (`head_dim` not
//! contiguous, or a start or stride that breaks the kernels' 16-byte vector loads) is an error
//! that says so; this crate never copies behind the caller's back. `.contiguous()` fixes a
//! strided view; a view starting at an element offset that is not a multiple of 8 (16 bytes)
//! needs `.force_contiguous()`, since candle's `.contiguous()` returns a view that is already
//! contiguous unchanged, offset and all.
//!
//! The output is a new contiguous `[batch, seqlen_q, heads_q, head_dim]` tensor of q's dtype;
//! the LSE (natural-log log-sum-exp of each query row's scaled scores) a contiguous f32
//! `[batch, heads_q, seqlen_q]` tensor.
//!
//! # Semantics
//!
//! `o = softmax(softmax_scale * q k^T + mask) v`, f16 or bf16 in and out, f32 softmax and
//! accumulation. The causal mask is aligned bottom-right when `seqlen_q != seqlen_k` (query `i`
//! sees key `j` iff `j <= i + seqlen_k - seqlen_q`, as in FlashAttention-2 and
//! candle-flash-attn); a query row that sees no key gets `o = 0` and `lse = -inf`.
//!
//! # Errors
//!
//! Every refusal is a [`candle_core::Error`], never a panic: CPU or Metal tensors, dtypes other
//! than f16/bf16 (or q, k, v of different dtypes), ranks other than 4, shapes that disagree, a
//! head dim this build has no kernel for ([`flashattn::compiled_head_dims`]), a non-contiguous
//! `head_dim`, misaligned views, a non-finite or non-positive scale. Shape, dtype and layout are
//! checked before the device, so these errors read the same on any device. The launch
//! layer's own checks and CUDA failures come back as errors carrying its message.
//!
//! # Differences from candle-flash-attn
//!
//! - Only [`flash_attn`] (and [`flash_attn_with_lse`]) so far. `flash_attn_windowed`,
//!   `flash_attn_alibi`, `flash_attn_varlen` and the softcap variants follow as the launch
//!   layer gains sliding windows, ALiBi, softcapping and variable-length batches; until then
//!   they are absent, so a build that uses them fails at compile time rather than at run time.
//! - The LSE is returned ([`flash_attn_with_lse`]) instead of being dropped.
//! - Strides and offsets are 64-bit (no 32-bit casts), so tensors past 2^32 elements work.
//! - Kernels for several GPU architectures in one build (`FLASHATTN_CUDA_ARCHS`, default
//!   sm_80 + sm_90a, with a Hopper-specific kernel chosen at run time), not one arch per build.
//! - Head dims 32, 64, 96, 128, 256 (the compiled set, see `FLASHATTN_HEAD_DIMS`); other head
//!   dims are refused rather than padded.
//! - The op is recorded in candle's graph like any custom op; its backward pass is not
//!   implemented (as in candle-flash-attn), so `backward()` through it is an error.
#![warn(missing_docs)]

use std::sync::{Arc, Mutex};

use candle_core::backend::BackendStorage;
use candle_core::op::BackpropOp;
use candle_core::{CpuStorage, CudaStorage, DType, Layout, Result, Shape, Storage, Tensor};
use flashattn::{AttentionParams, Strides};

/// The name of the op in candle's graph and in error messages.
const OP: &str = "flashattn";

/// Fused attention of `q` over `k`, `v`: `softmax(softmax_scale * q k^T [+ causal mask]) v`.
///
/// * `q`: `[batch, seqlen_q, heads_q, head_dim]`, f16 or bf16, on a CUDA device.
/// * `k`, `v`: `[batch, seqlen_k, heads_kv, head_dim]`, q's dtype and device; `heads_q` a
///   multiple of `heads_kv` (GQA/MQA).
/// * `softmax_scale`: usually `1 / sqrt(head_dim)`.
/// * `causal`: bottom-right aligned causal mask.
///
/// Returns `[batch, seqlen_q, heads_q, head_dim]` in q's dtype, contiguous. Same signature as
/// `candle_flash_attn::flash_attn`. See the [crate docs](crate) for layouts and errors.
pub fn flash_attn(
    q: &Tensor,
    k: &Tensor,
    v: &Tensor,
    softmax_scale: f32,
    causal: bool,
) -> Result<Tensor> {
    let op = FlashAttnOp::new(q, k, v, softmax_scale, causal, false)?;
    q.apply_op3(k, v, op)
}

/// [`flash_attn`] that also returns the log-sum-exp of each query row's scaled scores:
/// `(o, lse)` with `lse` f32 `[batch, heads_q, seqlen_q]`, contiguous (`-inf` for a row that
/// sees no key). The LSE is what merging partial attentions (split KV caches, ring attention)
/// needs.
pub fn flash_attn_with_lse(
    q: &Tensor,
    k: &Tensor,
    v: &Tensor,
    softmax_scale: f32,
    causal: bool,
) -> Result<(Tensor, Tensor)> {
    let op = FlashAttnOp::new(q, k, v, softmax_scale, causal, true)?;
    let slot = op.lse.clone();
    let shape = Shape::from((op.params.batch, op.params.heads_q, op.params.seqlen_q));
    let o = q.apply_op3(k, v, op)?;
    // A custom op returns one storage; the LSE comes back through the op's slot. It is not a
    // differentiable output, so it enters the graph as a constant.
    let lse = take_slot(&slot)?.ok_or_else(|| msg("the kernel launch produced no LSE"))?;
    let lse = Tensor::from_storage(Storage::Cuda(lse), shape, BackpropOp::none(), false);
    Ok((o, lse))
}

/// Attention from candle's own tensor ops, unfused: `q k^T` (matmul in q's dtype), scale, mask
/// and softmax in f32, probabilities back to q's dtype, `p v` (matmul). Same arguments,
/// layouts and semantics as [`flash_attn`] (bottom-right causal mask, GQA, a row that sees no
/// key gives zeros), on any device and dtype candle supports.
///
/// It is the baseline the GPU tests and the example compare [`flash_attn`] with, and a
/// fallback where the kernels do not run (CPU, f32). It materialises the
/// `[batch, heads_q, seqlen_q, seqlen_k]` scores in f32: memory grows with the square of the
/// sequence length.
pub fn plain_attention(
    q: &Tensor,
    k: &Tensor,
    v: &Tensor,
    softmax_scale: f32,
    causal: bool,
) -> Result<Tensor> {
    use candle_core::D;
    let sizes = check_shapes(q.dims(), k.dims(), v.dims())?;
    let Sizes {
        batch,
        seqlen_q,
        seqlen_k,
        heads_q,
        heads_kv,
        head_dim,
    } = sizes;
    let group = heads_q / heads_kv;
    // [b, s, h, d] -> [b, h, s, d]; each KV head repeated for the `group` query heads it serves.
    let heads_first = |t: &Tensor, heads: usize, seqlen: usize| -> Result<Tensor> {
        let t = t.transpose(1, 2)?;
        let t = if group > 1 && heads == heads_kv {
            t.unsqueeze(2)?
                .broadcast_as((batch, heads_kv, group, seqlen, head_dim))?
                .reshape((batch, heads_q, seqlen, head_dim))?
        } else {
            t
        };
        t.contiguous()
    };
    let q = heads_first(q, heads_q, seqlen_q)?;
    let k = heads_first(k, heads_kv, seqlen_k)?;
    let v = heads_first(v, heads_kv, seqlen_k)?;
    let dtype = q.dtype();
    let scores = (q.matmul(&k.t()?)?.to_dtype(DType::F32)? * softmax_scale as f64)?;
    let scores = if causal {
        // Bottom-right aligned: query i sees key j iff j <= i + seqlen_k - seqlen_q.
        let shift = seqlen_k as i64 - seqlen_q as i64;
        let mask: Vec<f32> = (0..seqlen_q as i64)
            .flat_map(|i| {
                (0..seqlen_k as i64).map(move |j| {
                    if j <= i + shift {
                        0.0
                    } else {
                        f32::NEG_INFINITY
                    }
                })
            })
            .collect();
        let mask = Tensor::from_vec(mask, (seqlen_q, seqlen_k), scores.device())?;
        scores.broadcast_add(&mask)?
    } else {
        scores
    };
    // Softmax written out so that a row with every key masked gives zeros instead of NaN: its
    // maximum is clamped to a finite value (exp(-inf) = 0) and its sum away from zero.
    let max = scores.max_keepdim(D::Minus1)?.maximum(f32::MIN)?;
    let e = scores.broadcast_sub(&max)?.exp()?;
    let sum = e.sum_keepdim(D::Minus1)?.maximum(f32::MIN_POSITIVE)?;
    let p = e.broadcast_div(&sum)?.to_dtype(dtype)?;
    p.matmul(&v)?.transpose(1, 2)?.contiguous()
}

/// The problem sizes of one call, as the launch layer takes them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Sizes {
    batch: usize,
    seqlen_q: usize,
    seqlen_k: usize,
    heads_q: usize,
    heads_kv: usize,
    head_dim: usize,
}

/// The candle custom op. Holds the call's options and checked sizes; the launch happens in
/// [`candle_core::CustomOp3::cuda_fwd`].
struct FlashAttnOp {
    params: AttentionParams,
    dtype: DType,
    want_lse: bool,
    /// Where `cuda_fwd` leaves the LSE for [`flash_attn_with_lse`].
    lse: Arc<Mutex<Option<CudaStorage>>>,
}

impl FlashAttnOp {
    /// Check everything that can be checked without a GPU, in the order a user would fix it:
    /// rank, dtype, shapes, layout, head dim, scale, and the device last.
    fn new(
        q: &Tensor,
        k: &Tensor,
        v: &Tensor,
        softmax_scale: f32,
        causal: bool,
        want_lse: bool,
    ) -> Result<Self> {
        let dtype = check_dtypes(q.dtype(), k.dtype(), v.dtype())?;
        let (qd, kd, vd) = (q.dims(), k.dims(), v.dims());
        let sizes = check_shapes(qd, kd, vd)?;
        for (name, t) in [("q", q), ("k", k), ("v", v)] {
            strides_of(name, t.dims(), t.stride())?;
            check_start(name, t.layout().start_offset())?;
        }
        check_head_dim(dtype, sizes.head_dim)?;
        if !(softmax_scale.is_finite() && softmax_scale > 0.0) {
            return Err(msg(format!(
                "softmax_scale {softmax_scale} must be finite and > 0"
            )));
        }
        for (name, t) in [("q", q), ("k", k), ("v", v)] {
            if !t.device().is_cuda() {
                return Err(msg(format!(
                    "{name} is on {:?}; the kernels run on CUDA devices only (move the tensors \
                     with .to_device(&Device::new_cuda(0)?) or use candle's plain attention)",
                    t.device().location()
                )));
            }
        }
        Ok(FlashAttnOp {
            params: AttentionParams {
                heads_kv: sizes.heads_kv,
                causal,
                softmax_scale: Some(softmax_scale),
                ..AttentionParams::new(
                    sizes.batch,
                    sizes.seqlen_q,
                    sizes.seqlen_k,
                    sizes.heads_q,
                    sizes.head_dim,
                )
            },
            dtype,
            want_lse,
            lse: Arc::new(Mutex::new(None)),
        })
    }

    fn launch<T>(
        &self,
        q: (&CudaStorage, &Layout),
        k: (&CudaStorage, &Layout),
        v: (&CudaStorage, &Layout),
    ) -> Result<(CudaStorage, Shape)>
    where
        T: flashattn::Element + candle_core::cuda_backend::CudaDType,
    {
        let p = &self.params;
        // The layouts candle hands over are the tensors' own, checked in `new`; re-derive the
        // strides from them all the same, since they are what the kernel addresses.
        let (qv, qs) = view::<T>("q", q)?;
        let (kv, ks) = view::<T>("k", k)?;
        let (vv, vs) = view::<T>("v", v)?;

        let dev = q.0.device();
        let o_shape = Shape::from((p.batch, p.seqlen_q, p.heads_q, p.head_dim));
        // SAFETY: the kernel writes every element of O (a row that sees no key gets zeros), and
        // of the LSE when one is passed, before anything reads them.
        let mut o = unsafe { dev.alloc::<T>(o_shape.elem_count()) }?;
        let mut lse = if self.want_lse {
            Some(unsafe { dev.alloc::<f32>(p.batch * p.heads_q * p.seqlen_q) }?)
        } else {
            None
        };
        let stream = dev.cuda_stream();
        flashattn::forward(
            &stream,
            p,
            flashattn::Tensor::new(&qv, qs),
            flashattn::Tensor::new(&kv, ks),
            flashattn::Tensor::new(&vv, vs),
            flashattn::TensorMut::new(&mut o, Strides::bshd(p.seqlen_q, p.heads_q, p.head_dim)),
            lse.as_mut(),
        )
        .map_err(|e| msg(e.to_string()))?;
        if let Some(lse) = lse {
            *self.lse.lock().unwrap_or_else(|e| e.into_inner()) =
                Some(CudaStorage::wrap_cuda_slice(lse, dev.clone()));
        }
        Ok((CudaStorage::wrap_cuda_slice(o, dev.clone()), o_shape))
    }
}

/// The device view of one input, from its layout's start, and its strides. The layouts candle
/// hands over are the tensors' own, checked in `FlashAttnOp::new`; the strides are re-derived
/// from them all the same, since they are what the kernel addresses.
fn view<'a, T: candle_core::cuda_backend::CudaDType>(
    name: &'static str,
    (s, l): (&'a CudaStorage, &Layout),
) -> Result<(flashattn::cudarc::driver::CudaView<'a, T>, Strides)> {
    let strides = strides_of(name, l.dims(), l.stride())?;
    let slice = s.as_cuda_slice::<T>()?;
    let start = l.start_offset();
    if start > slice.len() {
        return Err(msg(format!(
            "{name} starts at element {start} of a {}-element buffer",
            slice.len()
        )));
    }
    Ok((slice.slice(start..), strides))
}

impl candle_core::CustomOp3 for FlashAttnOp {
    fn name(&self) -> &'static str {
        OP
    }

    fn cpu_fwd(
        &self,
        _: &CpuStorage,
        _: &Layout,
        _: &CpuStorage,
        _: &Layout,
        _: &CpuStorage,
        _: &Layout,
    ) -> Result<(CpuStorage, Shape)> {
        // Unreachable through this crate's functions (they check the device first); kept for
        // anyone applying the op by other means.
        Err(msg(
            "the kernels run on CUDA devices only; these tensors are on the CPU",
        ))
    }

    fn cuda_fwd(
        &self,
        q: &CudaStorage,
        q_l: &Layout,
        k: &CudaStorage,
        k_l: &Layout,
        v: &CudaStorage,
        v_l: &Layout,
    ) -> Result<(CudaStorage, Shape)> {
        let sizes = check_shapes(q_l.dims(), k_l.dims(), v_l.dims())?;
        let p = &self.params;
        let expected = Sizes {
            batch: p.batch,
            seqlen_q: p.seqlen_q,
            seqlen_k: p.seqlen_k,
            heads_q: p.heads_q,
            heads_kv: p.heads_kv,
            head_dim: p.head_dim,
        };
        if sizes != expected {
            return Err(msg(format!(
                "the op was built for {expected:?} but applied to {sizes:?}"
            )));
        }
        let dtype = check_dtypes(q.dtype(), k.dtype(), v.dtype())?;
        if dtype != self.dtype {
            return Err(msg(format!(
                "the op was built for {:?} but applied to {dtype:?}",
                self.dtype
            )));
        }
        match dtype {
            DType::F16 => self.launch::<half::f16>((q, q_l), (k, k_l), (v, v_l)),
            DType::BF16 => self.launch::<half::bf16>((q, q_l), (k, k_l), (v, v_l)),
            other => Err(msg(format!("dtype {other:?} reached the launch"))),
        }
    }
}

fn msg(text: impl std::fmt::Display) -> candle_core::Error {
    candle_core::Error::Msg(format!("{OP}: {text}"))
}

fn take_slot(slot: &Mutex<Option<CudaStorage>>) -> Result<Option<CudaStorage>> {
    Ok(slot.lock().unwrap_or_else(|e| e.into_inner()).take())
}

/// q, k and v must share one of the kernels' dtypes.
fn check_dtypes(q: DType, k: DType, v: DType) -> Result<DType> {
    if !matches!(q, DType::F16 | DType::BF16) {
        return Err(msg(format!(
            "q has dtype {q:?}; the kernels take f16 or bf16 (convert with .to_dtype(DType::BF16))"
        )));
    }
    for (name, d) in [("k", k), ("v", v)] {
        if d != q {
            return Err(msg(format!(
                "{name} has dtype {d:?} but q has {q:?}; q, k and v must share one dtype"
            )));
        }
    }
    Ok(q)
}

/// Ranks, agreeing sizes, GQA divisibility and non-zero sizes.
fn check_shapes(q: &[usize], k: &[usize], v: &[usize]) -> Result<Sizes> {
    for (name, d) in [("q", q), ("k", k), ("v", v)] {
        if d.len() != 4 {
            return Err(msg(format!(
                "{name} has shape {d:?}; expected rank 4 [batch, seq, heads, head_dim]"
            )));
        }
    }
    let (batch, seqlen_q, heads_q, head_dim) = (q[0], q[1], q[2], q[3]);
    let (seqlen_k, heads_kv) = (k[1], k[2]);
    if k != v {
        return Err(msg(format!(
            "k has shape {k:?} but v has {v:?}; they must be equal"
        )));
    }
    if k[0] != batch || k[3] != head_dim {
        return Err(msg(format!(
            "q has shape {q:?} but k has {k:?}; batch and head_dim must agree"
        )));
    }
    for (what, n) in [
        ("batch", batch),
        ("seqlen_q", seqlen_q),
        ("seqlen_k", seqlen_k),
        ("heads_q", heads_q),
        ("heads_kv", heads_kv),
        ("head_dim", head_dim),
    ] {
        if n == 0 {
            return Err(msg(format!("{what} is 0; every size must be at least 1")));
        }
    }
    if heads_q % heads_kv != 0 {
        return Err(msg(format!(
            "q has {heads_q} heads, not a multiple of k and v's {heads_kv} (GQA needs each KV \
             head to serve the same number of query heads)"
        )));
    }
    Ok(Sizes {
        batch,
        seqlen_q,
        seqlen_k,
        heads_q,
        heads_kv,
        head_dim,
    })
}

/// candle's element strides of a `[b, s, h, d]` tensor as the launch layer's [`Strides`].
/// The kernels load `head_dim` as contiguous vectors; any other stride is free.
fn strides_of(name: &str, dims: &[usize], stride: &[usize]) -> Result<Strides> {
    if dims.len() != 4 || stride.len() != 4 {
        return Err(msg(format!(
            "{name} has shape {dims:?}; expected rank 4 [batch, seq, heads, head_dim]"
        )));
    }
    // A dimension of size 1 is never stepped over, so its stride does not matter.
    if stride[3] != 1 && dims[3] != 1 {
        return Err(msg(format!(
            "{name} has strides {stride:?} for shape {dims:?}: its last dimension (head_dim) \
             is not contiguous; call .contiguous() on it first (that copies)"
        )));
    }
    let i = |x: usize| -> Result<i64> {
        i64::try_from(x).map_err(|_| msg(format!("{name}: stride {x} does not fit in i64")))
    };
    Ok(Strides {
        batch: i(stride[0])?,
        row: i(stride[1])?,
        head: i(stride[2])?,
    })
}

/// The kernels load rows as 16-byte vectors, so a view must start on a 16-byte boundary of its
/// buffer (candle allocates buffers at least that aligned): 8 elements of f16/bf16.
fn check_start(name: &str, start: usize) -> Result<()> {
    if start % 8 != 0 {
        return Err(msg(format!(
            "{name} starts at element {start} of its buffer, not a multiple of 8 (16 bytes), as \
             the kernels' vector loads need; .force_contiguous() makes an aligned copy (.contiguous() \
             returns a contiguous view unchanged)"
        )));
    }
    Ok(())
}

fn check_head_dim(dtype: DType, head_dim: usize) -> Result<()> {
    let fa_dtype = match dtype {
        DType::F16 => flashattn::DType::F16,
        _ => flashattn::DType::BF16,
    };
    let compiled = flashattn::compiled_head_dims(fa_dtype);
    if !compiled.contains(&head_dim) {
        return Err(msg(format!(
            "head_dim {head_dim} has no kernel in this build for {dtype:?}; compiled: \
             {compiled:?} (FLASHATTN_HEAD_DIMS at build time)"
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strides_map_candle_layouts_without_copies() {
        // Contiguous [b, s, h, d].
        let s = strides_of("q", &[2, 5, 3, 8], &[120, 24, 8, 1]).unwrap();
        assert_eq!(s, Strides::bshd(5, 3, 8));
        // [b, h, s, d] storage seen through transpose(1, 2).
        let s = strides_of("q", &[2, 5, 3, 8], &[120, 8, 40, 1]).unwrap();
        assert_eq!(s, Strides::bhsd(5, 3, 8));
        // A head_dim of 1 may have any stride.
        assert!(strides_of("q", &[1, 2, 3, 1], &[6, 3, 1, 7]).is_ok());
        let e = strides_of("k", &[1, 2, 3, 8], &[48, 1, 2, 6]).unwrap_err();
        assert!(e.to_string().contains("not contiguous"), "{e}");
    }

    #[test]
    fn shapes_are_checked_before_anything_runs() {
        let ok = check_shapes(&[2, 7, 8, 64], &[2, 9, 2, 64], &[2, 9, 2, 64]).unwrap();
        assert_eq!(
            (ok.heads_q, ok.heads_kv, ok.seqlen_q, ok.seqlen_k),
            (8, 2, 7, 9)
        );
        for (q, k, v, needle) in [
            (
                &[2, 7, 8][..],
                &[2, 9, 2, 64][..],
                &[2, 9, 2, 64][..],
                "rank 4",
            ),
            (
                &[2, 7, 8, 64],
                &[2, 9, 3, 64],
                &[2, 9, 3, 64],
                "not a multiple",
            ),
            (&[2, 7, 8, 64], &[1, 9, 2, 64], &[1, 9, 2, 64], "must agree"),
            (&[2, 7, 8, 64], &[2, 9, 2, 32], &[2, 9, 2, 32], "must agree"),
            (
                &[2, 7, 8, 64],
                &[2, 9, 2, 64],
                &[2, 8, 2, 64],
                "must be equal",
            ),
            (
                &[2, 0, 8, 64],
                &[2, 9, 2, 64],
                &[2, 9, 2, 64],
                "seqlen_q is 0",
            ),
        ] {
            let e = check_shapes(q, k, v).unwrap_err().to_string();
            assert!(e.contains(needle), "{q:?} {k:?} {v:?}: {e}");
        }
    }
}
