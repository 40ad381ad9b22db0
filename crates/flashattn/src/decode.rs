//! Decode: a few query rows per sequence against a long KV cache, contiguous or paged.
//!
//! The forward kernels tile queries 64-128 rows at a time, so one query row per sequence
//! leaves most of the GPU idle and reads K/V once per query head. The decode kernel instead
//! gives one CTA to each (sequence, KV head, part of the key range): the query heads that share
//! a KV head read it once together (GQA packing), and the key range is split over enough CTAs
//! to fill the device ([`decode_splits`]). The parts' partial results go to a caller-provided
//! f32 workspace ([`decode_workspace_len`]) and a second kernel merges them; nothing is
//! allocated on the launch path.
//!
//! What is checked where: every size, stride, alignment, buffer length, page size and the
//! block table's width are checked on the host before the launch ([`validate_decode`]). The
//! *contents* of `seqlens_k` and of the block table live on the device and are not read back
//! (that would synchronise): the kernel clamps each sequence length to `[0, seqlen_k]` and
//! skips the keys of any page number outside `[0, num_pages)`, so bad contents give wrong
//! numbers for that sequence but never an out-of-bounds access.
//! [`check_block_table`] checks a host copy of a table completely.

use cudarc::driver::{CudaSlice, CudaStream, DevicePtr, DevicePtrMut};
use flashattn_sys as sys;

use crate::Element;
use crate::device::DeviceFacts;
use crate::error::{Error, Result};
use crate::forward::{Tensor, TensorMut, check_context, cuda_error, dispatch_error, guard_errors};
use crate::problem::{
    MAX_GRID_YZ, MAX_SEQLEN, RawLse, RawTensor, Strides, check_alignment,
    check_output_does_not_self_overlap, required_len,
};

/// Query rows per decode CTA (the split kernel's MMA columns): a GQA group times seqlen_q above
/// this is served by several CTAs per KV head.
const ROWS_PER_CTA: usize = 8;
/// A part of the key range is at least this many keys (two of the split kernel's 16-key blocks):
/// a part's time is mostly the latency of its first copies, so short caches want many short
/// parts, down to where the combine step costs more than they gain. On the H100 (2026-11-26, the
/// CUDA-core kernel since replaced, batch 1, 512 keys, 8 KV heads) 16 parts of 32 keys took 7.8
/// us, 8 of 64 9.3 us, 32 of 16 7.9 us.
const MIN_KEYS_PER_SPLIT: usize = 32;

/// CTAs an SM the split count is sized for (see [`decode_splits`]).
const BUSY_CTAS_PER_SM: usize = 2;

/// Shared memory of one split-kernel CTA plus the 1 KB the hardware reserves per CTA: four warps'
/// rings (cuda-src/decode/mma_kernel.cuh, `MmaDecodeTraits`: three to eight buffers a warp, each a
/// 16-key block's K or V, as many as 48 KB hold), which the merge reuses, and 256 bytes of
/// per-warp softmax state.
///
/// Saturating, and defined for head dim 0: [`decode_splits`] is public and takes any sizes.
fn smem_per_cta(head_dim: usize) -> usize {
    const STATE: usize = 256;
    const RESERVED: usize = 1024;
    let buffer = head_dim.saturating_mul(16 * 2);
    let slots = (48 * 1024 / buffer.saturating_mul(4).max(1)).clamp(3, 8);
    buffer
        .saturating_mul(4 * slots)
        .saturating_add(STATE + RESERVED)
}

/// CTAs of 128 threads an SM's registers allow: the split kernel's launch bound, four up to head
/// dim 128 (ptxas: 80-128 registers a thread), two at 256 (about 220).
fn ctas_by_registers(head_dim: usize) -> usize {
    if head_dim <= 128 { 4 } else { 2 }
}

/// Sizes and options of a decode call.
///
/// Q and O are `[batch, seqlen_q, heads_q, head_dim]`. A contiguous cache is K, V
/// `[batch, seqlen_k, heads_kv, head_dim]`; a paged cache is K, V `[num_pages, page_size,
/// heads_kv, head_dim]` (their batch stride steps pages) with a block table (see [`PagedKv`]).
#[derive(Clone, Debug, PartialEq)]
pub struct DecodeParams {
    /// Sequences.
    pub batch: usize,
    /// Query rows per sequence (1 for plain generation; a few for speculative decoding).
    pub seqlen_q: usize,
    /// Keys of the longest sequence; with `seqlens_k` each sequence may have fewer.
    pub seqlen_k: usize,
    /// Query heads.
    pub heads_q: usize,
    /// Key/value heads; divides `heads_q`.
    pub heads_kv: usize,
    /// Head dim (a compiled one, see [`crate::compiled_head_dims`]).
    pub head_dim: usize,
    /// Bottom-right causal mask per sequence: query i sees key j iff
    /// `j <= i + seqlen_k(b) - seqlen_q`.
    pub causal: bool,
    /// Softmax scale; `None` is `1 / sqrt(head_dim)`.
    pub softmax_scale: Option<f32>,
    /// Parts the key range is split into; `None` lets [`decode_splits`] choose from the device.
    pub num_splits: Option<usize>,
}

impl DecodeParams {
    /// One query row per sequence, no mask, the default scale and split count.
    pub fn new(
        batch: usize,
        seqlen_k: usize,
        heads_q: usize,
        heads_kv: usize,
        head_dim: usize,
    ) -> Self {
        DecodeParams {
            batch,
            seqlen_q: 1,
            seqlen_k,
            heads_q,
            heads_kv,
            head_dim,
            causal: false,
            softmax_scale: None,
            num_splits: None,
        }
    }

    fn scale(&self) -> f32 {
        self.softmax_scale
            .unwrap_or_else(|| 1.0 / (self.head_dim as f32).sqrt())
    }

