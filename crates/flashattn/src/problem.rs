//! Shapes, layouts and the host-side validation of a forward call. Pure functions: no GPU.

use crate::DType;
use crate::error::{Error, Result};

/// Element strides of a `[batch, seqlen, heads, head_dim]` tensor. `head_dim` is always
/// contiguous (stride 1); the other three are free, so `[B, S, H, D]` and `[B, H, S, D]`
/// tensors, padded rows and broadcast (stride 0) inputs all work.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Strides {
    /// Elements between consecutive batch entries.
    pub batch: i64,
    /// Elements between consecutive sequence positions.
    pub row: i64,
    /// Elements between consecutive heads.
    pub head: i64,
}

/// `a * b` as a stride, saturating at `i64::MAX`: the layout constructors take any sizes, and a
/// saturated stride is no multiple of the kernels' 16-byte chunks (nor would a tensor hold
/// what it addresses), so validation refuses any call that passes it ([`Error::Misaligned`]).
fn stride_of(a: usize, b: usize) -> i64 {
    i64::try_from(a.saturating_mul(b)).unwrap_or(i64::MAX)
}

impl Strides {
    /// Contiguous `[batch, seqlen, heads, head_dim]` (FlashAttention's native layout). A stride
    /// past `i64::MAX` saturates there, and validation refuses it.
    pub fn bshd(seqlen: usize, heads: usize, head_dim: usize) -> Self {
        let row = stride_of(heads, head_dim);
        Strides {
            batch: row.saturating_mul(stride_of(seqlen, 1)),
            row,
            head: stride_of(head_dim, 1),
        }
    }

    /// Contiguous packed `[total_tokens, heads, head_dim]`, the layout of a variable-length call
    /// ([`crate::forward_varlen`]; the batch stride, 0 here, is ignored there). Saturating, as
    /// [`Strides::bshd`].
    pub fn packed(heads: usize, head_dim: usize) -> Self {
        Strides {
            batch: 0,
            row: stride_of(heads, head_dim),
            head: stride_of(head_dim, 1),
        }
    }

    /// Contiguous `[batch, heads, seqlen, head_dim]` (PyTorch SDPA's layout). Saturating, as
    /// [`Strides::bshd`].
    pub fn bhsd(seqlen: usize, heads: usize, head_dim: usize) -> Self {
        let head = stride_of(seqlen, head_dim);
        Strides {
            batch: head.saturating_mul(stride_of(heads, 1)),
            row: stride_of(head_dim, 1),
            head,
        }
    }
}

/// Which compiled kernel configuration runs.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum KernelChoice {
    /// The launch layer picks (tuned dispatch table, else a built-in rule).
    #[default]
    Auto,
    /// A configuration by id (see [`crate::kernel_configs`]).
    Id(u32),
    /// A configuration by name, e.g. `sm80_bf16_d128_m128n64w4s2`.
    Named(String),
}

/// A sliding window around each query's diagonal key (FlashAttention-2's `window_size`): query
/// `i` sees key `j` iff `i + diag - left <= j <= i + diag + right`, where `diag` is set by
/// [`MaskAlignment`]; `None` leaves that side unbounded. Mistral-style sliding windows are
/// `left: Some(w - 1)` with `causal: true`; `right` and `causal` combine as the intersection
/// (causal alone is `right: Some(0)`). Any size is accepted: one at or beyond the longer
/// sequence is the same as `None`. A window of w keys over `seqlen_k` keys costs O(w) per query
/// row: key tiles outside it are never loaded.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Window {
    /// Keys left of (before) the diagonal that stay visible; `None`: all of them.
    pub left: Option<usize>,
    /// Keys right of (after) the diagonal that stay visible; `None`: all of them.
    pub right: Option<usize>,
}

impl Window {
    /// No window: every key on both sides.
    pub const UNBOUNDED: Window = Window {
        left: None,
        right: None,
    };

    /// `left` keys before and `right` keys after the diagonal.
    pub fn new(left: Option<usize>, right: Option<usize>) -> Self {
        Window { left, right }
    }

    /// Whether neither side is bounded.
    pub fn is_unbounded(&self) -> bool {
        self.left.is_none() && self.right.is_none()
    }
}

