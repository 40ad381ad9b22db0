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
//! The other functions follow candle-flash-attn's (FlashAttention-2's) conventions too:
//!
//! - Sliding windows ([`flash_attn_windowed`] and the `_windowed` functions): query `i` sees key
//!   `j` iff `i + d - window_size_left <= j <= i + d + window_size_right` with `d = seqlen_k -
//!   seqlen_q`; a side of `None` (or wider than `seqlen_k`) is open, and `(None, Some(0))` is
//!   the causal mask. As in FlashAttention-2, when exactly one side is bounded the open side is
//!   bounded at `seqlen_k` keys, which only differs from an open side for a right side with more
//!   queries than keys.
//! - ALiBi ([`flash_attn_alibi`] and the `_alibi` functions): f32 slopes `[heads_q]`, bias
//!   `-slope * |i + d - j|` on the scaled score (a positive slope penalises distance).
//! - Softcap (the `_softcap` functions): scores become `softcap * tanh(softmax_scale * q.k /
//!   softcap)` before ALiBi and the mask; 0 turns it off.
//! - Variable length ([`flash_attn_varlen`] and the `_varlen` functions): sequences packed
//!   without padding, q `[total_q, heads_q, head_dim]`, k and v `[total_k, heads_kv, head_dim]`,
//!   `seqlens_q` / `seqlens_k` u32 (or i32) prefix sums `[batch + 1]` on the device, the longest
//!   lengths as `max_seqlen_q` / `max_seqlen_k`; every mask applies per sequence with its own
//!   lengths (bottom-right per sequence). The offsets' contents stay on the device: prefix sums
//!   that start at 0, never decrease, end at the tensors' row counts and describe no sequence
//!   longer than the max lengths are the caller's contract. Broken ones never make the kernel
//!   access memory outside the tensors, but the output and LSE are allocated uninitialised and
//!   only the rows a sequence covers are written: a row of `o` (and its LSE entries) that no
//!   sequence covers, or that lies past `max_seqlen_q` in its sequence, is left as whatever the
//!   device memory held. The output is `[total_q, heads_q, head_dim]`.
//!
//! # Errors
//!
//! Every refusal is a [`candle_core::Error`], never a panic: CPU or Metal tensors, dtypes other
//! than f16/bf16 (or q, k, v of different dtypes), ranks other than 4 (3 for varlen), shapes
//! that disagree, a head dim this build has no kernel for ([`flashattn::compiled_head_dims`]), a
//! non-contiguous `head_dim`, misaligned views, a non-finite or non-positive scale, a negative
//! or non-finite softcap, ALiBi slopes or sequence offsets of the wrong dtype, shape or device.
//! Shape, dtype and layout are checked before the device, so these errors read the same on any
//! device. The launch layer's own checks and CUDA failures come back as errors carrying its
//! message.
//!
//! # Differences from candle-flash-attn
//!
//! - Every function of candle-flash-attn but `flash_attn_varlen_paged_windowed` (a paged KV
//!   cache for prefill, which the launch layer serves only for decoding: `flashattn::decode`);
//!   it is absent, so a build that uses it fails at compile time rather than at run time.
//! - A negative or non-finite softcap is an error (FlashAttention-2 ignores it).
//! - With ALiBi and the causal mask, FlashAttention-2 adds `slope * j` instead of `-slope * (i
//!   + d - j)`: the same softmax, so the same output.
//! - The LSE is returned ([`flash_attn_with_lse`], [`flash_attn_varlen_with_lse`]) instead of
//!   being dropped.
//! - Strides and offsets are 64-bit (no 32-bit casts), so tensors past 2^32 elements work.
//! - Kernels for several GPU architectures in one build (`FLASHATTN_CUDA_ARCHS`, default
//!   sm_80 + sm_90a, with a Hopper-specific kernel chosen at run time), not one arch per build.
//! - Head dims 32, 64, 96, 128, 256 (the compiled set, see `FLASHATTN_HEAD_DIMS`); other head
//!   dims are refused rather than padded.
//! - The op is recorded in candle's graph like any custom op; its backward pass is not
//!   implemented (as in candle-flash-attn), so `backward()` through it is an error.
#![warn(missing_docs)]

mod checks;
mod op;
mod plain;

use candle_core::{Result, Tensor};

use op::{Call, Packed, run, run_with_lse};
pub use plain::plain_attention;

/// candle-flash-attn's causal flag as the window arguments it hands FlashAttention-2: causal is
/// no left side and a right side of 0.
fn causal_window(causal: bool) -> (Option<usize>, Option<usize>) {
    (None, causal.then_some(0))
}