    /// Saturating: [`decode_splits`] takes any sizes, and [`validate_decode`] refuses a count
    /// anywhere near usize::MAX.
    fn row_blocks(&self) -> usize {
        (self.heads_q / self.heads_kv.max(1))
            .saturating_mul(self.seqlen_q)
            .div_ceil(ROWS_PER_CTA)
    }
}

/// The split count for a call on `device`: enough parts for two CTAs an SM (or one, where only
/// one fits), each part at least 32 keys, never more than 1024 parts. A batch that fills that
/// alone gets one part.
///
/// More, shorter parts than that only add partial results for the combine kernel to merge, and
/// leave no room for it beside the split kernel; fewer leave the memory idle, since each warp
/// has about one 16-key block of K and V in flight. Forced counts on the lent H200 (2026-11-30,
/// call KAP, bf16, head dim 128, 32 query heads on 8 KV heads,
/// docs/benchmarks/2026-11-30-h200-decode-key-rows.md): batch 1 x 4096 keys 7.76 us at 32 parts
/// against 8.76 at 16 and 9.32 at 64; batch 1 x 32768 36.65 at 32 against 36.90 at 16; batch 8 x
/// 512 8.24 at 4 against 9.07 at 2 and 9.50 at 8; batch 8 x 4096 37.10 at 4, 37.11 at 2; batch
/// 8 x 32768 245.5 at 4 against 250.3 at 2 (in pages of 16 250.3 against 262.6); batch 64 x 4096
/// 242.4 at one part against 254.4 at 2. A count whose last parts would be empty drops them
/// (call KAR: batch 1 x 4096 keys 7.71 us at 32 parts against 7.88 at 33, the 33rd empty).
///
/// Defined for any sizes and device (saturating arithmetic): sizes [`validate_decode`] refuses
/// get a count too, which is all the launch ever sees of them.
pub fn decode_splits(params: &DecodeParams, device: &DeviceFacts) -> usize {
    if let Some(n) = params.num_splits {
        return n;
    }
    let ctas = params
        .batch
        .saturating_mul(params.heads_kv)
        .saturating_mul(params.row_blocks());
    let busy = device
        .sm_count
        .saturating_mul(decode_ctas_per_sm(params.head_dim, device).min(BUSY_CTAS_PER_SM));
    let fill = (busy / ctas.max(1)).max(1);
    let most = params.seqlen_k.div_ceil(MIN_KEYS_PER_SPLIT);
    let parts = fill.min(most).clamp(1, 1024);
    // The kernel cuts the keys into parts of whole 16-key blocks; a count whose last parts would
    // get no key (33 over 4096 keys: 32 parts of 128) drops them.
    let keys_per_part = params
        .seqlen_k
        .div_ceil(parts)
        .checked_next_multiple_of(16)
        .unwrap_or(usize::MAX)
        .max(16);
    params.seqlen_k.div_ceil(keys_per_part).max(1)
}

/// Resident decode CTAs per SM: as many as the registers allow and the SM's shared memory (its
/// per-block opt-in limit and the 1 KB reserved) holds.
fn decode_ctas_per_sm(head_dim: usize, device: &DeviceFacts) -> usize {
    let by_smem = device.device_smem_per_block.saturating_add(1024) / smem_per_cta(head_dim);
    ctas_by_registers(head_dim).min(by_smem).max(1)
}

/// f32 elements of workspace a call with `num_splits` parts needs (0 for one part).
///
/// Saturates at `usize::MAX` for sizes [`validate_decode`] refuses anyway: no buffer is that
/// long, and an allocation of it fails.
pub fn decode_workspace_len(params: &DecodeParams, num_splits: usize) -> usize {
    if num_splits <= 1 {
        return 0;
    }
    num_splits
        .saturating_mul(params.batch)
        .saturating_mul(params.heads_q)
        .saturating_mul(params.seqlen_q)
        .saturating_mul(params.head_dim.saturating_add(1))
}

/// A paged KV cache's addressing: `block_table` is int32 `[batch, width]` (row `b` lists the
/// pages of sequence `b` in key order; `width >= ceil(seqlen_k / page_size)`).
pub struct PagedKv<'a, B> {
    /// The block table on the device.
    pub block_table: &'a B,
    /// Entries per row of the block table.
    pub width: usize,
    /// Keys per page: a multiple of 16.
    pub page_size: usize,
    /// Pages in K and V.
    pub num_pages: usize,
}

/// The block table of a raw call.
#[derive(Clone, Copy, Debug)]
pub struct RawPaged {
    /// Device address of the int32 table.
    pub ptr: u64,
    /// Entries available.
    pub len: usize,
    /// Entries per row.
    pub width: usize,
    /// Keys per page.
    pub page_size: usize,
    /// Pages in K and V.
    pub num_pages: usize,
}

/// All buffers of a decode call as raw device addresses.
#[derive(Clone, Copy, Debug)]
pub struct RawDecode {
    /// Queries.
    pub q: RawTensor,
    /// Keys: `[batch, seqlen_k, ..]` or pages.
    pub k: RawTensor,
    /// Values, as K.
    pub v: RawTensor,
    /// Output.
    pub o: RawTensor,
    /// Optional LSE output.
    pub lse: Option<RawLse>,
    /// The block table of a paged cache.
    pub paged: Option<RawPaged>,
    /// Optional int32 `[batch]` keys per sequence (address, length).
    pub seqlens_k: Option<(u64, usize)>,
    /// f32 workspace (address, length); needed when more than one part.
    pub workspace: Option<(u64, usize)>,
}