/// Where the diagonal of the causal mask (and of windows and ALiBi distances) lies when
/// `seqlen_q != seqlen_k`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum MaskAlignment {
    /// FlashAttention's convention (the default): the last query row lines up with the last
    /// key, `diag = seqlen_k - seqlen_q`; when `seqlen_q > seqlen_k` the first rows see nothing.
    #[default]
    BottomRight,
    /// PyTorch's `is_causal` (`torch.ones(L, S).tril()`): the first query row lines up with
    /// the first key, `diag = 0`.
    TopLeft,
}

/// Sizes and options of one forward call.
///
/// Q is `[batch, seqlen_q, heads_q, head_dim]`, K and V are `[batch, seqlen_k, heads_kv,
/// head_dim]`, O has Q's shape and dtype, LSE is f32 `[batch, heads_q, seqlen_q]` contiguous.
#[derive(Clone, Debug, PartialEq)]
pub struct AttentionParams {
    /// Batch size.
    pub batch: usize,
    /// Query sequence length.
    pub seqlen_q: usize,
    /// Key/value sequence length.
    pub seqlen_k: usize,
    /// Query heads.
    pub heads_q: usize,
    /// Key/value heads; `heads_q` must be a multiple (GQA; 1 is MQA).
    pub heads_kv: usize,
    /// Head dim (the compiled ones: see [`crate::compiled_head_dims`]).
    pub head_dim: usize,
    /// Causal mask: query `i` sees key `j` iff `j <= i + diag`, with `diag = seqlen_k -
    /// seqlen_q` (bottom-right, the default) or 0 ([`MaskAlignment::TopLeft`]). A query that
    /// sees no key gets O = 0 and LSE = -inf (with sinks: LSE = its head's sink logit).
    pub causal: bool,
    /// Sliding window around the diagonal (default: none); combines with `causal`.
    pub window: Window,
    /// Where the diagonal of `causal`, `window` and ALiBi lies (default: bottom-right).
    pub alignment: MaskAlignment,
    /// Gemma-2's logit softcap: logits become `cap * tanh(scale * q.k / cap)` (FlashAttention-2
    /// semantics: the cap applies to the scaled score), before ALiBi and the mask. `None`: off.
    /// Runs only on configurations with [`crate::KernelConfig::score_mods`].
    pub softcap: Option<f32>,
    /// Scale applied to `Q.K^T`; `None` means `1 / sqrt(head_dim)`.
    pub softmax_scale: Option<f32>,
    /// Which kernel configuration runs.
    pub kernel: KernelChoice,
}

impl AttentionParams {
    /// Multi-head attention with `heads` query and KV heads, non-causal, default scale.
    pub fn new(
        batch: usize,
        seqlen_q: usize,
        seqlen_k: usize,
        heads: usize,
        head_dim: usize,
    ) -> Self {
        AttentionParams {
            batch,
            seqlen_q,
            seqlen_k,
            heads_q: heads,
            heads_kv: heads,
            head_dim,
            causal: false,
            window: Window::UNBOUNDED,
            alignment: MaskAlignment::BottomRight,
            softcap: None,
            softmax_scale: None,
            kernel: KernelChoice::Auto,
        }
    }

    /// The diagonal offset: query `i`'s diagonal key is `i + diagonal()`.
    pub fn diagonal(&self) -> i64 {
        match self.alignment {
            MaskAlignment::BottomRight => self.seqlen_k as i64 - self.seqlen_q as i64,
            MaskAlignment::TopLeft => 0,
        }
    }

    /// The keys query row `row` sees, `lo..hi` (empty when it sees none): the sequence, the
    /// causal mask and the window together.
    pub fn visible_keys(&self, row: usize) -> std::ops::Range<usize> {
        let d = row as i64 + self.diagonal();
        let sk = self.seqlen_k as i64;
        let lo = self.window.left.map_or(0, |w| {
            d.saturating_sub(i64::try_from(w).unwrap_or(i64::MAX))
        });
        let right = if self.causal {
            Some(0)
        } else {
            self.window.right
        };
        let hi = right.map_or(sk, |w| {
            d.saturating_add(i64::try_from(w).unwrap_or(i64::MAX))
                .saturating_add(1)
        });
        let (lo, hi) = (lo.clamp(0, sk), hi.clamp(0, sk));
        lo as usize..hi.max(lo) as usize
    }

