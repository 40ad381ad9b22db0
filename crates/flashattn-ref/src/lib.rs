//! CPU reference for attention forward with FlashAttention-2 semantics, a
//! "naive same-precision" baseline, and the project's single tolerance rule.
//!
//! Everything that judges a GPU kernel (unit tests, the fuzzer, the benchmark
//! harness) goes through [`check()`], so there is exactly one definition of
//! "correct": a kernel may be at most twice as wrong as a plain framework
//! implementation in the same input precision ([`naive_same_precision`]),
//! measured against an f64 ground truth ([`reference()`]), plus [`ATOL`].
//!
//! Layout conventions:
//! - Q, K, V are `[batch, seqlen, heads, head_dim]` tensors addressed through
//!   [`Strides`]; `head_dim` is always contiguous.
//! - [`Output::o`] is contiguous `[B, Sq, Hq, D]`, [`Output::lse`] is
//!   contiguous `[B, Hq, Sq]` (the layout FlashAttention-2 returns LSE in).

use std::fmt;

pub mod matrix_unit;
mod merge;
pub use merge::merge;

use half::{bf16, f16};
use rayon::prelude::*;

// ---------------------------------------------------------------------------
// Layout
// ---------------------------------------------------------------------------

/// Element strides of a `[batch, seqlen, heads, head_dim]` tensor; `head_dim`
/// is contiguous (stride 1).
///
/// Strides are signed to match what CUDA-side launch parameters carry, but
/// every addressed offset must be non-negative; [`Strides::offset`] panics
/// otherwise.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Strides {
    /// Elements between `x[b, s, h, 0]` and `x[b + 1, s, h, 0]`.
    pub batch: i64,
    /// Elements between `x[b, s, h, 0]` and `x[b, s + 1, h, 0]`.
    pub row: i64,
    /// Elements between `x[b, s, h, 0]` and `x[b, s, h + 1, 0]`.
    pub head: i64,
}

impl Strides {
    /// Contiguous `[B, S, H, D]` storage.
    pub fn bshd(seqlen: usize, heads: usize, head_dim: usize) -> Self {
        let d = head_dim as i64;
        let h = heads as i64;
        Self {
            batch: seqlen as i64 * h * d,
            row: h * d,
            head: d,
        }
    }

    /// Contiguous `[B, H, S, D]` storage, addressed as `[B, S, H, D]`.
    pub fn bhsd(seqlen: usize, heads: usize, head_dim: usize) -> Self {
        let d = head_dim as i64;
        let s = seqlen as i64;
        Self {
            batch: heads as i64 * s * d,
            row: d,
            head: s * d,
        }
    }

    /// Element offset of `x[b, s, h, 0]`.
    ///
    /// # Panics
    /// If the offset is negative (only possible with negative strides).
    pub fn offset(&self, b: usize, s: usize, h: usize) -> usize {
        let off = b as i64 * self.batch + s as i64 * self.row + h as i64 * self.head;
        usize::try_from(off).unwrap_or_else(|_| {
            panic!("negative element offset {off} for (b={b}, s={s}, h={h}) with {self:?}")
        })
    }

    /// Smallest slice length (elements) that holds every element this layout
    /// addresses.
    ///
    /// Zero when any extent is zero, because then nothing is addressed. Negative
    /// strides contribute nothing to the maximum (they are rejected by
    /// [`Strides::offset`] when they would actually go below zero).
    pub fn required_len(
        &self,
        batch: usize,
        seqlen: usize,
        heads: usize,
        head_dim: usize,
    ) -> usize {
        if batch == 0 || seqlen == 0 || heads == 0 || head_dim == 0 {
            return 0;
        }
        let span = |n: usize, stride: i64| ((n as i64 - 1) * stride).max(0);
        let last = span(batch, self.batch) + span(seqlen, self.row) + span(heads, self.head);
        last as usize + head_dim
    }
}

/// Offset of `o[b, s, h, 0]` in the canonical contiguous `[B, Sq, Hq, D]`
/// output ([`Output::o`]).
pub fn index_bshd(p: &Problem, b: usize, s: usize, h: usize) -> usize {
    ((b * p.seqlen_q + s) * p.heads_q + h) * p.head_dim
}

/// Offset of `lse[b, h, s]` in the canonical contiguous `[B, Hq, Sq]` LSE
/// ([`Output::lse`]).
pub fn lse_index(p: &Problem, b: usize, h: usize, s: usize) -> usize {
    (b * p.heads_q + h) * p.seqlen_q + s
}

// ---------------------------------------------------------------------------
// Problem
// ---------------------------------------------------------------------------

/// Sizes and options of one forward problem.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Problem {
    /// Batch size B.
    pub batch: usize,
    /// Query sequence length Sq.
    pub seqlen_q: usize,
    /// Key/value sequence length Sk.
    pub seqlen_k: usize,
    /// Number of query heads Hq (a multiple of `heads_kv`).
    pub heads_q: usize,
    /// Number of key/value heads Hkv (GQA/MQA when smaller than `heads_q`).
    pub heads_kv: usize,
    /// Head dimension D.
    pub head_dim: usize,
    /// Causal mask (see [`Problem::visible_range`]).
    pub causal: bool,
    /// Multiplier applied to `q . k` before the softmax.
    pub softmax_scale: f32,
    /// Sliding window: keys more than this many before the diagonal are masked (`None`: none).
    pub window_left: Option<usize>,
    /// Sliding window: keys more than this many after the diagonal are masked (`None`: none;
    /// `causal` makes it 0).
    pub window_right: Option<usize>,
    /// Diagonal at `j = i` (PyTorch's `is_causal`) instead of `j = i + seqlen_k - seqlen_q`.
    pub top_left: bool,
    /// Logit softcap: `cap * tanh(scale * q.k / cap)`, before ALiBi and the mask.
    pub softcap: Option<f32>,
}

impl Problem {
    /// Build a problem with the conventional `1/sqrt(head_dim)` scale.
    pub fn new(
        batch: usize,
        seqlen_q: usize,
        seqlen_k: usize,
        heads_q: usize,
        heads_kv: usize,
        head_dim: usize,
        causal: bool,
    ) -> Self {
        Self {
            batch,
            seqlen_q,
            seqlen_k,
            heads_q,
            heads_kv,
            head_dim,
            causal,
            softmax_scale: Self::default_scale(head_dim),
            window_left: None,
            window_right: None,
            top_left: false,
            softcap: None,
        }
    }

    /// The diagonal offset: query `i`'s diagonal key is `i + diagonal()`.
    pub fn diagonal(&self) -> i64 {
        if self.top_left {
            0
        } else {
            self.seqlen_k as i64 - self.seqlen_q as i64
        }
    }

