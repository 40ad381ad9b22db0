//! Variable-length (packed) forward attention: FlashAttention's `flash_attn_varlen_func`.
//!
//! A batch of sequences of different lengths is packed without padding: Q and O are
//! `[total_q, heads_q, head_dim]`, K and V `[total_k, heads_kv, head_dim]` (any row and head
//! strides, head_dim contiguous; [`Strides::packed`] is the contiguous layout), and sequence `b`
//! owns rows `cu_seqlens_q[b]..cu_seqlens_q[b + 1]` of Q and `cu_seqlens_k[b]..cu_seqlens_k[b +
//! 1]` of K, int32 prefix sums on the device. Everything [`crate::forward_with`] offers applies
//! per sequence: the causal diagonal is bottom-right in each sequence (`diag = len_k(b) -
//! len_q(b)`), and so are windows, top-left alignment, softcap, ALiBi, sinks and GQA.
//! [`AttentionParams`] carries `batch` = the number of sequences and `seqlen_q` / `seqlen_k` =
//! the longest lengths (`max_seqlen_q` / `max_seqlen_k`); LSE is f32 `[heads_q, total_q]`.
//!
//! What is checked where:
//! - On the host, before the launch, without a sync ([`validate_varlen`]): every check of a
//!   dense call; `cu_seqlens_q` / `cu_seqlens_k` hold exactly `batch + 1` entries and `seqused_k`
//!   `batch`; all three are 4-byte aligned and no output overlaps them; `total_q`, `total_k` and
//!   the max lengths are at least 1 and within the kernels' limits; the tensors hold `total_q` /
//!   `total_k` rows under their strides; LSE holds `heads_q * total_q`.
//! - Not at launch (the contents live on the device; reading them would synchronize): that the
//!   prefix sums start at 0, never decrease and end at `total_q` / `total_k`, that no sequence is
//!   longer than its max length, and that `seqused_k[b]` lies in `0..=` sequence b's key count.
//!   That is the caller's contract. The kernels clamp every sequence into the packed tensors, so
//!   broken contents give wrong numbers, never an access outside Q, K, V, O or LSE; query rows
//!   past `max_seqlen_q` in a sequence are not computed. [`check_varlen_seqlens`] checks host
//!   copies completely, and [`Varlen::check`] copies the device vectors first (it synchronizes).

use cudarc::driver::{CudaSlice, CudaStream, DevicePtr, DevicePtrMut};

use crate::Element;
use crate::error::{Error, Result};
use crate::forward::{HeadVectors, LaunchInfo, Tensor, TensorMut, check_context, forward_tensors};
use crate::problem::{AttentionParams, RawVarlen};

#[cfg(doc)]
use crate::problem::{Strides, validate_varlen};

/// The sequences of a variable-length call: int32 device vectors (any cudarc buffer of i32:
/// `CudaSlice`, `CudaView`, ...) and the packed row counts.
pub struct Varlen<'a, C, U = C> {
    /// `[batch + 1]` prefix sums of the query lengths: `0, len_q(0), len_q(0) + len_q(1), ...`.
    pub cu_seqlens_q: &'a C,
    /// `[batch + 1]` prefix sums of the key lengths.
    pub cu_seqlens_k: &'a C,
    /// Optional `[batch]`: keys actually present in each sequence (its first `seqused_k[b]` key
    /// rows; FlashAttention-3's `seqused_k`). `None`: all of them.
    pub seqused_k: Option<&'a U>,
    /// Rows of packed Q and O: `cu_seqlens_q[batch]`.
    pub total_q: usize,
    /// Rows of packed K and V: `cu_seqlens_k[batch]`.
    pub total_k: usize,
}

impl<'a, C> Varlen<'a, C, C> {
    /// Sequences given by their prefix sums, every key present.
    pub fn new(cu_seqlens_q: &'a C, cu_seqlens_k: &'a C, total_q: usize, total_k: usize) -> Self {
        Varlen {
            cu_seqlens_q,
            cu_seqlens_k,
            seqused_k: None,
            total_q,
            total_k,
        }
    }
}