    /// The window sides as the C parameters take them: -1 unbounded, else the size, with sizes
    /// at or beyond the longer sequence (the same as unbounded) mapped to -1 so every bounded
    /// value fits in 32 bits.
    pub(crate) fn ffi_window(&self) -> (i32, i32) {
        let longest = self.seqlen_q.max(self.seqlen_k);
        let side = |w: Option<usize>| match w {
            Some(w) if w < longest => w as i32,
            _ => -1,
        };
        (side(self.window.left), side(self.window.right))
    }

    /// The scale that will be used.
    pub fn scale(&self) -> f32 {
        self.softmax_scale
            .unwrap_or_else(|| 1.0 / (self.head_dim as f32).sqrt())
    }
}

/// A tensor as the validation sees it: where it is, how long, what type, how laid out.
#[derive(Clone, Copy, Debug)]
pub struct RawTensor {
    /// Device address of element 0.
    pub ptr: u64,
    /// Elements available from `ptr`.
    pub len: usize,
    /// Element type.
    pub dtype: DType,
    /// Layout (`head_dim` contiguous).
    pub strides: Strides,
}

/// The LSE output: f32, contiguous `[batch, heads_q, seqlen_q]`.
#[derive(Clone, Copy, Debug)]
pub struct RawLse {
    /// Device address.
    pub ptr: u64,
    /// f32 elements available.
    pub len: usize,
}

/// An f32 vector on the device: a per-head one (ALiBi slopes, attention sinks: `[heads_q]`), or
/// the workspace.
#[derive(Clone, Copy, Debug)]
pub struct RawVector {
    /// Device address of element 0 (4-byte aligned).
    pub ptr: u64,
    /// f32 elements available (a per-head vector: at least `heads_q`).
    pub len: usize,
}

/// All tensors of a forward call.
#[derive(Clone, Copy, Debug)]
pub struct RawForward {
    /// Queries.
    pub q: RawTensor,
    /// Keys.
    pub k: RawTensor,
    /// Values.
    pub v: RawTensor,
    /// Output.
    pub o: RawTensor,
    /// Optional log-sum-exp output.
    pub lse: Option<RawLse>,
    /// Optional ALiBi slopes, f32 `[heads_q]`: key `j` of query `i` in head `h` gets the bias
    /// `-alibi_slopes[h] * |i + diag - j|` (FlashAttention-2's sign: a positive slope penalises
    /// distance), added after the softcap. Values must be finite (they are not read on the host).
    pub alibi_slopes: Option<RawVector>,
    /// Optional attention sinks, f32 `[heads_q]` natural-log logits (not scaled): head `h`'s
    /// softmax denominator gains `exp(sinks[h])`, so a row's weights sum to 1 together with the
    /// sink and LSE includes it; a row that sees no key gets O = 0 and LSE = `sinks[h]`.
    /// Finite values, or -inf (no sink).
    pub sinks: Option<RawVector>,
    /// Optional f32 scratch on the device ([`crate::forward_workspace_len`] elements), zeroed
    /// before its first use: with it, a persistent launch whose last tiles would leave SMs idle
    /// may split those tiles' keys across SMs and merge the parts through it (the split tail,
    /// cuda-src/common/walk_deal.cuh). Every call that completes leaves it ready for the next
    /// (its counters back at zero); one call at a time may use it. A shorter one is not used. It
    /// is written: it must overlap nothing else.
    pub workspace: Option<RawVector>,
}

impl RawForward {
    /// The tensors of a call without ALiBi slopes or sinks.
    pub fn new(
        q: RawTensor,
        k: RawTensor,
        v: RawTensor,
        o: RawTensor,
        lse: Option<RawLse>,
    ) -> Self {
        RawForward {
            q,
            k,
            v,
            o,
            lse,
            alibi_slopes: None,
            sinks: None,
            workspace: None,
        }
    }

    /// Whether the call needs a configuration's score-modifier kernel (softcap or ALiBi).
    pub fn needs_score_mods(&self, params: &AttentionParams) -> bool {
        params.softcap.is_some() || self.alibi_slopes.is_some()
    }
}