    /// The keys query row `i` sees: `i + diag - window_left <= j <= i + diag + window_right`
    /// within `0..seqlen_k` (causal: `window_right = 0`), empty when it sees none.
    ///
    /// Bottom-right alignment (the default) puts the last query row on the last key, as
    /// FlashAttention-2 does, so when `seqlen_q > seqlen_k` the first causal rows see nothing.
    pub fn visible_range(&self, i: usize) -> std::ops::Range<usize> {
        let d = i as i64 + self.diagonal();
        let sk = self.seqlen_k as i64;
        let right = if self.causal {
            Some(0)
        } else {
            self.window_right
        };
        let lo = self.window_left.map_or(0, |w| {
            d.saturating_sub(i64::try_from(w).unwrap_or(i64::MAX))
        });
        let hi = right.map_or(sk, |w| {
            d.saturating_add(i64::try_from(w).unwrap_or(i64::MAX))
                .saturating_add(1)
        });
        let (lo, hi) = (lo.clamp(0, sk), hi.clamp(0, sk));
        lo as usize..hi.max(lo) as usize
    }

    /// `1/sqrt(head_dim)`, computed in f64 and rounded once so that every
    /// consumer gets the bit-identical f32.
    pub fn default_scale(head_dim: usize) -> f32 {
        (1.0 / (head_dim as f64).sqrt()) as f32
    }

    /// Number of keys query row `i` may attend to: the length of [`Problem::visible_range`].
    pub fn visible_keys(&self, i: usize) -> usize {
        self.visible_range(i).len()
    }

    /// Number of (query, key) pairs that survive the mask in one (batch, head).
    pub fn allowed_pairs(&self) -> u64 {
        if !self.causal && self.window_left.is_none() && self.window_right.is_none() {
            return self.seqlen_q as u64 * self.seqlen_k as u64;
        }
        (0..self.seqlen_q)
            .map(|i| self.visible_keys(i) as u64)
            .sum()
    }

    /// Useful floating-point operations of the forward pass: two matmuls of
    /// `2*D` flops per unmasked (q, k) pair, i.e. `4 * B * Hq * pairs * D`.
    ///
    /// Masked pairs are not counted, so causal throughput is not inflated by
    /// work a good kernel skips.
    pub fn flops(&self) -> f64 {
        4.0 * self.batch as f64
            * self.heads_q as f64
            * self.allowed_pairs() as f64
            * self.head_dim as f64
    }

    /// Query heads per key/value head.
    ///
    /// # Panics
    /// If `heads_kv` is zero.
    pub fn group_size(&self) -> usize {
        assert!(self.heads_kv > 0, "heads_kv must be positive");
        self.heads_q / self.heads_kv
    }

    /// The key/value head that query head `h` reads (GQA/MQA mapping).
    pub fn kv_head(&self, h: usize) -> usize {
        h / self.group_size()
    }

    /// Length of [`Output::o`]: `B * Sq * Hq * D`.
    pub fn o_len(&self) -> usize {
        self.batch * self.seqlen_q * self.heads_q * self.head_dim
    }

    /// Length of [`Output::lse`]: `B * Hq * Sq`.
    pub fn lse_len(&self) -> usize {
        self.batch * self.heads_q * self.seqlen_q
    }

    /// Check the head configuration alone; sizes of zero are allowed (they give
    /// empty outputs) so that degenerate cases can be fuzzed too.
    pub fn validate(&self) -> Result<(), String> {
        if self.heads_kv == 0 {
            return Err(format!("heads_kv must be positive: {self:?}"));
        }
        if self.heads_q % self.heads_kv != 0 {
            return Err(format!(
                "heads_q ({}) must be a multiple of heads_kv ({})",
                self.heads_q, self.heads_kv
            ));
        }
        if let Some(cap) = self.softcap.filter(|c| !(c.is_finite() && *c > 0.0)) {
            return Err(format!("softcap {cap} must be finite and > 0"));
        }
        Ok(())
    }
}

// ---------------------------------------------------------------------------
// Element types
// ---------------------------------------------------------------------------

/// Input element types: `f16`, `bf16` (from the `half` crate) and `f32`.
pub trait Element: Copy + Send + Sync + 'static {
    /// Short dtype name used in logs and benchmark tables.
    const NAME: &'static str;
    /// Exact widening conversion.
    fn to_f64(self) -> f64;
    /// Round to nearest (ties to even) from f64, with a single rounding.
    fn from_f64(x: f64) -> Self;
    /// Round an f32 to this type's precision and back (what storing in this
    /// dtype does).
    fn round_f32(x: f32) -> f32;
    /// How a GPU's matrix units take this type, if its GEMMs run on them (f16,
    /// bf16): where the naive keeps f32 scores it then sums them as the units do
    /// ([`matrix_unit::dot()`]).
    const MATRIX_UNIT_INPUT: Option<matrix_unit::Input>;
    /// Exact widening conversion to f32 (all supported types fit in f32).
    fn to_f32(self) -> f32 {
        self.to_f64() as f32
    }
}

/// Narrow f64 to f32 with round-to-odd (truncate, then force the last bit
/// to 1 if anything was lost).
///
/// `half`'s own f64 conversions either go through a round-to-nearest f32
/// (double rounding) or drop the low 32 mantissa bits before rounding, and
/// both can land one ulp off near a midpoint. Rounding to odd in a format with
/// at least two more bits than the target makes the following
/// round-to-nearest-even exact, and f32 has 13 more bits than f16 and 16 more
/// than bf16 (also in the subnormal range of bf16, which is f32's).
fn round_to_odd_f32(x: f64) -> f32 {
    let y = x as f32;
    if !y.is_finite() || y as f64 == x || x.is_nan() {
        return y;
    }
    // Truncation toward zero: undo a rounding that grew the magnitude. On
    // sign-magnitude bits, "one ulp smaller in magnitude" is `bits - 1`.
    let t = if (y as f64).abs() > x.abs() {
        f32::from_bits(y.to_bits() - 1)
    } else {
        y
    };
    f32::from_bits(t.to_bits() | 1)
}

impl Element for f16 {
    const NAME: &'static str = "f16";
    const MATRIX_UNIT_INPUT: Option<matrix_unit::Input> = Some(matrix_unit::Input::F16);
    fn to_f64(self) -> f64 {
        f16::to_f64(self)
    }
    fn from_f64(x: f64) -> Self {
        f16::from_f32(round_to_odd_f32(x))
    }
    fn round_f32(x: f32) -> f32 {
        f16::from_f32(x).to_f32()
    }
    fn to_f32(self) -> f32 {
        f16::to_f32(self)
    }
}

impl Element for bf16 {
    const NAME: &'static str = "bf16";
    const MATRIX_UNIT_INPUT: Option<matrix_unit::Input> = Some(matrix_unit::Input::Bf16);
    fn to_f64(self) -> f64 {
        bf16::to_f64(self)
    }
    fn from_f64(x: f64) -> Self {
        bf16::from_f32(round_to_odd_f32(x))
    }
    fn round_f32(x: f32) -> f32 {
        bf16::from_f32(x).to_f32()
    }
    fn to_f32(self) -> f32 {
        bf16::to_f32(self)
    }
}