/// Check a decode call completely on the host (the [module docs](mod@crate::decode) say what
/// cannot be). Returns the split count and softmax scale to launch with.
pub fn validate_decode(
    params: &DecodeParams,
    t: &RawDecode,
    device: &DeviceFacts,
) -> Result<(usize, f32)> {
    let p = params;
    for (what, v) in [
        ("batch", p.batch),
        ("seqlen_q", p.seqlen_q),
        ("seqlen_k", p.seqlen_k),
        ("heads_q", p.heads_q),
        ("heads_kv", p.heads_kv),
        ("head_dim", p.head_dim),
    ] {
        if v == 0 {
            return Err(Error::ZeroSize { what });
        }
    }
    if p.heads_q % p.heads_kv != 0 {
        return Err(Error::HeadsNotDivisible {
            heads_q: p.heads_q,
            heads_kv: p.heads_kv,
        });
    }
    // Products in u128, saturating: exact for any sizes short of u128's range, and refused
    // before anything computes with them in usize.
    let product = |xs: &[usize]| {
        xs.iter()
            .fold(1u128, |acc, &x| acc.saturating_mul(x as u128))
    };
    for (what, value, max) in [
        ("seqlen_q", p.seqlen_q as u128, MAX_SEQLEN),
        ("seqlen_k", p.seqlen_k as u128, MAX_SEQLEN),
        ("batch", p.batch as u128, MAX_GRID_YZ),
        (
            "heads_kv x query row blocks",
            product(&[p.heads_q / p.heads_kv, p.seqlen_q])
                .div_ceil(ROWS_PER_CTA as u128)
                .saturating_mul(p.heads_kv as u128),
            MAX_GRID_YZ,
        ),
        (
            "batch x heads_q x seqlen_q",
            product(&[p.batch, p.heads_q, p.seqlen_q]),
            i32::MAX as usize,
        ),
    ] {
        if value > max as u128 {
            return Err(Error::TooLarge {
                what,
                value,
                max: max as u128,
            });
        }
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
    if !crate::compiled_head_dims(dtype).contains(&p.head_dim) {
        return Err(Error::UnsupportedHeadDim {
            head_dim: p.head_dim,
            dtype,
            compiled: crate::compiled_head_dims(dtype),
        });
    }
    let splits = decode_splits(p, device);
    if splits == 0 {
        return Err(Error::ZeroSize { what: "num_splits" });
    }
    // The split kernel cuts each sequence's keys in 32-bit ints (cuda-src/decode/mma_kernel.cuh):
    // `seqlen_k + num_splits - 1` for the share, `key_begin + per_split` (the share rounded up
    // to 16-key blocks) for a part's end, and its warps address blocks up to 64 keys past that.
    // The last part begins furthest in: at (num_splits - 1) x per_split, or seqlen_k.
    let per_split = (p.seqlen_k.div_ceil(splits) as u128).next_multiple_of(16);
    let last_begin = ((splits as u128 - 1) * per_split).min(p.seqlen_k as u128);
    for (what, value, max) in [
        ("num_splits", splits as u128, MAX_GRID_YZ as u128),
        (
            "seqlen_k + num_splits - 1",
            p.seqlen_k as u128 + splits as u128 - 1,
            i32::MAX as u128,
        ),
        (
            "last part's first key + keys per split + 64",
            last_begin + per_split + 64,
            i32::MAX as u128,
        ),
    ] {
        if value > max {
            return Err(Error::TooLarge { what, value, max });
        }
    }
    let scale = p.scale();
    if !(scale.is_finite() && scale > 0.0) {
        return Err(Error::InvalidScale(scale));
    }

    let kv_dims = match t.paged {
        None => [p.batch, p.seqlen_k, p.heads_kv],
        Some(pg) => {
            check_page_size(pg.page_size)?;
            if pg.num_pages == 0 {
                return Err(Error::ZeroSize { what: "num_pages" });
            }
            if pg.num_pages > i32::MAX as usize {
                return Err(Error::TooLarge {
                    what: "num_pages",
                    value: pg.num_pages as u128,
                    max: i32::MAX as u128,
                });
            }
            check_table_shape(pg.width, pg.len, p.batch, p.seqlen_k, pg.page_size)?;
            if pg.ptr % 4 != 0 {
                return Err(Error::Misaligned {
                    tensor: "block_table",
                    detail: format!("address {:#x} is not 4-byte aligned", pg.ptr),
                });
            }
            [pg.num_pages, pg.page_size, p.heads_kv]
        }
    };
    let elem = dtype.size_bytes() as u64;
    let q_dims = [p.batch, p.seqlen_q, p.heads_q];
    // (name, first byte, one past the last) of every buffer; no allocation per launch.
    let mut spans = [("", 0u128, 0u128); 8];
    let mut n = 0;
    if let Some(pg) = t.paged {
        let entries =
            (p.batch - 1) as u128 * pg.width as u128 + p.seqlen_k.div_ceil(pg.page_size) as u128;
        spans[n] = ("block_table", pg.ptr as u128, pg.ptr as u128 + 4 * entries);
        n += 1;
    }
    for (name, x, dims) in [
        ("q", &t.q, q_dims),
        ("k", &t.k, kv_dims),
        ("v", &t.v, kv_dims),
        ("o", &t.o, q_dims),
    ] {
        check_alignment(name, x, elem)?;
        let required = required_len(x.strides, dims, p.head_dim)?;
        if (x.len as u128) < required {
            return Err(Error::SliceTooShort {
                tensor: name,
                len: x.len,
                required: required as usize,
            });
        }
        spans[n] = (name, x.ptr as u128, x.ptr as u128 + required * elem as u128);
        n += 1;
    }
    check_output_does_not_self_overlap(t.o.strides, q_dims, p.head_dim)?;
    let rows = p.batch * p.heads_q * p.seqlen_q;
    let workspace_len = decode_workspace_len(p, splits);
    for (name, buf, required, align) in [
        ("lse", t.lse.map(|l| (l.ptr, l.len)), rows, 4),
        ("seqlens_k", t.seqlens_k, p.batch, 4),
        ("workspace", t.workspace, workspace_len, 16),
    ] {
        let Some((ptr, len)) = buf else {
            if name == "workspace" && required > 0 {
                return Err(Error::SliceTooShort {
                    tensor: name,
                    len: 0,
                    required,
                });
            }
            continue;
        };
        if len < required {
            return Err(Error::SliceTooShort {
                tensor: name,
                len,
                required,
            });
        }
        if ptr % align != 0 {
            return Err(Error::Misaligned {
                tensor: name,
                detail: format!("address {ptr:#x} is not {align}-byte aligned"),
            });
        }
        // lse and workspace are f32, seqlens_k i32: 4 bytes an element.
        spans[n] = (name, ptr as u128, ptr as u128 + 4 * required as u128);
        n += 1;
    }
    // Written buffers (o, lse, workspace) must not overlap anything else.
    let spans = &spans[..n];
    for (i, &(a, s0, e0)) in spans.iter().enumerate() {
        let written = matches!(a, "o" | "lse" | "workspace");
        for &(b, s1, e1) in &spans[..i] {
            let other_written = matches!(b, "o" | "lse" | "workspace");
            if (written || other_written) && s0 < e1 && s1 < e0 {
                let (output, other) = if written { (a, b) } else { (b, a) };
                return Err(Error::Aliasing { output, other });
            }
        }
    }
    Ok((splits, scale))
}

/// A page size the split kernel takes: a multiple of its 16-key blocks (a block never straddles
/// a page), at most MAX_SEQLEN.
fn check_page_size(page_size: usize) -> Result<()> {
    if page_size == 0 || page_size % 16 != 0 || page_size > MAX_SEQLEN {
        return Err(Error::InvalidPageSize(page_size));
    }
    Ok(())
}

/// A block table of `rows` rows of `width` entries in `len` entries, for sequences of at most
/// `longest_keys` keys in pages of `page_size` (checked): each row wide enough for the longest
/// sequence, and the last row's used entries within `len`.
fn check_table_shape(
    width: usize,
    len: usize,
    rows: usize,
    longest_keys: usize,
    page_size: usize,
) -> Result<()> {
    let needed = longest_keys.div_ceil(page_size);
    if width < needed {
        return Err(Error::BlockTableTooNarrow { width, needed });
    }
    let required = rows.saturating_sub(1) as u128 * width as u128 + needed as u128;
    if (len as u128) < required {
        return Err(Error::SliceTooShort {
            tensor: "block_table",
            len,
            required: usize::try_from(required).unwrap_or(usize::MAX),
        });
    }
    Ok(())
}

/// Check a host copy of a block table completely: every entry a sequence of `seqlens_k` keys
/// uses is a page in `[0, num_pages)`. (The launch checks only the table's shape; its contents
/// stay on the device.) The shape is checked first, as [`validate_decode`] checks it for a call
/// whose `seqlen_k` is the longest of `seqlens_k`: the page size, a row wide enough for the
/// longest sequence, and a table long enough for `seqlens_k.len()` rows.
pub fn check_block_table(
    table: &[i32],
    width: usize,
    seqlens_k: &[usize],
    page_size: usize,
    num_pages: usize,
) -> Result<()> {
    check_page_size(page_size)?;
    let Some(&longest) = seqlens_k.iter().max() else {
        return Ok(());
    };
    check_table_shape(width, table.len(), seqlens_k.len(), longest, page_size)?;
    for (b, &len) in seqlens_k.iter().enumerate() {
        for slot in 0..len.div_ceil(page_size) {
            // In bounds by the length check; `get` all the same, and no product that wraps.
            let entry = b
                .checked_mul(width)
                .and_then(|row| row.checked_add(slot))
                .and_then(|i| table.get(i))
                .copied();
            if !entry.is_some_and(|page| page >= 0 && (page as usize) < num_pages) {
                return Err(Error::BlockTableEntry {
                    sequence: b,
                    slot,
                    page: entry.map_or(i64::MIN, i64::from),
                    num_pages,
                });
            }
        }
    }
    Ok(())
}

/// Launch decode attention on `stream`: `o = softmax(scale * q k^T [+ causal]) v` over each
/// sequence's cached keys, with the LSE into `lse` if given. `paged` addresses K and V through a
/// block table; `seqlens_k` (int32 `[batch]`) gives each sequence's key count (else all have
/// `params.seqlen_k`); `workspace` holds at least [`decode_workspace_len`] f32 for the split
/// count [`decode_splits`] picks. Validated first; asynchronous.
///
/// On sm_90 and later the kernels are launched as programmatic dependents, as [`crate::forward`]'s
/// are: the split kernel of the kernel ahead of it on the stream, the combine kernel of the split
/// kernel; each waits for its predecessor (and its writes) before touching memory.
/// `FLASHATTN_DECODE_SERIAL_LAUNCH=1` and `FLASHATTN_DECODE_SERIAL_COMBINE=1` launch them plainly.
#[allow(clippy::too_many_arguments)]
pub fn decode<T, Q, K, V, O, B, L, W>(
    stream: &CudaStream,
    device: &DeviceFacts,
    params: &DecodeParams,
    q: Tensor<'_, Q>,
    k: Tensor<'_, K>,
    v: Tensor<'_, V>,
    paged: Option<PagedKv<'_, B>>,
    seqlens_k: Option<&L>,
    o: TensorMut<'_, O>,
    lse: Option<&mut CudaSlice<f32>>,
    workspace: Option<&mut W>,
) -> Result<()>
where
    T: Element,
    Q: DevicePtr<T>,
    K: DevicePtr<T>,
    V: DevicePtr<T>,
    O: DevicePtrMut<T>,
    B: DevicePtr<i32>,
    L: DevicePtr<i32>,
    W: DevicePtrMut<f32>,
{
    let raw = |ptr: u64, len: usize, strides: Strides| RawTensor {
        ptr,
        len,
        dtype: T::DTYPE,
        strides,
    };
    // Before any guard is taken: taking one already queues work for the buffer on `stream`.
    check_context(stream, "q", q.data)?;
    check_context(stream, "k", k.data)?;
    check_context(stream, "v", v.data)?;
    check_context(stream, "o", &*o.data)?;
    if let Some(pg) = &paged {
        check_context(stream, "block_table", pg.block_table)?;
    }
    if let Some(s) = seqlens_k {
        check_context(stream, "seqlens_k", s)?;
    }
    if let Some(l) = lse.as_deref() {
        check_context(stream, "lse", l)?;
    }
    if let Some(w) = workspace.as_deref() {
        check_context(stream, "workspace", w)?;
    }
    let (q_ptr, qg) = q.data.device_ptr(stream);
    let (k_ptr, kg) = k.data.device_ptr(stream);
    let (v_ptr, vg) = v.data.device_ptr(stream);
    let paged_guard = paged.as_ref().map(|pg| {
        let (ptr, guard) = pg.block_table.device_ptr(stream);
        let raw = RawPaged {
            ptr,
            len: pg.block_table.len(),
            width: pg.width,
            page_size: pg.page_size,
            num_pages: pg.num_pages,
        };
        (raw, guard)
    });
    let seqlens_guard = seqlens_k.map(|s| {
        let (ptr, guard) = s.device_ptr(stream);
        ((ptr, s.len()), guard)
    });
    let o_len = o.data.len();
    let (o_ptr, og) = o.data.device_ptr_mut(stream);
    let lse_len = lse.as_ref().map(|l| l.len());
    let lse_guard = lse.map(|l| l.device_ptr_mut(stream));
    let ws_len = workspace.as_ref().map(|w| w.len());
    let ws_guard = workspace.map(|w| w.device_ptr_mut(stream));
    guard_errors(stream)?;
    let t = RawDecode {
        q: raw(q_ptr, q.data.len(), q.strides),
        k: raw(k_ptr, k.data.len(), k.strides),
        v: raw(v_ptr, v.data.len(), v.strides),
        o: raw(o_ptr, o_len, o.strides),
        lse: lse_guard.as_ref().map(|(ptr, _)| RawLse {
            ptr: *ptr,
            len: lse_len.unwrap_or(0),
        }),
        paged: paged_guard.as_ref().map(|(raw, _)| *raw),
        seqlens_k: seqlens_guard.as_ref().map(|(raw, _)| *raw),
        workspace: ws_guard
            .as_ref()
            .map(|(ptr, _)| (*ptr, ws_len.unwrap_or(0))),
    };
    // SAFETY: live cudarc buffers of the stated lengths; the guards order the launch on `stream`.
    let launched = unsafe { decode_raw(stream, device, params, &t) };
    // Dropping the guards records the launch for the buffers' later users; a failed record
    // must fail this call.
    drop((
        qg,
        kg,
        vg,
        paged_guard,
        seqlens_guard,
        og,
        lse_guard,
        ws_guard,
    ));
    launched?;
    guard_errors(stream)
}

/// [`decode`] from raw device addresses.
///
/// # Safety
/// Each address must point to device memory of at least the stated length, usable from
/// `stream`'s context and valid until the launch completes; other work on those buffers must
/// be ordered with `stream` by the caller.
pub unsafe fn decode_raw(
    stream: &CudaStream,
    device: &DeviceFacts,
    params: &DecodeParams,
    t: &RawDecode,
) -> Result<()> {
    let (splits, scale) = validate_decode(params, t, device)?;
    let p = params;
    let paged = t.paged;
    // validate_decode bounded every size cast below by i32::MAX.
    let mut c = sys::FlashAttnDecodeParams {
        q: t.q.ptr as *const _,
        k: t.k.ptr as *const _,
        v: t.v.ptr as *const _,
        o: t.o.ptr as *mut _,
        lse: t.lse.map_or(std::ptr::null_mut(), |l| l.ptr as *mut f32),
        block_table: paged.map_or(std::ptr::null(), |pg| pg.ptr as *const i32),
        seqlens_k: t
            .seqlens_k
            .map_or(std::ptr::null(), |(ptr, _)| ptr as *const i32),
        workspace: if splits > 1 {
            t.workspace
                .map_or(std::ptr::null_mut(), |(ptr, _)| ptr as *mut f32)
        } else {
            std::ptr::null_mut()
        },
        q_batch_stride: t.q.strides.batch,
        q_row_stride: t.q.strides.row,
        q_head_stride: t.q.strides.head,
        k_batch_stride: t.k.strides.batch,
        k_row_stride: t.k.strides.row,
        k_head_stride: t.k.strides.head,
        v_batch_stride: t.v.strides.batch,
        v_row_stride: t.v.strides.row,
        v_head_stride: t.v.strides.head,
        o_batch_stride: t.o.strides.batch,
        o_row_stride: t.o.strides.row,
        o_head_stride: t.o.strides.head,
        block_table_batch_stride: paged.map_or(0, |pg| pg.width as i64),
        batch: p.batch as i32,
        seqlen_q: p.seqlen_q as i32,
        seqlen_k: p.seqlen_k as i32,
        heads_q: p.heads_q as i32,
        heads_kv: p.heads_kv as i32,
        head_dim: p.head_dim as i32,
        page_size: paged.map_or(0, |pg| pg.page_size as i32),
        num_pages: paged.map_or(0, |pg| pg.num_pages as i32),
        num_splits: splits as i32,
        softmax_scale: scale,
        causal: p.causal as i32,
        dtype: t.q.dtype.to_sys(),
        cuda_error: 0,
    };
    stream.context().bind_to_thread()?;
    // SAFETY: `c` is validated; the caller vouches for the addresses.
    let status =
        unsafe { sys::flashattn_decode(&mut c, stream.cu_stream() as *mut std::ffi::c_void) };
    match status {
        sys::FlashAttnStatus::FLASHATTN_STATUS_SUCCESS => Ok(()),
        sys::FlashAttnStatus::FLASHATTN_STATUS_CUDA_ERROR => Err(cuda_error(c.cuda_error)),
        sys::FlashAttnStatus::FLASHATTN_STATUS_UNSUPPORTED_HEAD_DIM => {
            Err(Error::UnsupportedHeadDim {
                head_dim: p.head_dim,
                dtype: t.q.dtype,
                compiled: crate::compiled_head_dims(t.q.dtype),
            })
        }
        other => Err(dispatch_error(other)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn h100() -> DeviceFacts {
        DeviceFacts::new("H100", 132, 90, 227 * 1024)
    }

    #[test]
    fn splits_fill_the_device_and_keep_parts_long() {
        let d = h100();
        // Batch 1, 8 KV heads over 32k keys: many parts.
        let p = DecodeParams::new(1, 32768, 32, 8, 128);
        // Two CTAs an SM: 264 CTAs, 8 KV heads x 33 parts.
        assert_eq!(decode_splits(&p, &d), 33);
        // 33 parts of 4096 keys would be 32 of 128 keys and an empty one.
        assert_eq!(
            decode_splits(&DecodeParams::new(1, 4096, 32, 8, 128), &d),
            32
        );
        assert_eq!(decode_splits(&DecodeParams::new(1, 0, 32, 8, 128), &d), 1);
        assert_eq!(
            decode_splits(&DecodeParams::new(8, 32768, 32, 8, 128), &d),
            4
        );
        // Head dim 256 (96 KB of rings): two CTAs an SM fit, as many parts.
        assert_eq!(
            decode_splits(&DecodeParams::new(1, 32768, 32, 8, 256), &d),
            33
        );
        // Batch 64: the batch already fills the device.
        assert_eq!(
            decode_splits(&DecodeParams::new(64, 4096, 32, 8, 128), &d),
            1
        );
        // An sm_89 GPU (L4: 58 SMs, 99 KB a block): two CTAs an SM at head dims 64 and 128 (48
        // KB of rings), one at 256 (96 KB).
        let l4 = DeviceFacts::new("L4", 58, 89, 99 * 1024);
        assert_eq!(decode_splits(&p, &l4), 2 * 58 / 8);
        assert_eq!(
            decode_splits(&DecodeParams::new(1, 32768, 32, 8, 64), &l4),
            2 * 58 / 8
        );
        assert_eq!(
            decode_splits(&DecodeParams::new(1, 32768, 32, 8, 256), &l4),
            58 / 8
        );
        // Where shared memory allows only one CTA an SM (a hypothetical 48 KB part), one an SM.
        let small = DeviceFacts::new("small", 58, 89, 48 * 1024);
        assert_eq!(decode_splits(&p, &small), 58 / 8);
        let a100 = DeviceFacts::new("A100", 108, 80, 163 * 1024);
        assert_eq!(decode_splits(&p, &a100), 2 * 108 / 8);
        // Short caches are never cut below 32 keys a part.
        assert_eq!(
            decode_splits(&DecodeParams::new(1, 300, 32, 8, 128), &d),
            10
        );
        assert_eq!(
            decode_splits(&DecodeParams::new(1, 512, 32, 8, 128), &d),
            16
        );
        assert_eq!(decode_splits(&DecodeParams::new(1, 16, 32, 8, 128), &d), 1);
        let fixed = DecodeParams {
            num_splits: Some(3),
            ..DecodeParams::new(1, 300, 32, 8, 128)
        };
        assert_eq!(decode_splits(&fixed, &d), 3);
        assert_eq!(decode_workspace_len(&fixed, 3), 3 * 32 * 129);
        assert_eq!(decode_workspace_len(&fixed, 1), 0);
    }

    /// A valid paged call: batch 2, 1 query row, 32/8 heads, d128 (or the head dim and dtype
    /// this build has, see [`compiled`]), 1000 keys in pages of 64.
    fn paged_call() -> (DecodeParams, RawDecode) {
        let (dtype, d) = compiled(128);
        let p = DecodeParams {
            num_splits: Some(4),
            ..DecodeParams::new(2, 1000, 32, 8, d)
        };
        let tensor = |ptr: u64, len: usize, strides: Strides| RawTensor {
            ptr,
            len,
            dtype,
            strides,
        };
        let qs = Strides::bshd(1, 32, d);
        let ks = Strides::bshd(64, 8, d);
        let kv_len = 40 * 64 * 8 * d;
        let t = RawDecode {
            q: tensor(0x10_0000, 2 * 32 * d, qs),
            k: tensor(0x100_0000, kv_len, ks),
            v: tensor(0x200_0000, kv_len, ks),
            o: tensor(0x20_0000, 2 * 32 * d, qs),
            lse: Some(RawLse {
                ptr: 0x30_0000,
                len: 64,
            }),
            paged: Some(RawPaged {
                ptr: 0x40_0000,
                len: 2 * 16,
                width: 16,
                page_size: 64,
                num_pages: 40,
            }),
            seqlens_k: Some((0x50_0000, 2)),
            workspace: Some((0x60_0000, decode_workspace_len(&p, 4))),
        };
        (p, t)
    }

    #[test]
    fn every_decode_input_is_validated_with_a_typed_error() {
        let d = h100();
        let (p, t) = paged_call();
        assert_eq!(validate_decode(&p, &t, &d).unwrap().0, 4);
        let refuse = |p: &DecodeParams, t: &RawDecode| validate_decode(p, t, &d).unwrap_err();
        // Page sizes: positive multiples of 16.
        for ps in [0, 8, 24] {
            let mut bad = t;
            bad.paged.as_mut().unwrap().page_size = ps;
            assert!(matches!(refuse(&p, &bad), Error::InvalidPageSize(x) if x == ps));
        }
        // A table row too narrow for seqlen_k, and a table too short for the batch.
        let mut bad = t;
        bad.paged.as_mut().unwrap().width = 15;
        assert!(matches!(
            refuse(&p, &bad),
            Error::BlockTableTooNarrow {
                width: 15,
                needed: 16
            }
        ));
        let mut bad = t;
        bad.paged.as_mut().unwrap().len = 31;
        assert!(matches!(
            refuse(&p, &bad),
            Error::SliceTooShort {
                tensor: "block_table",
                ..
            }
        ));
        // Pages that do not hold the addressed keys.
        let mut bad = t;
        bad.k.len -= 1;
        assert!(matches!(
            refuse(&p, &bad),
            Error::SliceTooShort { tensor: "k", .. }
        ));
        // Workspace missing or short for the split count; seqlens_k short for the batch.
        let mut bad = t;
        bad.workspace = None;
        assert!(matches!(
            refuse(&p, &bad),
            Error::SliceTooShort {
                tensor: "workspace",
                len: 0,
                ..
            }
        ));
        let mut bad = t;
        bad.workspace.as_mut().unwrap().1 -= 1;
        assert!(matches!(
            refuse(&p, &bad),
            Error::SliceTooShort {
                tensor: "workspace",
                ..
            }
        ));
        let one_part = DecodeParams {
            num_splits: Some(1),
            ..p.clone()
        };
        let mut no_ws = t;
        no_ws.workspace = None;
        assert!(validate_decode(&one_part, &no_ws, &d).is_ok());
        let mut bad = t;
        bad.seqlens_k = Some((0x50_0000, 1));
        assert!(matches!(
            refuse(&p, &bad),
            Error::SliceTooShort {
                tensor: "seqlens_k",
                ..
            }
        ));
        // Written buffers overlapping anything.
        let mut bad = t;
        bad.workspace = Some((0x10_0000, decode_workspace_len(&p, 4)));
        assert!(matches!(
            refuse(&p, &bad),
            Error::Aliasing {
                output: "workspace",
                other: "q"
            }
        ));
        let mut bad = t;
        bad.lse = Some(RawLse {
            ptr: 0x40_0000,
            len: 64,
        });
        assert!(matches!(refuse(&p, &bad), Error::Aliasing { .. }));
        // Sizes, heads, dtype, head dim, scale.
        let zero = DecodeParams {
            seqlen_k: 0,
            ..p.clone()
        };
        assert!(matches!(
            refuse(&zero, &t),
            Error::ZeroSize { what: "seqlen_k" }
        ));
        let uneven = DecodeParams {
            heads_kv: 5,
            ..p.clone()
        };
        assert!(matches!(
            refuse(&uneven, &t),
            Error::HeadsNotDivisible { .. }
        ));
        let mut bad = t;
        bad.v.dtype = match t.q.dtype {
            crate::DType::F16 => crate::DType::BF16,
            crate::DType::BF16 => crate::DType::F16,
        };
        assert!(matches!(
            refuse(&p, &bad),
            Error::DtypeMismatch { tensor: "v", .. }
        ));
        let odd = DecodeParams {
            head_dim: 72,
            ..p.clone()
        };
        assert!(matches!(refuse(&odd, &t), Error::UnsupportedHeadDim { .. }));
        let nan = DecodeParams {
            softmax_scale: Some(f32::NAN),
            ..p.clone()
        };
        assert!(matches!(refuse(&nan, &t), Error::InvalidScale(_)));
        let wide = DecodeParams {
            batch: 70_000,
            ..p.clone()
        };
        assert!(matches!(
            refuse(&wide, &t),
            Error::TooLarge { what: "batch", .. }
        ));
    }

    #[test]
    fn block_tables_are_checked_on_the_host() {
        let table = [0, 1, 2, 3, 7, -1];
        assert!(check_block_table(&table, 3, &[48, 32], 16, 8).is_ok());
        let e = check_block_table(&table, 3, &[48, 40], 16, 8).unwrap_err();
        assert!(
            matches!(
                e,
                Error::BlockTableEntry {
                    sequence: 1,
                    slot: 2,
                    page: -1,
                    ..
                }
            ),
            "{e}"
        );
        let e = check_block_table(&table, 3, &[48, 32], 16, 7).unwrap_err();
        assert!(matches!(e, Error::BlockTableEntry { page: 7, .. }), "{e}");
        assert!(check_block_table(&table, 3, &[48, 64], 16, 8).is_err());
    }

    /// The host check refuses a table's shape as the launch does: a page size of 0 is not
    /// read as 1, a row too narrow for the longest sequence is not read into the next row, and
    /// a table shorter than its rows is refused before any entry is read.
    #[test]
    fn block_table_shapes_are_checked_as_the_launch_checks_them() {
        let table = [0, 1, 2, 3];
        for ps in [0, 8, 24] {
            let e = check_block_table(&table, 2, &[16, 16], ps, 8).unwrap_err();
            assert!(matches!(e, Error::InvalidPageSize(x) if x == ps), "{e}");
        }
        // 48 keys need 3 pages of 16 but a row has 2: sequence 0 would read sequence 1's first
        // entry, a valid page, and pass.
        let e = check_block_table(&table, 2, &[48, 16], 16, 8).unwrap_err();
        assert!(
            matches!(
                e,
                Error::BlockTableTooNarrow {
                    width: 2,
                    needed: 3
                }
            ),
            "{e}"
        );
        // The same table and call validate_decode refuses the same way.
        let (p, mut t) = paged_call();
        t.paged = Some(RawPaged {
            len: 4,
            width: 2,
            page_size: 16,
            ..t.paged.unwrap()
        });
        let p = DecodeParams {
            num_splits: Some(1),
            seqlen_k: 48,
            ..p
        };
        assert!(matches!(
            validate_decode(&p, &t, &h100()),
            Err(Error::BlockTableTooNarrow {
                width: 2,
                needed: 3
            })
        ));
        // Two rows of 3 entries need 3 + 3.
        let e = check_block_table(&table[..3], 3, &[48, 32], 16, 8).unwrap_err();
        assert!(
            matches!(
                e,
                Error::SliceTooShort {
                    tensor: "block_table",
                    len: 3,
                    required: 6
                }
            ),
            "{e}"
        );
        // Row offsets past usize::MAX are a short table, not a wrapped index.
        let e = check_block_table(&[0], usize::MAX, &[16, 16, 16], 16, 8).unwrap_err();
        assert!(
            matches!(
                e,
                Error::SliceTooShort {
                    tensor: "block_table",
                    required: usize::MAX,
                    ..
                }
            ),
            "{e}"
        );
        // No sequence, or none with a key: nothing to read.
        assert!(check_block_table(&[], 0, &[], 16, 8).is_ok());
        assert!(check_block_table(&[], 0, &[0, 0], 16, 8).is_ok());
    }

    /// A dtype and head dim this build compiled, `d` where it can: the checks after the head
    /// dim's are reached only with one (a trimmed build may lack head dim 128 or bf16).
    fn compiled(d: usize) -> (crate::DType, usize) {
        [crate::DType::BF16, crate::DType::F16]
            .into_iter()
            .flat_map(|t| {
                crate::compiled_head_dims(t)
                    .into_iter()
                    .map(move |h| (t, h))
            })
            .min_by_key(|&(_, h)| h != d)
            .expect("a build with kernels")
    }

    /// Sizes no call has (head dim 0 or 2^57, no SMs, every size usize::MAX) must not panic
    /// the split count or the sizes derived from it, in debug or release, and are refused with
    /// typed errors.
    #[test]
    fn degenerate_sizes_never_panic_and_are_refused() {
        let d = h100();
        let none = DeviceFacts::new("none", 0, 90, 0);
        let most = DeviceFacts::new("most", usize::MAX, 90, usize::MAX);
        let huge_dim = DecodeParams::new(1, 4096, 8, 8, 1 << 57);
        let zero_dim = DecodeParams::new(1, 4096, 8, 8, 0);
        let all_max = DecodeParams {
            seqlen_q: usize::MAX,
            num_splits: None,
            ..DecodeParams::new(usize::MAX, usize::MAX, usize::MAX, 1, usize::MAX)
        };
        let zeros = DecodeParams {
            seqlen_q: 0,
            ..DecodeParams::new(0, 0, 0, 0, 0)
        };
        for p in [&huge_dim, &zero_dim, &all_max, &zeros] {
            for device in [&d, &none, &most] {
                assert!(decode_splits(p, device) >= 1, "{p:?} on {}", device.name);
            }
        }
        assert_eq!(decode_workspace_len(&all_max, 2), usize::MAX);
        assert_eq!(decode_workspace_len(&all_max, usize::MAX), usize::MAX);

        let (_, t) = paged_call();
        let refuse = |p: &DecodeParams| validate_decode(p, &t, &d).unwrap_err();
        let e = refuse(&huge_dim);
        assert!(
            matches!(e, Error::UnsupportedHeadDim { head_dim, .. } if head_dim == 1 << 57),
            "{e}"
        );
        let e = refuse(&zero_dim);
        assert!(matches!(e, Error::ZeroSize { what: "head_dim" }), "{e}");
        let e = refuse(&all_max);
        assert!(
            matches!(
                e,
                Error::TooLarge {
                    what: "seqlen_q",
                    ..
                }
            ),
            "{e}"
        );
        // A GQA group times the query rows past usize::MAX.
        let rows = DecodeParams {
            seqlen_q: 4,
            ..DecodeParams::new(1, 4096, 1 << 62, 1, 128)
        };
        let e = refuse(&rows);
        assert!(
            matches!(
                e,
                Error::TooLarge {
                    what: "heads_kv x query row blocks",
                    ..
                }
            ),
            "{e}"
        );
        // A split count of 0 is refused, and one past the grid too.
        let (p, _) = paged_call();
        for (n, what) in [(0, "num_splits"), (70_000, "num_splits")] {
            let p = DecodeParams {
                num_splits: Some(n),
                ..p.clone()
            };
            let e = validate_decode(&p, &t, &d).unwrap_err();
            match e {
                Error::ZeroSize { what: w } | Error::TooLarge { what: w, .. } => {
                    assert_eq!(w, what)
                }
                other => panic!("{other}"),
            }
        }
    }

    /// The split kernel computes each part's key range in 32-bit ints: a call whose share,
    /// part end or last block would pass i32::MAX is refused, with the split count given or
    /// chosen.
    #[test]
    fn key_ranges_past_32_bits_are_refused() {
        let d = h100();
        let (_, hd) = compiled(128);
        let (_, t) = paged_call();
        let longest = 2_147_482_623; // MAX_SEQLEN
        assert_eq!(longest, MAX_SEQLEN);
        let forced = DecodeParams {
            num_splits: Some(65535),
            ..DecodeParams::new(1, longest, 1, 1, hd)
        };
        match validate_decode(&forced, &t, &d) {
            Err(Error::TooLarge {
                what: "seqlen_k + num_splits - 1",
                value,
                max,
            }) => {
                assert_eq!(value, longest as u128 + 65534);
                assert_eq!(max, i32::MAX as u128);
            }
            other => panic!("{other:?}"),
        }
        // The automatic count on an H100, 264 parts: their shares fit in 32 bits, the blocks
        // past a part's end do not.
        let auto = DecodeParams::new(1, longest, 1, 1, hd);
        assert_eq!(decode_splits(&auto, &d), 264);
        let e = validate_decode(&auto, &t, &d).unwrap_err();
        assert!(
            matches!(
                e,
                Error::TooLarge {
                    what: "last part's first key + keys per split + 64",
                    ..
                }
            ),
            "{e}"
        );
        // 1024 parts of 2^31 - 2^22 keys stay within: the call gets past the split checks to
        // its (too narrow) block table.
        let within = DecodeParams {
            num_splits: Some(1024),
            ..DecodeParams::new(1, (1 << 31) - (1 << 22), 1, 1, hd)
        };
        let e = validate_decode(&within, &t, &d).unwrap_err();
        assert!(matches!(e, Error::BlockTableTooNarrow { .. }), "{e}");
        // One part of all the keys begins at key 0: within up to 64 keys of i32::MAX.
        let one = DecodeParams {
            num_splits: Some(1),
            ..DecodeParams::new(1, longest, 1, 1, hd)
        };
        let e = validate_decode(&one, &t, &d).unwrap_err();
        assert!(matches!(e, Error::BlockTableTooNarrow { .. }), "{e}");
    }
}