/// Sequence lengths leave this much head-room below `i32::MAX` so that tile-end arithmetic
/// inside the kernel (`index + block size`) cannot overflow 32 bits.
pub const MAX_SEQLEN: usize = (i32::MAX as usize) - 1024;
/// Grid y and z carry heads and batch.
pub const MAX_GRID_YZ: usize = 65535;
/// The kernels number (head, batch) pairs in 32 bits (the causal tile order walks them).
pub const MAX_BATCH_X_HEADS: usize = i32::MAX as usize;

/// The sequences of a variable-length call as raw device addresses (see
/// [`crate::forward_varlen`] for the conventions): int32 vectors as (address, entries).
#[derive(Clone, Copy, Debug)]
pub struct RawVarlen {
    /// `[batch + 1]` prefix sums of the query lengths.
    pub cu_seqlens_q: (u64, usize),
    /// `[batch + 1]` prefix sums of the key lengths.
    pub cu_seqlens_k: (u64, usize),
    /// Optional `[batch]` keys present per sequence.
    pub seqused_k: Option<(u64, usize)>,
    /// Rows of packed Q and O (`cu_seqlens_q[batch]`).
    pub total_q: usize,
    /// Rows of packed K and V (`cu_seqlens_k[batch]`).
    pub total_k: usize,
}

/// Check a forward call completely, on the host. Returns the softmax scale to use.
pub fn validate(params: &AttentionParams, t: &RawForward) -> Result<f32> {
    check(params, t, None)
}

/// Check a variable-length forward call on the host: everything [`validate`] checks, with the
/// packed tensors sized by `total_q` / `total_k` rows (batch strides ignored) and LSE by
/// `heads_q * total_q`, plus the sequence vectors' lengths, alignment and overlap with the
/// outputs. Their contents stay on the device (see [`crate::check_varlen_seqlens`]). Returns the
/// softmax scale to use.
pub fn validate_varlen(
    params: &AttentionParams,
    t: &RawForward,
    varlen: &RawVarlen,
) -> Result<f32> {
    check(params, t, Some(varlen))
}