impl Element for f32 {
    const NAME: &'static str = "f32";
    const MATRIX_UNIT_INPUT: Option<matrix_unit::Input> = None;
    fn to_f64(self) -> f64 {
        self as f64
    }
    fn from_f64(x: f64) -> Self {
        x as f32
    }
    fn round_f32(x: f32) -> f32 {
        x
    }
    fn to_f32(self) -> f32 {
        self
    }
}

// ---------------------------------------------------------------------------
// Tensors and outputs
// ---------------------------------------------------------------------------

/// Attention output in canonical form: O as f64, contiguous `[B, Sq, Hq, D]`;
/// LSE (natural-log log-sum-exp of the scaled scores) as f64, contiguous
/// `[B, Hq, Sq]`.
#[derive(Clone, Debug)]
pub struct Output {
    /// Attention output, see [`index_bshd`].
    pub o: Vec<f64>,
    /// Log-sum-exp per query row, `-inf` for rows that see no key; see
    /// [`lse_index`].
    pub lse: Vec<f64>,
}

/// One input tensor: a slice plus its strides.
#[derive(Clone, Copy, Debug)]
pub struct TensorRef<'a, E> {
    /// Backing storage; must be at least [`Strides::required_len`] long.
    pub data: &'a [E],
    /// How `[b, s, h, d]` maps into `data`.
    pub strides: Strides,
}

impl<'a, E> TensorRef<'a, E> {
    /// Pair a slice with its strides.
    pub fn new(data: &'a [E], strides: Strides) -> Self {
        Self { data, strides }
    }
}

/// Gather a strided `[B, S, H, D]` tensor of `E` into contiguous f64
/// `[B, S, H, D]` (to compare kernel outputs).
///
/// # Panics
/// If the slice is too short for the layout.
pub fn gather_bshd<E: Element>(
    t: TensorRef<E>,
    batch: usize,
    seqlen: usize,
    heads: usize,
    head_dim: usize,
) -> Vec<f64> {
    check_len("tensor", &t, batch, seqlen, heads, head_dim);
    let mut out = Vec::with_capacity(batch * seqlen * heads * head_dim);
    for b in 0..batch {
        for s in 0..seqlen {
            for h in 0..heads {
                let off = t.strides.offset(b, s, h);
                out.extend(t.data[off..off + head_dim].iter().map(|x| x.to_f64()));
            }
        }
    }
    out
}

fn check_len<E>(
    name: &str,
    t: &TensorRef<E>,
    batch: usize,
    seqlen: usize,
    heads: usize,
    head_dim: usize,
) {
    let need = t.strides.required_len(batch, seqlen, heads, head_dim);
    assert!(
        t.data.len() >= need,
        "{name}: slice has {} elements but layout {:?} for [B={batch}, S={seqlen}, H={heads}, D={head_dim}] needs {need}",
        t.data.len(),
        t.strides
    );
}

fn validate_inputs<E>(p: &Problem, q: &TensorRef<E>, k: &TensorRef<E>, v: &TensorRef<E>) {
    if let Err(e) = p.validate() {
        panic!("invalid problem: {e}");
    }
    check_len("q", q, p.batch, p.seqlen_q, p.heads_q, p.head_dim);
    check_len("k", k, p.batch, p.seqlen_k, p.heads_kv, p.head_dim);
    check_len("v", v, p.batch, p.seqlen_k, p.heads_kv, p.head_dim);
}

// ---------------------------------------------------------------------------
// Shared parallel driver
// ---------------------------------------------------------------------------

/// Rows per work item. Small enough that a single (batch, head) still spreads
/// over all cores for long sequences, large enough that per-item overhead
/// (allocation, scatter) is negligible next to `rows * Sk * D` work.
const ROW_CHUNK: usize = 32;

/// One head's K and V rows, converted once and stored contiguously so that
/// the inner loops are unit-stride whatever the input layout was.
struct HeadKv<T> {
    k: Vec<T>,
    v: Vec<T>,
}

/// Result of one work item, scattered into [`Output`] afterwards; returning
/// owned chunks keeps the parallel part free of shared mutable state.
struct Chunk {
    b: usize,
    h: usize,
    row0: usize,
    o: Vec<f64>,
    lse: Vec<f64>,
}

/// Per-head f32 vectors of a problem, `[heads_q]` each: ALiBi slopes (key `j`
/// of query `i` gets `-slope * |i + diag - j|`, FlashAttention-2's sign) and
/// attention sinks (natural-log logits that join each row's softmax
/// denominator and nothing else).
#[derive(Clone, Copy, Debug, Default)]
pub struct HeadParams<'a> {
    /// ALiBi slopes, or `None`.
    pub alibi_slopes: Option<&'a [f32]>,
    /// Attention sinks, or `None`.
    pub sinks: Option<&'a [f32]>,
}

/// What one row's softmax needs besides Q, K and V.
struct RowMods {
    /// The keys the row sees (never empty when a kernel is called).
    keys: std::ops::Range<usize>,
    /// `i + diag`: the ALiBi distance of key `j` is `|row_diag - j|`.
    row_diag: i64,
    /// The head's ALiBi slope.
    slope: Option<f32>,
    /// The head's sink logit.
    sink: Option<f32>,
}

/// The per-row numerics of one implementation. The driver handles layout,
/// masking extents and parallelism so both implementations cannot disagree on
/// any of those.
trait RowKernel: Sync {
    /// Accumulation type the inputs are converted to.
    type T: Copy + Send + Sync + Default;
    /// Per-thread scratch space, reused across the rows of a chunk.
    type Scratch: Default;
    fn convert<E: Element>(x: E) -> Self::T;
    /// Compute one query row against the keys `m.keys` (at least one), writing
    /// `o` (length D) and returning the LSE.
    fn row(
        &self,
        q: &[Self::T],
        kv: &HeadKv<Self::T>,
        m: &RowMods,
        s: &mut Self::Scratch,
        o: &mut [f64],
    ) -> f64;
}

