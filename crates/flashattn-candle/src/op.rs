//! The candle custom op: one call's checked sizes and options, launched in `cuda_fwd` through
//! the launch layer (`flashattn::forward_with`, or `flashattn::forward_varlen` for packed
//! sequences). The public functions of the crate describe their call as a [`Call`] and [`run`]
//! it (or [`run_with_lse`]).

use std::sync::{Arc, Mutex};

use candle_core::backend::BackendStorage;
use candle_core::cuda_backend::CudaDType;
use candle_core::op::BackpropOp;
use candle_core::{CpuStorage, CudaStorage, DType, Layout, Result, Shape, Storage, Tensor};
use flashattn::cudarc::driver::CudaView;
use flashattn::{AttentionParams, HeadVectors, Strides};

use crate::checks::{
    OP, Sizes, check_alibi_slopes, check_dtypes, check_head_dim, check_packed_shapes,
    check_same_device, check_scale, check_seqlens, check_shapes, check_start, fa2_window, msg,
    softcap_of, strides_of,
};

/// What one call asks for besides q, k and v.
pub(crate) struct Call<'a> {
    pub softmax_scale: f32,
    /// `window_size_left`, `window_size_right` as candle-flash-attn takes them (its causal flag
    /// is `(None, Some(0))`), read as FlashAttention-2 reads them (`fa2_window`).
    pub window: (Option<usize>, Option<usize>),
    /// f32 `[heads_q]` on q's device.
    pub alibi_slopes: Option<&'a Tensor>,
    /// FlashAttention-2's convention: 0 for none.
    pub softcap: f32,
    /// Packed sequences (varlen); `None` for a dense batch.
    pub packed: Option<Packed<'a>>,
}

impl Call<'_> {
    /// A dense call with only a scale and a window.
    pub fn new(softmax_scale: f32, window: (Option<usize>, Option<usize>)) -> Self {
        Call {
            softmax_scale,
            window,
            alibi_slopes: None,
            softcap: 0.0,
            packed: None,
        }
    }
}

/// The sequences of a varlen call: candle-flash-attn's `seqlens_q` / `seqlens_k` (prefix sums)
/// and the longest lengths.
pub(crate) struct Packed<'a> {
    pub seqlens_q: &'a Tensor,
    pub seqlens_k: &'a Tensor,
    pub max_seqlen_q: usize,
    pub max_seqlen_k: usize,
}

impl<'a> Packed<'a> {
    pub fn new(
        seqlens_q: &'a Tensor,
        seqlens_k: &'a Tensor,
        max_seqlen_q: usize,
        max_seqlen_k: usize,
    ) -> Self {
        Packed {
            seqlens_q,
            seqlens_k,
            max_seqlen_q,
            max_seqlen_k,
        }
    }
}

/// Apply the call: the output.
pub(crate) fn run(q: &Tensor, k: &Tensor, v: &Tensor, call: &Call) -> Result<Tensor> {
    q.apply_op3(k, v, FlashAttnOp::new(q, k, v, call, false)?)
}

/// Apply the call: the output and the LSE. A custom op returns one storage; the LSE comes back
/// through the op's slot. It is not a differentiable output, so it enters the graph as a
/// constant.
pub(crate) fn run_with_lse(
    q: &Tensor,
    k: &Tensor,
    v: &Tensor,
    call: &Call,
) -> Result<(Tensor, Tensor)> {
    let op = FlashAttnOp::new(q, k, v, call, true)?;
    let (slot, lse_shape) = (op.lse.clone(), op.lse_shape(q.dims()[0]));
    let o = q.apply_op3(k, v, op)?;
    let lse = slot
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .take()
        .ok_or_else(|| msg("the kernel launch produced no LSE"))?;
    let lse = Tensor::from_storage(Storage::Cuda(lse), lse_shape, BackpropOp::none(), false);
    Ok((o, lse))
}

/// The sequences of a varlen call as the op keeps them (the packed row counts are the tensors').
struct Sequences {
    seqlens_q: Tensor,
    seqlens_k: Tensor,
}

/// The op: the call's options and checked sizes; the launch happens in
/// [`candle_core::CustomOp3::cuda_fwd`].
struct FlashAttnOp {
    params: AttentionParams,
    dtype: DType,
    want_lse: bool,
    alibi_slopes: Option<Tensor>,
    sequences: Option<Sequences>,
    /// Where `cuda_fwd` leaves the LSE for [`run`].
    lse: Arc<Mutex<Option<CudaStorage>>>,
}