fn check(params: &AttentionParams, t: &RawForward, varlen: Option<&RawVarlen>) -> Result<f32> {
    let AttentionParams {
        batch,
        seqlen_q,
        seqlen_k,
        heads_q,
        heads_kv,
        head_dim,
        ..
    } = *params;
    for (what, v) in [
        ("batch", batch),
        ("seqlen_q", seqlen_q),
        ("seqlen_k", seqlen_k),
        ("heads_q", heads_q),
        ("heads_kv", heads_kv),
        ("head_dim", head_dim),
    ] {
        if v == 0 {
            return Err(Error::ZeroSize { what });
        }
    }
    if heads_q % heads_kv != 0 {
        return Err(Error::HeadsNotDivisible { heads_q, heads_kv });
    }
    if let Some(vl) = varlen {
        for (what, v) in [("total_q", vl.total_q), ("total_k", vl.total_k)] {
            if v == 0 {
                return Err(Error::ZeroSize { what });
            }
            if v > MAX_SEQLEN {
                return Err(Error::TooLarge {
                    what,
                    value: v as u128,
                    max: MAX_SEQLEN as u128,
                });
            }
        }
    }
    for (what, value, max) in [
        ("seqlen_q", seqlen_q, MAX_SEQLEN),
        ("seqlen_k", seqlen_k, MAX_SEQLEN),
        ("heads_q", heads_q, MAX_GRID_YZ),
        ("batch", batch, MAX_GRID_YZ),
    ] {
        if value > max {
            return Err(Error::TooLarge {
                what,
                value: value as u128,
                max: max as u128,
            });
        }
    }
    if batch * heads_q > MAX_BATCH_X_HEADS {
        return Err(Error::TooLarge {
            what: "batch x heads_q",
            value: (batch * heads_q) as u128,
            max: MAX_BATCH_X_HEADS as u128,
        });
    }
    let scale = params.scale();
    if !(scale.is_finite() && scale > 0.0) {
        return Err(Error::InvalidScale(scale));
    }
    if let Some(cap) = params.softcap.filter(|c| !(c.is_finite() && *c > 0.0)) {
        return Err(Error::InvalidSoftcap(cap));
    }

    let dtype = t.q.dtype;
    for (name, x) in [("k", &t.k), ("v", &t.v), ("o", &t.o)] {
        if x.dtype != dtype {
            return Err(Error::DtypeMismatch {
                tensor: name,
                expected: dtype,
                found: x.dtype,
            });
        }
    }
    // Runs on every launch: look the registry up without building the list of head dims
    // unless it goes into an error.
    let configs = crate::kernel_configs();
    if !configs.iter().any(|c| c.dtype == dtype) {
        return Err(Error::UnsupportedDtype(dtype));
    }
    if !configs
        .iter()
        .any(|c| c.dtype == dtype && c.head_dim == head_dim)
    {
        return Err(Error::UnsupportedHeadDim {
            head_dim,
            dtype,
            compiled: crate::compiled_head_dims(dtype),
        });
    }

    let elem = dtype.size_bytes() as u64;
    // Packed varlen tensors are one "batch entry" of total rows; their batch strides are ignored.
    let (dims_q, dims_kv, lse_rows) = match varlen {
        None => (
            [batch, seqlen_q, heads_q],
            [batch, seqlen_k, heads_kv],
            batch * seqlen_q,
        ),
        Some(vl) => (
            [1, vl.total_q, heads_q],
            [1, vl.total_k, heads_kv],
            vl.total_q,
        ),
    };
    let layout = |x: &RawTensor| match varlen {
        None => *x,
        Some(_) => RawTensor {
            strides: Strides {
                batch: 0,
                ..x.strides
            },
            ..*x
        },
    };
    // (name, first byte, one past the last byte) of the sequence vectors, the head vectors, q, k,
    // v, then the outputs o and lse and the workspace; no allocation.
    let mut spans = [("", 0u128, 0u128); 11];
    let mut n_spans = 0;
    if let Some(vl) = varlen {
        for (name, x, entries) in [
            ("cu_seqlens_q", Some(vl.cu_seqlens_q), batch + 1),
            ("cu_seqlens_k", Some(vl.cu_seqlens_k), batch + 1),
            ("seqused_k", vl.seqused_k, batch),
        ] {
            let Some((ptr, len)) = x else { continue };
            if len != entries {
                return Err(Error::SeqlensLength {
                    input: name,
                    len,
                    batch,
                    expected: entries,
                });
            }
            if ptr % 4 != 0 {
                return Err(Error::Misaligned {
                    tensor: name,
                    detail: format!("address {ptr:#x} is not 4-byte aligned"),
                });
            }
            spans[n_spans] = (name, ptr as u128, ptr as u128 + 4 * entries as u128);
            n_spans += 1;
        }
    }
    for (name, x) in [("alibi_slopes", &t.alibi_slopes), ("sinks", &t.sinks)] {
        let Some(x) = x else { continue };
        if x.len < heads_q {
            return Err(Error::InvalidHeadVector {
                vector: name,
                detail: format!("{} f32 elements, heads_q is {heads_q}", x.len),
            });
        }
        if x.ptr % 4 != 0 {
            return Err(Error::InvalidHeadVector {
                vector: name,
                detail: format!("address {:#x} is not 4-byte aligned", x.ptr),
            });
        }
        spans[n_spans] = (name, x.ptr as u128, x.ptr as u128 + heads_q as u128 * 4);
        n_spans += 1;
    }
    for (name, x, dims) in [
        ("q", &layout(&t.q), dims_q),
        ("k", &layout(&t.k), dims_kv),
        ("v", &layout(&t.v), dims_kv),
        ("o", &layout(&t.o), dims_q),
    ] {
        check_alignment(name, x, elem)?;
        let required = required_len(x.strides, dims, head_dim)?;
        if (x.len as u128) < required {
            return Err(Error::SliceTooShort {
                tensor: name,
                len: x.len,
                required: required as usize,
            });
        }
        spans[n_spans] = (name, x.ptr as u128, x.ptr as u128 + required * elem as u128);
        n_spans += 1;
    }
    check_output_does_not_self_overlap(layout(&t.o).strides, dims_q, head_dim)?;
    if let Some(lse) = t.lse {
        let required = heads_q as u128 * lse_rows as u128;
        if (lse.len as u128) < required {
            return Err(Error::SliceTooShort {
                tensor: "lse",
                len: lse.len,
                required: required as usize,
            });
        }
        if lse.ptr % 4 != 0 {
            return Err(Error::Misaligned {
                tensor: "lse",
                detail: format!("address {:#x} is not 4-byte aligned", lse.ptr),
            });
        }
        spans[n_spans] = ("lse", lse.ptr as u128, lse.ptr as u128 + required * 4);
        n_spans += 1;
    }
    if let Some(w) = t.workspace {
        if w.ptr % 4 != 0 {
            return Err(Error::Misaligned {
                tensor: "workspace",
                detail: format!("address {:#x} is not 4-byte aligned", w.ptr),
            });
        }
        spans[n_spans] = (
            "workspace",
            w.ptr as u128,
            w.ptr as u128 + w.len as u128 * 4,
        );
        n_spans += 1;
    }
    // Outputs must not overlap anything else: the kernel reads inputs while other CTAs write.
    // The inputs are the sequence and head vectors, q, k and v: every span before o's.
    let inputs = spans[..n_spans]
        .iter()
        .position(|s| s.0 == "o")
        .unwrap_or(n_spans);
    let spans = &spans[..n_spans];
    for (i, &(out, s0, e0)) in spans.iter().enumerate().skip(inputs) {
        for &(other, s1, e1) in spans.iter().take(i) {
            if s0 < e1 && s1 < e0 {
                return Err(Error::Aliasing { output: out, other });
            }
        }
    }
    Ok(scale)
}