fn drive<E: Element, K: RowKernel>(
    p: &Problem,
    q: TensorRef<E>,
    k: TensorRef<E>,
    v: TensorRef<E>,
    heads: HeadParams,
    kernel: &K,
) -> Output {
    validate_inputs(p, &q, &k, &v);
    for (name, x) in [("alibi_slopes", heads.alibi_slopes), ("sinks", heads.sinks)] {
        if let Some(x) = x {
            assert!(
                x.len() >= p.heads_q,
                "{name}: {} values for {} query heads",
                x.len(),
                p.heads_q
            );
        }
    }
    let d = p.head_dim;
    let mut out = Output {
        o: vec![0.0; p.o_len()],
        lse: vec![f64::NEG_INFINITY; p.lse_len()],
    };
    if p.o_len() == 0 && p.lse_len() == 0 {
        return out;
    }
    let group = p.group_size();
    let chunks_per_head = p.seqlen_q.div_ceil(ROW_CHUNK);

    let gather = |t: &TensorRef<E>, b: usize, hk: usize| -> Vec<K::T> {
        let mut buf = Vec::with_capacity(p.seqlen_k * d);
        for j in 0..p.seqlen_k {
            let off = t.strides.offset(b, j, hk);
            buf.extend(t.data[off..off + d].iter().map(|&x| K::convert(x)));
        }
        buf
    };

    // Outer parallelism over (batch, kv head) so each K/V head is converted
    // once and shared by all query heads of its GQA group; inner parallelism
    // over (query head, row chunk) keeps cores busy when B*Hkv is small.
    let results: Vec<Vec<Chunk>> = (0..p.batch * p.heads_kv)
        .into_par_iter()
        .map(|bk| {
            let (b, hk) = (bk / p.heads_kv, bk % p.heads_kv);
            let kv = HeadKv {
                k: gather(&k, b, hk),
                v: gather(&v, b, hk),
            };
            (0..group * chunks_per_head)
                .into_par_iter()
                .map(|item| {
                    let h = hk * group + item / chunks_per_head;
                    let row0 = (item % chunks_per_head) * ROW_CHUNK;
                    let rows = ROW_CHUNK.min(p.seqlen_q - row0);
                    let mut chunk = Chunk {
                        b,
                        h,
                        row0,
                        o: vec![0.0; rows * d],
                        lse: vec![f64::NEG_INFINITY; rows],
                    };
                    let mut scratch = K::Scratch::default();
                    let mut qrow = vec![K::T::default(); d];
                    let slope = heads.alibi_slopes.map(|s| s[h]);
                    let sink = heads.sinks.map(|s| s[h]);
                    for r in 0..rows {
                        let i = row0 + r;
                        let keys = p.visible_range(i);
                        if keys.is_empty() {
                            // A row that sees no key: O stays 0 and LSE is -inf
                            // (FlashAttention-2's convention), or the sink logit:
                            // the sink is then the softmax's only term.
                            chunk.lse[r] = sink.map_or(f64::NEG_INFINITY, |s| s as f64);
                            continue;
                        }
                        let mods = RowMods {
                            keys,
                            row_diag: i as i64 + p.diagonal(),
                            slope,
                            sink,
                        };
                        let off = q.strides.offset(b, i, h);
                        for (dst, &src) in qrow.iter_mut().zip(&q.data[off..off + d]) {
                            *dst = K::convert(src);
                        }
                        let o = &mut chunk.o[r * d..(r + 1) * d];
                        chunk.lse[r] = kernel.row(&qrow, &kv, &mods, &mut scratch, o);
                    }
                    chunk
                })
                .collect()
        })
        .collect();

    for chunk in results.into_iter().flatten() {
        for (r, lse) in chunk.lse.iter().enumerate() {
            let i = chunk.row0 + r;
            out.lse[lse_index(p, chunk.b, chunk.h, i)] = *lse;
            let dst = index_bshd(p, chunk.b, i, chunk.h);
            out.o[dst..dst + d].copy_from_slice(&chunk.o[r * d..(r + 1) * d]);
        }
    }
    out
}

// ---------------------------------------------------------------------------
// f64 reference
// ---------------------------------------------------------------------------

/// Dot product with four independent partial sums: lets the compiler keep
/// several FMAs in flight (and vectorize), which is what makes the f64
/// reference fast enough for S=2048 checks; in f64 the reassociation error is
/// far below anything the tolerance rule can see.
#[inline]
fn dot_f64(a: &[f64], b: &[f64]) -> f64 {
    let mut acc = [0.0f64; 4];
    let (a4, b4) = (a.chunks_exact(4), b.chunks_exact(4));
    let (a_tail, b_tail) = (a4.remainder(), b4.remainder());
    for (x, y) in a4.zip(b4) {
        for l in 0..4 {
            acc[l] += x[l] * y[l];
        }
    }
    let mut tail = 0.0;
    for (x, y) in a_tail.iter().zip(b_tail) {
        tail += x * y;
    }
    (acc[0] + acc[1]) + (acc[2] + acc[3]) + tail
}

struct RefKernel {
    scale: f64,
    softcap: Option<f64>,
    d: usize,
}

impl RowKernel for RefKernel {
    type T = f64;
    type Scratch = Vec<f64>;

    fn convert<E: Element>(x: E) -> f64 {
        x.to_f64()
    }

    fn row(
        &self,
        q: &[f64],
        kv: &HeadKv<f64>,
        mods: &RowMods,
        scores: &mut Vec<f64>,
        o: &mut [f64],
    ) -> f64 {
        let d = self.d;
        scores.clear();
        let mut m = f64::NEG_INFINITY;
        for j in mods.keys.clone() {
            let mut s = self.scale * dot_f64(q, &kv.k[j * d..(j + 1) * d]);
            if let Some(cap) = self.softcap {
                s = cap * (s / cap).tanh();
            }
            if let Some(slope) = mods.slope {
                s -= slope as f64 * (mods.row_diag - j as i64).abs() as f64;
            }
            m = m.max(s);
            scores.push(s);
        }
        let sink = mods.sink.map(|s| s as f64);
        if let Some(s) = sink {
            m = m.max(s);
        }
        o.fill(0.0);
        let mut l = sink.map_or(0.0, |s| (s - m).exp());
        for (&s, j) in scores.iter().zip(mods.keys.clone()) {
            let e = (s - m).exp();
            l += e;
            for (acc, &vx) in o.iter_mut().zip(&kv.v[j * d..(j + 1) * d]) {
                *acc += e * vx;
            }
        }
        let inv = 1.0 / l;
        for x in o.iter_mut() {
            *x *= inv;
        }
        m + l.ln()
    }
}

/// f64-accumulated reference: inputs are widened to f64 and every step
/// (scores, softmax, weighted sum) is done in f64 with a max-subtracted
/// softmax. Parallel (rayon) over batch x heads and row chunks.
///
/// # Panics
/// If `heads_q` is not a multiple of `heads_kv` or a slice is too short for
/// its layout.
pub fn reference<E: Element>(
    p: &Problem,
    q: TensorRef<E>,
    k: TensorRef<E>,
    v: TensorRef<E>,
) -> Output {
    reference_with(p, q, k, v, HeadParams::default())
}