/// `call` over `packed`'s sequences.
fn varlen(q: &Tensor, k: &Tensor, v: &Tensor, packed: Packed, call: Call) -> Result<Tensor> {
    let call = Call {
        packed: Some(packed),
        ..call
    };
    run(q, k, v, &call)
}

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
    run(q, k, v, &Call::new(softmax_scale, causal_window(causal)))
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
    run_with_lse(q, k, v, &Call::new(softmax_scale, causal_window(causal)))
}

/// [`flash_attn`] with a sliding window instead of the causal flag: query `i` sees key `j` iff
/// `i + d - window_size_left <= j <= i + d + window_size_right`, `d = seqlen_k - seqlen_q`
/// (`None`: that side open; `(None, Some(0))` is causal; see the [crate docs](crate)). Same
/// signature as `candle_flash_attn::flash_attn_windowed`. Key tiles outside the window are
/// never loaded: a window of `w` keys costs O(w) per query row.
pub fn flash_attn_windowed(
    q: &Tensor,
    k: &Tensor,
    v: &Tensor,
    softmax_scale: f32,
    window_size_left: Option<usize>,
    window_size_right: Option<usize>,
) -> Result<Tensor> {
    let window = (window_size_left, window_size_right);
    run(q, k, v, &Call::new(softmax_scale, window))
}

/// [`flash_attn`] with ALiBi: `alibi_slopes` f32 `[heads_q]` on q's device, bias `-slope *
/// |i + d - j|` on each scaled score. Same signature as `candle_flash_attn::flash_attn_alibi`.
pub fn flash_attn_alibi(
    q: &Tensor,
    k: &Tensor,
    v: &Tensor,
    alibi_slopes: &Tensor,
    softmax_scale: f32,
    causal: bool,
) -> Result<Tensor> {
    let call = Call {
        alibi_slopes: Some(alibi_slopes),
        ..Call::new(softmax_scale, causal_window(causal))
    };
    run(q, k, v, &call)
}

/// [`flash_attn_windowed`] with ALiBi ([`flash_attn_alibi`]). Same signature as
/// `candle_flash_attn::flash_attn_alibi_windowed`.
pub fn flash_attn_alibi_windowed(
    q: &Tensor,
    k: &Tensor,
    v: &Tensor,
    alibi_slopes: &Tensor,
    softmax_scale: f32,
    window_size_left: Option<usize>,
    window_size_right: Option<usize>,
) -> Result<Tensor> {
    let call = Call {
        alibi_slopes: Some(alibi_slopes),
        ..Call::new(softmax_scale, (window_size_left, window_size_right))
    };
    run(q, k, v, &call)
}

/// [`flash_attn_windowed`] with optional ALiBi and a softcap (Gemma 2): scores become
/// `softcap * tanh(softmax_scale * q.k / softcap)` before ALiBi and the mask; 0 turns the cap
/// off. Same signature as `candle_flash_attn::flash_attn_alibi_windowed_softcap`.
#[allow(clippy::too_many_arguments)]
pub fn flash_attn_alibi_windowed_softcap(
    q: &Tensor,
    k: &Tensor,
    v: &Tensor,
    alibi_slopes: Option<&Tensor>,
    softmax_scale: f32,
    window_size_left: Option<usize>,
    window_size_right: Option<usize>,
    softcap: f32,
) -> Result<Tensor> {
    let call = Call {
        alibi_slopes,
        softcap,
        ..Call::new(softmax_scale, (window_size_left, window_size_right))
    };
    run(q, k, v, &call)
}

/// Attention over sequences of different lengths packed without padding:
///
/// * `q`: `[total_q, heads_q, head_dim]`; `k`, `v`: `[total_k, heads_kv, head_dim]`.
/// * `seqlens_q`, `seqlens_k`: u32 (or i32) `[batch + 1]` prefix sums on q's device: sequence
///   `b` is q's rows `seqlens_q[b]..seqlens_q[b + 1]` over k's and v's rows `seqlens_k[b]..
///   seqlens_k[b + 1]`.
/// * `max_seqlen_q`, `max_seqlen_k`: the longest sequence's query and key rows.
///
/// Returns `[total_q, heads_q, head_dim]`, contiguous. The causal mask is bottom-right per
/// sequence. Same signature as `candle_flash_attn::flash_attn_varlen`; the offsets' contract is
/// in the [crate docs](crate).
#[allow(clippy::too_many_arguments)]
pub fn flash_attn_varlen(
    q: &Tensor,
    k: &Tensor,
    v: &Tensor,
    seqlens_q: &Tensor,
    seqlens_k: &Tensor,
    max_seqlen_q: usize,
    max_seqlen_k: usize,
    softmax_scale: f32,
    causal: bool,
) -> Result<Tensor> {
    let packed = Packed::new(seqlens_q, seqlens_k, max_seqlen_q, max_seqlen_k);
    varlen(
        q,
        k,
        v,
        packed,
        Call::new(softmax_scale, causal_window(causal)),
    )
}

