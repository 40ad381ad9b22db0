//! Merging two partial attention results over disjoint key sets: the step that split-KV
//! decoding, cascade (shared-prefix) attention and ring attention share.
//!
//! Attention over keys `K = K_a ∪ K_b` from the parts: with `L_x` the log-sum-exp of part x
//! and `O_x` its (normalised) output, `L = ln(e^{L_a} + e^{L_b})` and
//! `O = e^{L_a - L} O_a + e^{L_b - L} O_b`. [`forward`](crate::forward) returns exactly these
//! two tensors when given an LSE buffer.

use cudarc::driver::{CudaSlice, CudaStream, DevicePtr, DevicePtrMut};
use flashattn_sys as sys;

use crate::Element;
use crate::error::{Error, Result};
use crate::forward::{Tensor, TensorMut, check_context, guard_errors};
use crate::problem::{
    RawTensor, Strides, check_alignment, check_output_does_not_self_overlap, required_len,
};

/// The shape shared by the partial states and the merged result: O is
/// `[batch, seqlen, heads, head_dim]`, LSE is f32 `[batch, heads, seqlen]` contiguous.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MergeShape {
    /// Batch size.
    pub batch: usize,
    /// Query rows per sequence.
    pub seqlen: usize,
    /// Query heads.
    pub heads: usize,
    /// Head dim: a multiple of 8 (16-byte vectors).
    pub head_dim: usize,
}

/// One partial result as raw device addresses (see [`merge_states_raw`]).
#[derive(Clone, Copy, Debug)]
pub struct RawState {
    /// O.
    pub o: RawTensor,
    /// LSE address (f32).
    pub lse: u64,
    /// f32 elements available at `lse`.
    pub lse_len: usize,
}

/// The largest head dim a merge takes: each lane of the kernel walks its row's columns in 32-bit
/// steps of 256 (cuda-src/merge/merge_states.cu), and the step past the last column must not
/// overflow. The C entry point refuses the same.
const MAX_HEAD_DIM: usize = i32::MAX as usize - 256;

/// Check a merge completely on the host. The output may be one of the inputs exactly (same
/// address and strides: each element is read before it is written, by the thread that writes
/// it), and must not overlap anything otherwise.
pub fn validate_merge(
    shape: &MergeShape,
    a: &RawState,
    b: &RawState,
    out: &RawState,
) -> Result<()> {
    let MergeShape {
        batch,
        seqlen,
        heads,
        head_dim,
    } = *shape;
    for (what, v) in [
        ("batch", batch),
        ("seqlen", seqlen),
        ("heads", heads),
        ("head_dim", head_dim),
    ] {
        if v == 0 {
            return Err(Error::ZeroSize { what });
        }
    }
    if head_dim % 8 != 0 {
        return Err(Error::Misaligned {
            tensor: "o",
            detail: format!("head_dim {head_dim} is not a multiple of 8 (16-byte vectors)"),
        });
    }
    for (what, v, max) in [
        ("batch", batch, i32::MAX as usize),
        ("seqlen", seqlen, i32::MAX as usize),
        ("heads", heads, i32::MAX as usize),
        ("head_dim", head_dim, MAX_HEAD_DIM),
    ] {
        if v > max {
            return Err(Error::TooLarge {
                what,
                value: v as u128,
                max: max as u128,
            });
        }
    }
    let dtype = a.o.dtype;
    for (name, s) in [("o_b", b), ("o", out)] {
        if s.o.dtype != dtype {
            return Err(Error::DtypeMismatch {
                tensor: name,
                expected: dtype,
                found: s.o.dtype,
            });
        }
    }
    let dims = [batch, seqlen, heads];
    let elem = dtype.size_bytes() as u128;
    let lse_required = batch as u128 * heads as u128 * seqlen as u128;
    // (name, first byte, one past the last, strides of an O tensor): no allocation per launch.
    let mut spans = [("", 0u128, 0u128, None::<Strides>); 6];
    for (k, (o_name, lse_name, s)) in [("o_a", "lse_a", a), ("o_b", "lse_b", b), ("o", "lse", out)]
        .into_iter()
        .enumerate()
    {
        check_alignment(o_name, &s.o, elem as u64)?;
        let required = required_len(s.o.strides, dims, head_dim)?;
        if (s.o.len as u128) < required {
            return Err(Error::SliceTooShort {
                tensor: o_name,
                len: s.o.len,
                required: required as usize,
            });
        }
        if (s.lse_len as u128) < lse_required {
            return Err(Error::SliceTooShort {
                tensor: lse_name,
                len: s.lse_len,
                required: lse_required as usize,
            });
        }
        if s.lse % 4 != 0 {
            return Err(Error::Misaligned {
                tensor: lse_name,
                detail: format!("address {:#x} is not 4-byte aligned", s.lse),
            });
        }
        spans[2 * k] = (
            o_name,
            s.o.ptr as u128,
            s.o.ptr as u128 + required * elem,
            Some(s.o.strides),
        );
        spans[2 * k + 1] = (
            lse_name,
            s.lse as u128,
            s.lse as u128 + lse_required * 4,
            None,
        );
    }
    check_output_does_not_self_overlap(out.o.strides, dims, head_dim)?;
    // The outputs are the last two spans; each may coincide exactly with its input counterpart.
    for (i, &(name, s0, e0, strides0)) in spans.iter().enumerate().skip(4) {
        for &(other, s1, e1, strides1) in &spans[..i] {
            let same = s0 == s1 && e0 == e1 && strides0 == strides1;
            if s0 < e1 && s1 < e0 && !same {
                return Err(Error::Aliasing {
                    output: name,
                    other,
                });
            }
        }
    }
    Ok(())
}