/// [`reference()`] with ALiBi slopes and attention sinks. Every feature in f64:
/// `s = scale * q.k`, `s = cap * tanh(s / cap)` with a softcap, `s -= slope *
/// |i + diag - j|` with ALiBi, the mask ([`Problem::visible_range`]), then a
/// softmax whose denominator also holds `exp(sink)`: O = sum_j exp(s_j) v_j /
/// (sum_j exp(s_j) + exp(sink)), LSE = ln(sum_j exp(s_j) + exp(sink)). A row
/// that sees no key gets O = 0 and LSE = -inf, or LSE = its sink.
///
/// # Panics
/// As [`reference()`], and if a head vector has fewer than `heads_q` values.
pub fn reference_with<E: Element>(
    p: &Problem,
    q: TensorRef<E>,
    k: TensorRef<E>,
    v: TensorRef<E>,
    heads: HeadParams,
) -> Output {
    let kernel = RefKernel {
        scale: p.softmax_scale as f64,
        softcap: p.softcap.map(|c| c as f64),
        d: p.head_dim,
    };
    drive(p, q, k, v, heads, &kernel)
}

// ---------------------------------------------------------------------------
// Naive same-precision baseline
// ---------------------------------------------------------------------------

/// f32 dot product accumulated in eight lanes, standing for a GEMM's blocked
/// accumulation (and letting the loop vectorize): the naive's `Q K^T` wherever
/// its rounding to `E` hides how the f32 sum was formed.
#[inline]
fn dot_f32(a: &[f32], b: &[f32]) -> f32 {
    let mut acc = [0.0f32; 8];
    let (a8, b8) = (a.chunks_exact(8), b.chunks_exact(8));
    let (a_tail, b_tail) = (a8.remainder(), b8.remainder());
    for (x, y) in a8.zip(b8) {
        for l in 0..8 {
            acc[l] += x[l] * y[l];
        }
    }
    let mut tail = 0.0;
    for (x, y) in a_tail.iter().zip(b_tail) {
        tail += x * y;
    }
    ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7])) + tail
}

struct NaiveKernel<E> {
    scale: f32,
    softcap: Option<f32>,
    d: usize,
    _e: std::marker::PhantomData<fn() -> E>,
}

#[derive(Default)]
struct NaiveScratch {
    scores: Vec<f32>,
    acc: Vec<f32>,
}

impl<E: Element> RowKernel for NaiveKernel<E> {
    type T = f32;
    type Scratch = NaiveScratch;

    fn convert<X: Element>(x: X) -> f32 {
        x.to_f32()
    }

    fn row(
        &self,
        q: &[f32],
        kv: &HeadKv<f32>,
        mods: &RowMods,
        s: &mut NaiveScratch,
        o: &mut [f64],
    ) -> f64 {
        let d = self.d;
        // Every elementwise framework op rounds its output to E: S = Q K^T, then
        // the scale; with a softcap `/ cap`, tanh and `* cap` (Gemma-2's
        // PyTorch code, in the model dtype); with ALiBi the bias tensor in E
        // and the sum (BLOOM's). `round` false keeps everything in f32.
        let score = |j: usize, round: bool| -> f32 {
            let r = |x: f32| if round { E::round_f32(x) } else { x };
            let key = &kv.k[j * d..(j + 1) * d];
            // Scores kept in f32 are compared with a kernel's at f32 precision, where the
            // matrix units' truncating sums show (up to an ulp of the largest product per
            // k-step); the model costs several times the lane sum, so only there.
            let raw = match E::MATRIX_UNIT_INPUT {
                Some(input) if !round => matrix_unit::dot(input, q, key),
                _ => r(dot_f32(q, key)),
            };
            let mut sc = r(raw * self.scale);
            if let Some(cap) = self.softcap {
                sc = r(cap * r(r(sc / cap).tanh()));
            }
            if let Some(slope) = mods.slope {
                let bias = r(-slope * (mods.row_diag - j as i64).abs() as f32);
                sc = r(sc + bias);
            }
            sc
        };
        s.scores.clear();
        let mut m = f32::NEG_INFINITY;
        let mut overflowed = false;
        for j in mods.keys.clone() {
            let sc = score(j, true);
            overflowed |= !sc.is_finite();
            m = m.max(sc);
            s.scores.push(sc);
        }
        // Scores beyond E's range would make this row NaN, leaving the rule without a
        // yardstick for it (and a bound of ATOL for everything else). For such rows keep the
        // scores in f32, as a fused framework kernel does; P and O are still rounded to E.
        if overflowed {
            s.scores.clear();
            m = f32::NEG_INFINITY;
            for j in mods.keys.clone() {
                let sc = score(j, false);
                m = m.max(sc);
                s.scores.push(sc);
            }
        }
        // The sink is one more f32 logit in the softmax (a framework concatenates it to
        // the scores); kept in f32, as an f32 parameter: rounding it to E would only loosen
        // the bound.
        if let Some(sink) = mods.sink {
            m = m.max(sink);
        }
        // Softmax computed in f32 internally (as frameworks do for half
        // inputs), probabilities stored in E.
        let mut l = mods.sink.map_or(0.0f32, |sink| (sink - m).exp());
        for e in s.scores.iter_mut() {
            *e = (*e - m).exp();
            l += *e;
        }
        // P V with f32 accumulation, output stored in E.
        s.acc.clear();
        s.acc.resize(d, 0.0);
        for (&e, j) in s.scores.iter().zip(mods.keys.clone()) {
            let pj = E::round_f32(e / l);
            for (acc, &vx) in s.acc.iter_mut().zip(&kv.v[j * d..(j + 1) * d]) {
                *acc += pj * vx;
            }
        }
        for (dst, &a) in o.iter_mut().zip(&s.acc) {
            *dst = E::round_f32(a) as f64;
        }
        (m + l.ln()) as f64
    }
}

/// What a plain framework implementation in the input precision computes:
/// `S = round_E(Q K^T)` (f32 accumulation), `S = round_E(S * scale)`,
/// masked entries `-inf`, `P = round_E(softmax_f32(S))`,
/// `O = round_E(P V)` (f32 accumulation, sequential: whether on matrix units
/// or not, its error is far below O's rounding to `E`). LSE is the f32 log-sum-exp of the
/// rounded scores. Fully masked rows give `O = 0`, `LSE = -inf`. A row whose
/// rounded scores overflow `E` keeps its scores in f32 (as a fused kernel
/// would) instead of turning into NaN, their dot products summed as the GPU's
/// matrix units sum them ([`matrix_unit`]; f16 and bf16).
///
/// Its distance from [`reference()`] is the yardstick of [`check()`]: a kernel in
/// precision `E` should not be much worse than the obvious implementation in
/// precision `E`. For `E = f32` all roundings are the identity.
///
/// # Panics
/// Same conditions as [`reference()`].
pub fn naive_same_precision<E: Element>(
    p: &Problem,
    q: TensorRef<E>,
    k: TensorRef<E>,
    v: TensorRef<E>,
) -> Output {
    naive_same_precision_with(p, q, k, v, HeadParams::default())
}