pub(crate) fn check_alignment(name: &'static str, x: &RawTensor, elem: u64) -> Result<()> {
    if x.ptr % 16 != 0 {
        return Err(Error::Misaligned {
            tensor: name,
            detail: format!(
                "address {:#x} is not 16-byte aligned (the kernels copy 16-byte chunks)",
                x.ptr
            ),
        });
    }
    let per_chunk = (16 / elem) as i64;
    for (what, s) in [
        ("batch", x.strides.batch),
        ("row", x.strides.row),
        ("head", x.strides.head),
    ] {
        if s < 0 {
            return Err(Error::Misaligned {
                tensor: name,
                detail: format!("{what} stride {s} is negative"),
            });
        }
        if s % per_chunk != 0 {
            return Err(Error::Misaligned {
                tensor: name,
                detail: format!(
                    "{what} stride {s} is not a multiple of {per_chunk} elements (16 bytes)"
                ),
            });
        }
    }
    Ok(())
}

/// Elements a tensor addresses: 1 + the largest offset. Errors if any offset leaves i64.
pub(crate) fn required_len(s: Strides, [b, n, h]: [usize; 3], d: usize) -> Result<u128> {
    let last = (b as u128 - 1) * s.batch as u128
        + (n as u128 - 1) * s.row as u128
        + (h as u128 - 1) * s.head as u128
        + d as u128;
    if last > i64::MAX as u128 {
        return Err(Error::TooLarge {
            what: "largest element offset",
            value: last,
            max: i64::MAX as u128,
        });
    }
    Ok(last)
}

/// Distinct (b, s, h, d) of O must map to distinct addresses: with dimensions sorted by
/// stride, each stride must step over the whole extent of the smaller ones.
pub(crate) fn check_output_does_not_self_overlap(
    s: Strides,
    [b, n, h]: [usize; 3],
    d: usize,
) -> Result<()> {
    let mut dims = [
        ("batch", s.batch, b),
        ("row", s.row, n),
        ("head", s.head, h),
    ];
    dims.sort_by_key(|&(_, stride, _)| stride);
    let mut extent: i128 = d as i128;
    let mut inner = "head_dim";
    // A dimension of size 1 never steps, so its stride cannot make elements collide.
    for (name, stride, size) in dims.into_iter().filter(|&(_, _, size)| size > 1) {
        if (stride as i128) < extent {
            return Err(Error::SelfOverlappingOutput {
                detail: format!(
                    "{name} stride {stride} is smaller than the {extent} elements spanned by {inner}"
                ),
            });
        }
        extent += stride as i128 * (size as i128 - 1);
        inner = name;
    }
    Ok(())
}