/// Merge two partial results on `stream`: `out = merge(a, b)` (see the
/// [module docs](mod@crate::merge)), with the merged LSE into `lse_out` if given. A state whose
/// LSE is -inf saw no key and contributes nothing. Asynchronous; validated first
/// ([`validate_merge`]).
#[allow(clippy::too_many_arguments)]
pub fn merge_states<T, A, B, O>(
    stream: &CudaStream,
    shape: &MergeShape,
    a: Tensor<'_, A>,
    lse_a: &CudaSlice<f32>,
    b: Tensor<'_, B>,
    lse_b: &CudaSlice<f32>,
    out: TensorMut<'_, O>,
    lse_out: &mut CudaSlice<f32>,
) -> Result<()>
where
    T: Element,
    A: DevicePtr<T>,
    B: DevicePtr<T>,
    O: DevicePtrMut<T>,
{
    let raw = |ptr: u64, len: usize, strides: Strides| RawTensor {
        ptr,
        len,
        dtype: T::DTYPE,
        strides,
    };
    // Before any guard is taken: taking one already queues work for the buffer on `stream`.
    check_context(stream, "o_a", a.data)?;
    check_context(stream, "lse_a", lse_a)?;
    check_context(stream, "o_b", b.data)?;
    check_context(stream, "lse_b", lse_b)?;
    check_context(stream, "o", &*out.data)?;
    check_context(stream, "lse", &*lse_out)?;
    let (a_ptr, ag) = a.data.device_ptr(stream);
    let (b_ptr, bg) = b.data.device_ptr(stream);
    let (la_ptr, lag) = lse_a.device_ptr(stream);
    let (lb_ptr, lbg) = lse_b.device_ptr(stream);
    let o_len = out.data.len();
    let lo_len = lse_out.len();
    let (o_ptr, og) = out.data.device_ptr_mut(stream);
    let (lo_ptr, log) = lse_out.device_ptr_mut(stream);
    guard_errors(stream)?;
    let state_a = RawState {
        o: raw(a_ptr, a.data.len(), a.strides),
        lse: la_ptr,
        lse_len: lse_a.len(),
    };
    let state_b = RawState {
        o: raw(b_ptr, b.data.len(), b.strides),
        lse: lb_ptr,
        lse_len: lse_b.len(),
    };
    let state_out = RawState {
        o: raw(o_ptr, o_len, out.strides),
        lse: lo_ptr,
        lse_len: lo_len,
    };
    // SAFETY: live cudarc buffers of the stated lengths; the guards order the launch on `stream`.
    let launched = unsafe { merge_states_raw(stream, shape, &state_a, &state_b, &state_out) };
    // Dropping the guards records the launch for the buffers' later users; a failed record
    // must fail this call.
    drop((ag, bg, lag, lbg, og, log));
    launched?;
    guard_errors(stream)
}

/// [`merge_states`] from raw device addresses (the output may be an input exactly, for an
/// in-place merge).
///
/// # Safety
/// Each address must point to device memory of at least the stated length, usable from
/// `stream`'s context and valid until the launch completes; other work on those buffers must
/// be ordered with `stream` by the caller.
pub unsafe fn merge_states_raw(
    stream: &CudaStream,
    shape: &MergeShape,
    a: &RawState,
    b: &RawState,
    out: &RawState,
) -> Result<()> {
    validate_merge(shape, a, b, out)?;
    let s = |x: &RawState| x.o.strides;
    let (sa, sb, so) = (s(a), s(b), s(out));
    let mut p = sys::FlashAttnMergeParams {
        o_a: a.o.ptr as *const _,
        lse_a: a.lse as *const f32,
        o_b: b.o.ptr as *const _,
        lse_b: b.lse as *const f32,
        o: out.o.ptr as *mut _,
        lse: out.lse as *mut f32,
        a_batch_stride: sa.batch,
        a_row_stride: sa.row,
        a_head_stride: sa.head,
        b_batch_stride: sb.batch,
        b_row_stride: sb.row,
        b_head_stride: sb.head,
        o_batch_stride: so.batch,
        o_row_stride: so.row,
        o_head_stride: so.head,
        // validate_merge bounded every size by i32::MAX.
        batch: shape.batch as i32,
        seqlen: shape.seqlen as i32,
        heads: shape.heads as i32,
        head_dim: shape.head_dim as i32,
        dtype: a.o.dtype.to_sys(),
        cuda_error: 0,
    };
    stream.context().bind_to_thread()?;
    // SAFETY: `p` is validated; the caller vouches for the addresses.
    let status =
        unsafe { sys::flashattn_merge_states(&mut p, stream.cu_stream() as *mut std::ffi::c_void) };
    match status {
        sys::FlashAttnStatus::FLASHATTN_STATUS_SUCCESS => Ok(()),
        sys::FlashAttnStatus::FLASHATTN_STATUS_CUDA_ERROR => {
            Err(crate::forward::cuda_error(p.cuda_error))
        }
        other => Err(crate::forward::dispatch_error(other)),
    }
}