/// [`naive_same_precision()`] with ALiBi slopes and attention sinks: the
/// softcap's `/ cap`, `tanh` and `* cap` and the ALiBi bias and its sum each
/// rounded to `E` (the framework code of Gemma-2 and BLOOM in the model dtype),
/// the sink an f32 logit in the f32 softmax. A row that sees no key gives O = 0
/// and LSE = -inf, or its sink.
///
/// # Panics
/// Same conditions as [`reference_with()`].
pub fn naive_same_precision_with<E: Element>(
    p: &Problem,
    q: TensorRef<E>,
    k: TensorRef<E>,
    v: TensorRef<E>,
    heads: HeadParams,
) -> Output {
    let kernel = NaiveKernel::<E> {
        scale: p.softmax_scale,
        softcap: p.softcap,
        d: p.head_dim,
        _e: std::marker::PhantomData,
    };
    drive(p, q, k, v, heads, &kernel)
}

// ---------------------------------------------------------------------------
// Variable length (packed sequences)
// ---------------------------------------------------------------------------

/// The sequences of a variable-length problem (FlashAttention's `cu_seqlens`): Q and O are
/// packed `[total_q, Hq, D]` tensors, K and V `[total_k, Hkv, D]` (addressed as batch entry 0
/// of a [`TensorRef`]; the batch stride is ignored), and sequence `b` owns query rows
/// `cu_seqlens_q[b]..cu_seqlens_q[b + 1]` and key rows `cu_seqlens_k[b]..cu_seqlens_k[b + 1]`,
/// of which the first `seqused_k[b]` are present when `seqused_k` is given. Every mask and
/// score modifier of the [`Problem`] applies per sequence, with the sequence's own lengths
/// (bottom-right causal per sequence). The output is [`Output`] of [`Varlen::packed_problem`]:
/// O `[total_q, Hq, D]`, LSE `[Hq, total_q]` (FlashAttention-2's packed layout).
#[derive(Clone, Copy, Debug)]
pub struct Varlen<'a> {
    /// `[batch + 1]` prefix sums of the query lengths, starting at 0, non-decreasing.
    pub cu_seqlens_q: &'a [usize],
    /// `[batch + 1]` prefix sums of the key lengths, starting at 0, non-decreasing.
    pub cu_seqlens_k: &'a [usize],
    /// Keys present per sequence, each at most its key count; `None`: all.
    pub seqused_k: Option<&'a [usize]>,
}

impl Varlen<'_> {
    /// Number of sequences.
    pub fn batch(&self) -> usize {
        self.cu_seqlens_q.len().saturating_sub(1)
    }

    /// Rows of packed Q and O.
    pub fn total_q(&self) -> usize {
        self.cu_seqlens_q.last().copied().unwrap_or(0)
    }

    /// Rows of packed K and V.
    pub fn total_k(&self) -> usize {
        self.cu_seqlens_k.last().copied().unwrap_or(0)
    }

    /// Query rows and present keys of sequence `b`.
    ///
    /// # Panics
    /// If `b` is not a sequence (`b >= batch()`, or `seqused_k` has no entry `b`), and, in
    /// builds with overflow checks (tests), if a prefix sum decreases at `b` (without them the
    /// length wraps).
    pub fn lens(&self, b: usize) -> (usize, usize) {
        let len_k = self.cu_seqlens_k[b + 1] - self.cu_seqlens_k[b];
        let used = self.seqused_k.map_or(len_k, |u| u[b]);
        (self.cu_seqlens_q[b + 1] - self.cu_seqlens_q[b], used)
    }

    /// The whole packed problem as one batch entry of `total_q` queries and `total_k` keys,
    /// with `p`'s heads and options: what [`check()`] takes for a varlen output.
    pub fn packed_problem(&self, p: &Problem) -> Problem {
        Problem {
            batch: 1,
            seqlen_q: self.total_q(),
            seqlen_k: self.total_k(),
            ..*p
        }
    }

    /// Sequence `b` as a one-entry problem with `p`'s heads and options.
    ///
    /// # Panics
    /// As [`Varlen::lens`].
    pub fn sequence(&self, p: &Problem, b: usize) -> Problem {
        let (seqlen_q, seqlen_k) = self.lens(b);
        Problem {
            batch: 1,
            seqlen_q,
            seqlen_k,
            ..*p
        }
    }

    fn validate(&self) {
        let batch = self.batch();
        assert!(
            self.cu_seqlens_q.len() == batch + 1 && self.cu_seqlens_k.len() == batch + 1,
            "cu_seqlens_q and cu_seqlens_k need the same number of entries: {self:?}"
        );
        for cu in [self.cu_seqlens_q, self.cu_seqlens_k] {
            assert!(
                cu.first() == Some(&0) && cu.windows(2).all(|w| w[0] <= w[1]),
                "cu_seqlens must start at 0 and never decrease: {cu:?}"
            );
        }
        if let Some(used) = self.seqused_k {
            assert_eq!(used.len(), batch, "seqused_k needs one entry per sequence");
            for (b, &u) in used.iter().enumerate() {
                let len = self.cu_seqlens_k[b + 1] - self.cu_seqlens_k[b];
                assert!(
                    u <= len,
                    "seqused_k[{b}] = {u} is above the sequence's {len} keys"
                );
            }
        }
    }
}

/// Run `dense` (the reference or the naive baseline) on each sequence of a varlen problem and
/// scatter the results into the packed output. Sequences without queries are skipped; rows of a
/// sequence without keys get O = 0 and LSE = -inf (or the sink), as in a dense problem.
fn drive_varlen<E: Element>(
    p: &Problem,
    vl: &Varlen,
    [q, k, v]: [TensorRef<E>; 3],
    heads: HeadParams,
    dense: impl Fn(&Problem, [TensorRef<E>; 3], HeadParams) -> Output,
) -> Output {
    vl.validate();
    let packed = vl.packed_problem(p);
    let (total_q, row_len) = (vl.total_q(), p.heads_q * p.head_dim);
    let mut out = Output {
        o: vec![0.0; packed.o_len()],
        lse: vec![f64::NEG_INFINITY; packed.lse_len()],
    };
    // Sequence b's rows as batch entry 0 of a tensor starting at its first row.
    fn from_row<'a, E>(t: &TensorRef<'a, E>, row: usize) -> TensorRef<'a, E> {
        let strides = Strides {
            batch: 0,
            ..t.strides
        };
        // A sequence without keys may start at the end of a padded layout's last row.
        TensorRef::new(
            &t.data[(row * strides.row as usize).min(t.data.len())..],
            strides,
        )
    }
    for b in 0..vl.batch() {
        let seq = vl.sequence(p, b);
        if seq.seqlen_q == 0 {
            continue;
        }
        let (q0, k0) = (vl.cu_seqlens_q[b], vl.cu_seqlens_k[b]);
        let r = dense(
            &seq,
            [from_row(&q, q0), from_row(&k, k0), from_row(&v, k0)],
            heads,
        );
        out.o[q0 * row_len..(q0 + seq.seqlen_q) * row_len].copy_from_slice(&r.o);
        for h in 0..p.heads_q {
            let src = &r.lse[h * seq.seqlen_q..(h + 1) * seq.seqlen_q];
            out.lse[h * total_q + q0..h * total_q + q0 + seq.seqlen_q].copy_from_slice(src);
        }
    }
    out
}