/// [`flash_attn_varlen`] that also returns the log-sum-exp of each query row's scaled scores:
/// `(o, lse)` with `lse` f32 `[heads_q, total_q]` (FlashAttention-2's packed layout), contiguous,
/// `-inf` for a row that sees no key. candle-flash-attn has no such function.
#[allow(clippy::too_many_arguments)]
pub fn flash_attn_varlen_with_lse(
    q: &Tensor,
    k: &Tensor,
    v: &Tensor,
    seqlens_q: &Tensor,
    seqlens_k: &Tensor,
    max_seqlen_q: usize,
    max_seqlen_k: usize,
    softmax_scale: f32,
    causal: bool,
) -> Result<(Tensor, Tensor)> {
    let call = Call {
        packed: Some(Packed::new(
            seqlens_q,
            seqlens_k,
            max_seqlen_q,
            max_seqlen_k,
        )),
        ..Call::new(softmax_scale, causal_window(causal))
    };
    run_with_lse(q, k, v, &call)
}

/// [`flash_attn_varlen`] with a sliding window per sequence ([`flash_attn_windowed`]). Same
/// signature as `candle_flash_attn::flash_attn_varlen_windowed`.
#[allow(clippy::too_many_arguments)]
pub fn flash_attn_varlen_windowed(
    q: &Tensor,
    k: &Tensor,
    v: &Tensor,
    seqlens_q: &Tensor,
    seqlens_k: &Tensor,
    max_seqlen_q: usize,
    max_seqlen_k: usize,
    softmax_scale: f32,
    window_size_left: Option<usize>,
    window_size_right: Option<usize>,
) -> Result<Tensor> {
    let packed = Packed::new(seqlens_q, seqlens_k, max_seqlen_q, max_seqlen_k);
    let window = (window_size_left, window_size_right);
    varlen(q, k, v, packed, Call::new(softmax_scale, window))
}

/// [`flash_attn_varlen`] with ALiBi ([`flash_attn_alibi`]). Same signature as
/// `candle_flash_attn::flash_attn_varlen_alibi`.
#[allow(clippy::too_many_arguments)]
pub fn flash_attn_varlen_alibi(
    q: &Tensor,
    k: &Tensor,
    v: &Tensor,
    alibi_slopes: &Tensor,
    seqlens_q: &Tensor,
    seqlens_k: &Tensor,
    max_seqlen_q: usize,
    max_seqlen_k: usize,
    softmax_scale: f32,
    causal: bool,
) -> Result<Tensor> {
    let packed = Packed::new(seqlens_q, seqlens_k, max_seqlen_q, max_seqlen_k);
    let call = Call {
        alibi_slopes: Some(alibi_slopes),
        ..Call::new(softmax_scale, causal_window(causal))
    };
    varlen(q, k, v, packed, call)
}

/// [`flash_attn_varlen_windowed`] with ALiBi. Same signature as
/// `candle_flash_attn::flash_attn_varlen_alibi_windowed`.
#[allow(clippy::too_many_arguments)]
pub fn flash_attn_varlen_alibi_windowed(
    q: &Tensor,
    k: &Tensor,
    v: &Tensor,
    alibi_slopes: &Tensor,
    seqlens_q: &Tensor,
    seqlens_k: &Tensor,
    max_seqlen_q: usize,
    max_seqlen_k: usize,
    softmax_scale: f32,
    window_size_left: Option<usize>,
    window_size_right: Option<usize>,
) -> Result<Tensor> {
    let packed = Packed::new(seqlens_q, seqlens_k, max_seqlen_q, max_seqlen_k);
    let call = Call {
        alibi_slopes: Some(alibi_slopes),
        ..Call::new(softmax_scale, (window_size_left, window_size_right))
    };
    varlen(q, k, v, packed, call)
}

/// [`flash_attn_varlen_windowed`] with optional ALiBi and a softcap
/// ([`flash_attn_alibi_windowed_softcap`]). Same signature as
/// `candle_flash_attn::flash_attn_varlen_alibi_windowed_softcap`.
#[allow(clippy::too_many_arguments)]
pub fn flash_attn_varlen_alibi_windowed_softcap(
    q: &Tensor,
    k: &Tensor,
    v: &Tensor,
    alibi_slopes: Option<&Tensor>,
    seqlens_q: &Tensor,
    seqlens_k: &Tensor,
    max_seqlen_q: usize,
    max_seqlen_k: usize,
    softmax_scale: f32,
    window_size_left: Option<usize>,
    window_size_right: Option<usize>,
    softcap: f32,
) -> Result<Tensor> {
    let packed = Packed::new(seqlens_q, seqlens_k, max_seqlen_q, max_seqlen_k);
    let call = Call {
        alibi_slopes,
        softcap,
        ..Call::new(softmax_scale, (window_size_left, window_size_right))
    };
    varlen(q, k, v, packed, call)
}