impl FlashAttnOp {
    /// Check everything that can be checked without a GPU, in the order a user would fix it:
    /// dtype, ranks and shapes, layout, head dim, scalar options, side tensors, and the
    /// devices last.
    fn new(q: &Tensor, k: &Tensor, v: &Tensor, call: &Call, want_lse: bool) -> Result<Self> {
        let dtype = check_dtypes(q.dtype(), k.dtype(), v.dtype())?;
        let (qd, kd, vd) = (q.dims(), k.dims(), v.dims());
        let sizes = match &call.packed {
            None => check_shapes(qd, kd, vd)?,
            Some(s) => {
                let batch = check_seqlens(s.seqlens_q, s.seqlens_k)?;
                check_packed_shapes(qd, kd, vd, batch, s.max_seqlen_q, s.max_seqlen_k)?
            }
        };
        for (name, t) in [("q", q), ("k", k), ("v", v)] {
            strides_of(name, t.dims(), t.stride())?;
            check_start(name, t.layout().start_offset())?;
        }
        check_head_dim(dtype, sizes.head_dim)?;
        check_scale(call.softmax_scale)?;
        let softcap = softcap_of(call.softcap)?;
        if let Some(slopes) = call.alibi_slopes {
            check_alibi_slopes(slopes, sizes.heads_q)?;
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
        for (name, t) in [("k", k), ("v", v)] {
            check_same_device(name, t, q)?;
        }
        if let Some(slopes) = call.alibi_slopes {
            check_same_device("alibi_slopes", slopes, q)?;
        }
        if let Some(s) = &call.packed {
            check_same_device("seqlens_q", s.seqlens_q, q)?;
            check_same_device("seqlens_k", s.seqlens_k, q)?;
        }
        let (causal, window) = fa2_window(call.window.0, call.window.1, sizes.seqlen_k);
        Ok(FlashAttnOp {
            params: AttentionParams {
                heads_kv: sizes.heads_kv,
                causal,
                window,
                softcap,
                softmax_scale: Some(call.softmax_scale),
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
            alibi_slopes: call.alibi_slopes.cloned(),
            sequences: call.packed.as_ref().map(|s| Sequences {
                seqlens_q: s.seqlens_q.clone(),
                seqlens_k: s.seqlens_k.clone(),
            }),
            lse: Arc::new(Mutex::new(None)),
        })
    }

    /// The LSE's shape: `[batch, heads_q, seqlen_q]`, or `[heads_q, total_q]` for packed
    /// sequences, `total_q` being q's rows (FlashAttention-2's layouts, the launch layer's).
    fn lse_shape(&self, q_rows: usize) -> Shape {
        let p = &self.params;
        match &self.sequences {
            None => Shape::from((p.batch, p.heads_q, p.seqlen_q)),
            Some(_) => Shape::from((p.heads_q, q_rows)),
        }
    }

    /// The sizes the op was built for, as the checks compute them from a call's shapes.
    fn sizes(&self) -> Sizes {
        let p = &self.params;
        Sizes {
            batch: p.batch,
            seqlen_q: p.seqlen_q,
            seqlen_k: p.seqlen_k,
            heads_q: p.heads_q,
            heads_kv: p.heads_kv,
            head_dim: p.head_dim,
        }
    }

    fn launch<T>(
        &self,
        q: (&CudaStorage, &Layout),
        k: (&CudaStorage, &Layout),
        v: (&CudaStorage, &Layout),
    ) -> Result<(CudaStorage, Shape)>
    where
        T: flashattn::Element + CudaDType,
    {
        let p = &self.params;
        let (qv, qs) = view::<T>("q", q)?;
        let (kv, ks) = view::<T>("k", k)?;
        let (vv, vs) = view::<T>("v", v)?;

        let dev = q.0.device();
        // Packed: the tensors' rows (the launch layer checks them against the offsets' ends).
        let (total_q, total_k) = (q.1.dims()[0], k.1.dims()[0]);
        let (o_shape, o_strides) = match &self.sequences {
            None => (
                Shape::from((p.batch, p.seqlen_q, p.heads_q, p.head_dim)),
                Strides::bshd(p.seqlen_q, p.heads_q, p.head_dim),
            ),
            Some(_) => (
                Shape::from((total_q, p.heads_q, p.head_dim)),
                Strides::packed(p.heads_q, p.head_dim),
            ),
        };
        // SAFETY: the kernel writes every element of O (a row that sees no key gets zeros), and
        // of the LSE when one is passed, before anything reads them; in a packed call, every row
        // some sequence covers. Offsets that break their contract leave the other rows as the
        // allocation found them (the crate docs say so): wrong values, but no undefined
        // behaviour, since every bit pattern is an f16, bf16 or f32.
        let mut o = unsafe { dev.alloc::<T>(o_shape.elem_count()) }?;
        let mut lse = if self.want_lse {
            Some(unsafe { dev.alloc::<f32>(self.lse_shape(total_q).elem_count()) }?)
        } else {
            None
        };
        let stream = dev.cuda_stream();
        // The side tensors' storages stay read-locked until the launch has been queued.
        let alibi_storage = self.alibi_slopes.as_ref().map(Tensor::storage_and_layout);
        let alibi = match &alibi_storage {
            Some((s, l)) => Some(side_view::<f32>("alibi_slopes", s, l)?),
            None => None,
        };
        let heads = HeadVectors {
            alibi_slopes: alibi.as_ref(),
            sinks: None::<&CudaView<'_, f32>>,
        };
        let (qt, kt, vt) = (
            flashattn::Tensor::new(&qv, qs),
            flashattn::Tensor::new(&kv, ks),
            flashattn::Tensor::new(&vv, vs),
        );
        let ot = flashattn::TensorMut::new(&mut o, o_strides);
        let launched = match &self.sequences {
            None => flashattn::forward_with(&stream, p, qt, kt, vt, ot, lse.as_mut(), heads),
            Some(s) => {
                let (sq, lq) = s.seqlens_q.storage_and_layout();
                let (sk, lk) = s.seqlens_k.storage_and_layout();
                let (cu_q, cu_k) = (
                    offsets_view("seqlens_q", &sq, lq)?,
                    offsets_view("seqlens_k", &sk, lk)?,
                );
                let seqs = flashattn::Varlen::new(&cu_q, &cu_k, total_q, total_k);
                flashattn::forward_varlen(&stream, p, &seqs, qt, kt, vt, ot, lse.as_mut(), heads)
            }
        };
        launched.map_err(|e| msg(e.to_string()))?;
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
fn view<'a, T: CudaDType>(
    name: &'static str,
    (s, l): (&'a CudaStorage, &Layout),
) -> Result<(CudaView<'a, T>, Strides)> {
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

/// A contiguous side tensor's elements on the device.
fn side_view<'a, T: CudaDType>(name: &str, s: &'a Storage, l: &Layout) -> Result<CudaView<'a, T>> {
    let Storage::Cuda(c) = s else {
        return Err(msg(format!("{name} must be a CUDA tensor")));
    };
    let (first, end) = l.contiguous_offsets().ok_or_else(|| {
        msg(format!(
            "{name} is not contiguous; call .contiguous() on it first"
        ))
    })?;
    Ok(c.as_cuda_slice::<T>()?.slice(first..end))
}

/// Sequence offsets (u32 as candle-flash-attn takes them, or i32) as the launch layer's int32
/// vector: the same bits, so offsets are read as int32 (a u32 offset past 2^31 - 1 is outside
/// any tensor the launch layer accepts, and reads as negative, which the kernels clamp).
fn offsets_view<'a>(name: &str, s: &'a Storage, l: &Layout) -> Result<CudaView<'a, i32>> {
    match s.dtype() {
        DType::I32 => side_view::<i32>(name, s, l),
        _ => {
            let u = side_view::<u32>(name, s, l)?;
            // SAFETY: u32 and i32 have one size and alignment, and every bit pattern is an i32.
            unsafe { u.transmute::<i32>(u.len()) }
                .ok_or_else(|| msg(format!("{name}: no int32 view")))
        }
    }
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
        let expected = self.sizes();
        let (qd, kd, vd) = (q_l.dims(), k_l.dims(), v_l.dims());
        let sizes = match &self.sequences {
            None => check_shapes(qd, kd, vd)?,
            Some(_) => check_packed_shapes(
                qd,
                kd,
                vd,
                expected.batch,
                expected.seqlen_q,
                expected.seqlen_k,
            )?,
        };
        if sizes != expected {
            return Err(msg(format!(
                "the op was built for {expected:?} but applied to {sizes:?} (q {qd:?}, k {kd:?})"
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