/// [`reference_with()`] over the sequences of a variable-length problem (see [`Varlen`]): each
/// sequence is the dense reference with its own lengths; the result is packed.
///
/// # Panics
/// As [`reference_with()`] for any sequence, and if `vl`'s prefix sums are malformed.
pub fn reference_varlen<E: Element>(
    p: &Problem,
    vl: &Varlen,
    q: TensorRef<E>,
    k: TensorRef<E>,
    v: TensorRef<E>,
    heads: HeadParams,
) -> Output {
    drive_varlen(p, vl, [q, k, v], heads, |s, [q, k, v], h| {
        reference_with(s, q, k, v, h)
    })
}

/// [`naive_same_precision_with()`] over the sequences of a variable-length problem: the
/// yardstick of [`check()`] for [`reference_varlen()`].
///
/// # Panics
/// As [`reference_varlen()`].
pub fn naive_same_precision_varlen<E: Element>(
    p: &Problem,
    vl: &Varlen,
    q: TensorRef<E>,
    k: TensorRef<E>,
    v: TensorRef<E>,
    heads: HeadParams,
) -> Output {
    drive_varlen(p, vl, [q, k, v], heads, |s, [q, k, v], h| {
        naive_same_precision_with(s, q, k, v, h)
    })
}

// ---------------------------------------------------------------------------
// Tolerance rule
// ---------------------------------------------------------------------------

/// Absolute slack added to every bound, so that problems where the naive
/// baseline happens to be (nearly) exact do not demand bit-exactness.
pub const ATOL: f64 = 1e-5;

/// LSE is an f32 output whose largest term is one raw score. In a row whose scores fit the
/// input type the naive's LSE comes from scores rounded to it, far coarser than any kernel's; in
/// a row whose scores overflow it, from f32 scores. Those were once sums rounded to nearest, a
/// few f32 ulps more accurate than any GPU implementation at scores of 1e4..1e5, a framework's
/// GEMM included (seen on an H100: 2.3 ulps at LSE = 7.1e4, D = 256, where the naive was 0.26 ulp
/// off); they are now the matrix units' sums ([`matrix_unit`]), but a kernel's LSE still goes
/// through its own exp2 and log2, which the naive does not share. The LSE bound therefore never
/// asks for less than this many ulps; below |LSE| of about 20 it is [`ATOL`] that applies.
pub const LSE_ULPS: f64 = 4.0;

/// The LSE slack: `max(ATOL, LSE_ULPS * ulp_f32(max finite |lse|))`.
fn lse_atol(reference_lse: &[f64]) -> f64 {
    let largest = reference_lse
        .iter()
        .filter(|x| x.is_finite())
        .fold(0.0f64, |m, x| m.max(x.abs()));
    let ulp = if largest > 0.0 {
        2f64.powi((largest as f32).log2().floor() as i32 - 23)
    } else {
        0.0
    };
    ATOL.max(LSE_ULPS * ulp)
}

/// Outcome of [`check()`]: the verdict plus everything needed to explain it.
#[derive(Clone, Debug)]
pub struct Check {
    /// The verdict of the tolerance rule.
    pub pass: bool,
    /// `max_i |got_o[i] - ref.o[i]|` (infinite when any element is non-finite
    /// where the reference is not, or vice versa).
    pub o_max_err: f64,
    /// `max_i |naive.o[i] - ref.o[i]|` over elements where the comparison is
    /// finite.
    pub o_naive_err: f64,
    /// `2 * o_naive_err + ATOL`.
    pub o_bound: f64,
    /// Same as `o_max_err` for LSE; 0 when LSE was not checked.
    pub lse_max_err: f64,
    /// Same as `o_naive_err` for LSE.
    pub lse_naive_err: f64,
    /// `2 * lse_naive_err + max(ATOL, LSE_ULPS f32 ulps of max |ref.lse|)`.
    pub lse_bound: f64,
    /// Worst of `o_max_err / o_bound` and `lse_max_err / lse_bound`; `<= 1`
    /// means pass (infinite on any hard failure).
    pub ratio: f64,
    /// Count of NaN/Inf values in the tested outputs (O and LSE) that the
    /// reference does not have at the same index.
    pub non_finite: usize,
    /// `(index, got, want)` of the largest O error.
    pub worst_o: Option<(usize, f64, f64)>,
    /// `[b, s, h, d]` coordinates of `worst_o`.
    pub worst_o_at: Option<[usize; 4]>,
    /// `(index, got, want)` of the largest LSE error.
    pub worst_lse: Option<(usize, f64, f64)>,
    /// `[b, h, s]` coordinates of `worst_lse`.
    pub worst_lse_at: Option<[usize; 3]>,
    /// Whether an LSE was supplied and compared.
    pub lse_checked: bool,
    /// Elements where the naive baseline itself is non-finite relative to the
    /// reference; they are left out of the naive errors so that an overflowing
    /// baseline cannot make the bound infinite.
    pub naive_non_finite: usize,
    /// Structural problem (length mismatch) that failed the check before any
    /// numbers were compared.
    pub error: Option<String>,
}

/// Error of one element under the rule's conventions. `None` means the pair is
/// a hard mismatch (NaN anywhere in `got`, or an infinity on only one side).
fn elem_err(got: f64, want: f64) -> Option<f64> {
    if got.is_nan() {
        return None;
    }
    if got.is_infinite() || want.is_infinite() || want.is_nan() {
        return (got == want).then_some(0.0);
    }
    Some((got - want).abs())
}

struct Cmp {
    max_err: f64,
    worst: Option<(usize, f64, f64)>,
    non_finite: usize,
}

fn compare(got: impl Iterator<Item = f64>, want: &[f64]) -> Cmp {
    let mut c = Cmp {
        max_err: 0.0,
        worst: None,
        non_finite: 0,
    };
    for (i, (g, &w)) in got.zip(want).enumerate() {
        let err = match elem_err(g, w) {
            Some(e) => e,
            None => {
                // A finite value where the reference is infinite is also a
                // hard failure, but it is not a non-finite value in `got`.
                if !g.is_finite() {
                    c.non_finite += 1;
                }
                f64::INFINITY
            }
        };
        // Taking the first element unconditionally makes `worst` meaningful
        // even for an exact match; strict `>` then keeps the first of equal
        // (e.g. several infinite) errors, which is the easiest to locate.
        if c.worst.is_none() || err > c.max_err {
            c.max_err = err;
            c.worst = Some((i, g, w));
        }
    }
    c
}