impl<'a, C, U> Varlen<'a, C, U> {
    /// The same sequences with only the first `seqused_k[b]` keys of each present.
    pub fn with_seqused_k<U2>(self, seqused_k: &'a U2) -> Varlen<'a, C, U2> {
        Varlen {
            cu_seqlens_q: self.cu_seqlens_q,
            cu_seqlens_k: self.cu_seqlens_k,
            seqused_k: Some(seqused_k),
            total_q: self.total_q,
            total_k: self.total_k,
        }
    }

    /// Copy the sequence vectors to the host and check their contents completely
    /// ([`check_varlen_seqlens`]). **Synchronizes `stream`**: for tests, debugging and callers
    /// that build the vectors on the device and want the contract checked once.
    pub fn check(&self, stream: &std::sync::Arc<CudaStream>, params: &AttentionParams) -> Result<()>
    where
        C: DevicePtr<i32>,
        U: DevicePtr<i32>,
    {
        let cu_q = stream.clone_dtoh(self.cu_seqlens_q)?;
        let cu_k = stream.clone_dtoh(self.cu_seqlens_k)?;
        let used = self.seqused_k.map(|u| stream.clone_dtoh(u)).transpose()?;
        check_varlen_seqlens(
            params,
            &cu_q,
            &cu_k,
            used.as_deref(),
            self.total_q,
            self.total_k,
        )
    }
}

/// Check host copies of a variable-length call's sequence vectors completely: `batch + 1`
/// prefix sums each, starting at 0, never decreasing, ending at `total_q` / `total_k`, no
/// sequence longer than `params.seqlen_q` / `params.seqlen_k` (the max lengths), and every
/// `seqused_k[b]` in `0..=` sequence b's key count. Pure: no GPU.
pub fn check_varlen_seqlens(
    params: &AttentionParams,
    cu_seqlens_q: &[i32],
    cu_seqlens_k: &[i32],
    seqused_k: Option<&[i32]>,
    total_q: usize,
    total_k: usize,
) -> Result<()> {
    let batch = params.batch;
    // `batch + 1` overflows only for a batch no slice can describe: every length is then
    // refused, and the error states the saturated count.
    let entries = batch.checked_add(1);
    for (input, cu, total, max) in [
        ("cu_seqlens_q", cu_seqlens_q, total_q, params.seqlen_q),
        ("cu_seqlens_k", cu_seqlens_k, total_k, params.seqlen_k),
    ] {
        if Some(cu.len()) != entries {
            return Err(Error::SeqlensLength {
                input,
                len: cu.len(),
                batch,
                expected: batch.saturating_add(1),
            });
        }
        let contents = |sequence: usize, detail: String| Error::SeqlensContents {
            input,
            sequence,
            detail,
        };
        if cu[0] != 0 {
            return Err(contents(0, format!("starts at {}, not 0", cu[0])));
        }
        for (b, pair) in cu.windows(2).enumerate() {
            let len = i64::from(pair[1]) - i64::from(pair[0]);
            if len < 0 {
                return Err(contents(
                    b,
                    format!("decreases from {} to {}", pair[0], pair[1]),
                ));
            }
            if len as usize > max {
                return Err(contents(
                    b,
                    format!("has {len} rows, above the max length {max}"),
                ));
            }
        }
        if cu[batch] as usize != total {
            return Err(contents(
                batch,
                format!("ends at {}, but the call states {total} rows", cu[batch]),
            ));
        }
    }
    if let Some(used) = seqused_k {
        if used.len() != batch {
            return Err(Error::SeqlensLength {
                input: "seqused_k",
                len: used.len(),
                batch,
                expected: batch,
            });
        }
        for (b, &u) in used.iter().enumerate() {
            let len = cu_seqlens_k[b + 1] - cu_seqlens_k[b];
            if !(0..=len).contains(&u) {
                return Err(Error::SeqlensContents {
                    input: "seqused_k",
                    sequence: b,
                    detail: format!("{u} keys used of the sequence's {len}"),
                });
            }
        }
    }
    Ok(())
}

/// Launch variable-length forward attention on `stream` (FlashAttention's
/// `flash_attn_varlen_func`, candle-flash-attn's `flash_attn_varlen`): packed `q`, `k`, `v` and
/// `o` (see the [module docs](mod@crate::varlen); batch strides are ignored), the sequences in
/// `seqs`, the max lengths as `params.seqlen_q` / `params.seqlen_k` with `params.batch`
/// sequences, LSE (if given) f32 `[heads_q, total_q]`, ALiBi slopes and sinks in `heads` as for
/// [`crate::forward_with`]. Validated on the host first ([`validate_varlen`]; the module docs
/// say what is checked where); asynchronous, never synchronizes.
///
/// ```no_run
/// # use flashattn::{AttentionParams, HeadVectors, Strides, Tensor, TensorMut, Varlen};
/// # use half::bf16;
/// # fn main() -> Result<(), flashattn::Error> {
/// let ctx = flashattn::open_device(0)?;
/// let stream = ctx.default_stream();
/// let lens = [300usize, 17, 1024];                     // three sequences, self-attention
/// let cu: Vec<i32> = std::iter::once(0).chain(lens.iter().scan(0, |s, &l| { *s += l as i32; Some(*s) })).collect();
/// let total = *cu.last().unwrap() as usize;
/// let (heads, d) = (16, 128);
/// let p = AttentionParams { causal: true, ..AttentionParams::new(lens.len(), 1024, 1024, heads, d) };
/// let cu_dev = stream.clone_htod(&cu)?;
/// let q = stream.alloc_zeros::<bf16>(total * heads * d)?;
/// let (k, v) = (q.clone(), q.clone());
/// let mut o = stream.alloc_zeros::<bf16>(total * heads * d)?;
/// let s = Strides::packed(heads, d);
/// flashattn::forward_varlen(&stream, &p, &Varlen::new(&cu_dev, &cu_dev, total, total),
///     Tensor::new(&q, s), Tensor::new(&k, s), Tensor::new(&v, s), TensorMut::new(&mut o, s),
///     None, HeadVectors::none())?;
/// # Ok(()) }
/// ```
#[allow(clippy::too_many_arguments)]
pub fn forward_varlen<T, Q, K, V, O, C, U, A, S>(
    stream: &CudaStream,
    params: &AttentionParams,
    seqs: &Varlen<'_, C, U>,
    q: Tensor<'_, Q>,
    k: Tensor<'_, K>,
    v: Tensor<'_, V>,
    o: TensorMut<'_, O>,
    lse: Option<&mut CudaSlice<f32>>,
    heads: HeadVectors<'_, A, S>,
) -> Result<LaunchInfo>
where
    T: Element,
    Q: DevicePtr<T>,
    K: DevicePtr<T>,
    V: DevicePtr<T>,
    O: DevicePtrMut<T>,
    C: DevicePtr<i32>,
    U: DevicePtr<i32>,
    A: DevicePtr<f32>,
    S: DevicePtr<f32>,
{
    check_context(stream, "cu_seqlens_q", seqs.cu_seqlens_q)?;
    check_context(stream, "cu_seqlens_k", seqs.cu_seqlens_k)?;
    if let Some(u) = seqs.seqused_k {
        check_context(stream, "seqused_k", u)?;
    }
    let (cu_q, cu_q_guard) = seqs.cu_seqlens_q.device_ptr(stream);
    let (cu_k, cu_k_guard) = seqs.cu_seqlens_k.device_ptr(stream);
    let used = seqs.seqused_k.map(|u| (u.device_ptr(stream), u.len()));
    let raw = RawVarlen {
        cu_seqlens_q: (cu_q, seqs.cu_seqlens_q.len()),
        cu_seqlens_k: (cu_k, seqs.cu_seqlens_k.len()),
        seqused_k: used.as_ref().map(|((ptr, _), len)| (*ptr, *len)),
        total_q: seqs.total_q,
        total_k: seqs.total_k,
    };
    forward_tensors(
        stream,
        params,
        q,
        k,
        v,
        o,
        lse,
        heads,
        Some(&raw),
        None,
        (cu_q_guard, cu_k_guard, used),
    )
}

/// [`forward_varlen`] from raw device addresses (as [`crate::forward_raw`] is to
/// [`crate::forward`]).
///
/// # Safety
/// As [`crate::forward_raw`], for the sequence vectors of `varlen` too.
pub unsafe fn forward_varlen_raw(
    stream: &CudaStream,
    params: &AttentionParams,
    t: &crate::RawForward,
    varlen: &RawVarlen,
) -> Result<LaunchInfo> {
    // SAFETY: the caller's contract.
    unsafe { crate::forward::launch_raw(stream, params, t, Some(varlen)) }
}