/// Largest error of the naive baseline, ignoring elements where it blew up.
fn naive_err(naive: &[f64], want: &[f64]) -> (f64, usize) {
    let mut max: f64 = 0.0;
    let mut bad = 0;
    for (&n, &w) in naive.iter().zip(want) {
        match elem_err(n, w) {
            Some(e) if e.is_finite() => max = max.max(e),
            _ => bad += 1,
        }
    }
    (max, bad)
}

impl Check {
    fn failed(error: String) -> Self {
        Self {
            pass: false,
            o_max_err: f64::INFINITY,
            o_naive_err: 0.0,
            o_bound: ATOL,
            lse_max_err: 0.0,
            lse_naive_err: 0.0,
            lse_bound: ATOL,
            ratio: f64::INFINITY,
            non_finite: 0,
            worst_o: None,
            worst_o_at: None,
            worst_lse: None,
            worst_lse_at: None,
            lse_checked: false,
            naive_non_finite: 0,
            error: Some(error),
        }
    }

    /// One-line human-readable verdict with the numbers behind it.
    pub fn summary(&self) -> String {
        let verdict = if self.pass { "PASS" } else { "FAIL" };
        if let Some(e) = &self.error {
            return format!("{verdict}: {e}");
        }
        let mut s = format!(
            "{verdict} ratio={:.3} | O err={:.3e} bound={:.3e} (naive {:.3e})",
            self.ratio, self.o_max_err, self.o_bound, self.o_naive_err
        );
        if let (Some((i, g, w)), Some([b, q, h, d])) = (self.worst_o, self.worst_o_at) {
            s += &format!(" worst o[{b},{q},{h},{d}] (#{i}) got={g:.6e} want={w:.6e}");
        }
        if self.lse_checked {
            s += &format!(
                " | LSE err={:.3e} bound={:.3e} (naive {:.3e})",
                self.lse_max_err, self.lse_bound, self.lse_naive_err
            );
            if let (Some((i, g, w)), Some([b, h, q])) = (self.worst_lse, self.worst_lse_at) {
                s += &format!(" worst lse[{b},{h},{q}] (#{i}) got={g:.6e} want={w:.6e}");
            }
        } else {
            s += " | LSE not checked";
        }
        if self.non_finite > 0 {
            s += &format!(" | {} non-finite", self.non_finite);
        }
        if self.naive_non_finite > 0 {
            s += &format!(" | naive non-finite at {} (ignored)", self.naive_non_finite);
        }
        s
    }
}

impl fmt::Display for Check {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.summary())
    }
}

fn unravel_bshd(p: &Problem, i: usize) -> [usize; 4] {
    let d = i % p.head_dim.max(1);
    let rest = i / p.head_dim.max(1);
    let h = rest % p.heads_q.max(1);
    let rest = rest / p.heads_q.max(1);
    [rest / p.seqlen_q.max(1), rest % p.seqlen_q.max(1), h, d]
}

fn unravel_lse(p: &Problem, i: usize) -> [usize; 3] {
    let s = i % p.seqlen_q.max(1);
    let rest = i / p.seqlen_q.max(1);
    [rest / p.heads_q.max(1), rest % p.heads_q.max(1), s]
}

/// The project's one tolerance rule.
///
/// Passes iff
/// 1. `got_o` (and `got_lse`) contain no NaN, and no infinity the reference
///    does not have at the same index;
/// 2. `max |got_o - ref.o| <= 2 * max |naive.o - ref.o| + ATOL`;
/// 3. when `got_lse` is given, the same rule holds for LSE, where equal
///    infinities (fully masked rows: both `-inf`) count as error 0, and the
///    absolute slack is [`ATOL`] or [`LSE_ULPS`] f32 ulps of the largest
///    finite `|ref.lse|`, whichever is larger (see [`LSE_ULPS`] for why).
///
/// Any length disagreement between `p`, the reference, the naive baseline and
/// the tested output is a failure with an explanatory message, not a panic,
/// because a wrong-size output is a kernel bug worth reporting like any other.
pub fn check(
    p: &Problem,
    got_o: &[f64],
    got_lse: Option<&[f32]>,
    reference: &Output,
    naive: &Output,
) -> Check {
    let (o_len, lse_len) = (p.o_len(), p.lse_len());
    let mut lens = vec![
        ("reference O", reference.o.len(), o_len),
        ("reference LSE", reference.lse.len(), lse_len),
        ("naive O", naive.o.len(), o_len),
        ("naive LSE", naive.lse.len(), lse_len),
        ("got O", got_o.len(), o_len),
    ];
    if let Some(l) = got_lse {
        lens.push(("got LSE", l.len(), lse_len));
    }
    for (what, have, want) in lens {
        if have != want {
            return Check::failed(format!(
                "length mismatch: {what} has {have} elements, problem needs {want} ({p:?})"
            ));
        }
    }

    let o = compare(got_o.iter().copied(), &reference.o);
    let (o_naive_err, o_naive_bad) = naive_err(&naive.o, &reference.o);
    let o_bound = 2.0 * o_naive_err + ATOL;

    let (lse_max_err, worst_lse, lse_bad, lse_naive_err, lse_naive_bad) = match got_lse {
        Some(l) => {
            let c = compare(l.iter().map(|&x| x as f64), &reference.lse);
            let (ne, nb) = naive_err(&naive.lse, &reference.lse);
            (c.max_err, c.worst, c.non_finite, ne, nb)
        }
        None => (0.0, None, 0, 0.0, 0),
    };
    let lse_bound = 2.0 * lse_naive_err + lse_atol(&reference.lse);

    let non_finite = o.non_finite + lse_bad;
    let mut ratio = o.max_err / o_bound;
    if got_lse.is_some() {
        ratio = ratio.max(lse_max_err / lse_bound);
    }
    let pass =
        non_finite == 0 && o.max_err <= o_bound && (got_lse.is_none() || lse_max_err <= lse_bound);

    Check {
        pass,
        o_max_err: o.max_err,
        o_naive_err,
        o_bound,
        lse_max_err,
        lse_naive_err,
        lse_bound,
        ratio,
        non_finite,
        worst_o: o.worst,
        worst_o_at: o.worst.map(|(i, _, _)| unravel_bshd(p, i)),
        worst_lse,
        worst_lse_at: worst_lse.map(|(i, _, _)| unravel_lse(p, i)),
        lse_checked: got_lse.is_some(),
        naive_non_finite: o_naive_bad + lse_naive_bad,
        error: None,
    }
}
