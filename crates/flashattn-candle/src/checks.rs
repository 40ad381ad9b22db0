//! Everything checked before the device: dtypes, ranks and shapes, layouts, the head dim, the
//! scalar options and the side tensors (ALiBi slopes, sequence offsets). Each check returns a
//! candle error whose message names the problem and, where there is one, the fix.

use candle_core::{DType, Tensor};
use flashattn::{Strides, Window};

/// The name of the op in candle's graph and in error messages.
pub(crate) const OP: &str = "flashattn";

pub(crate) fn msg(text: impl std::fmt::Display) -> candle_core::Error {
    candle_core::Error::Msg(format!("{OP}: {text}"))
}

/// The problem sizes of one call, as the launch layer takes them. For packed (varlen) calls
/// `batch` is the number of sequences and the lengths are the longest ones.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Sizes {
    pub batch: usize,
    pub seqlen_q: usize,
    pub seqlen_k: usize,
    pub heads_q: usize,
    pub heads_kv: usize,
    pub head_dim: usize,
}

/// q, k and v must share one of the kernels' dtypes.
pub(crate) fn check_dtypes(q: DType, k: DType, v: DType) -> candle_core::Result<DType> {
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

/// Ranks, agreeing sizes, GQA divisibility and non-zero sizes of a dense call: q `[batch,
/// seqlen_q, heads_q, head_dim]`, k and v `[batch, seqlen_k, heads_kv, head_dim]`.
pub(crate) fn check_shapes(q: &[usize], k: &[usize], v: &[usize]) -> candle_core::Result<Sizes> {
    for (name, d) in [("q", q), ("k", k), ("v", v)] {
        if d.len() != 4 {
            return Err(msg(format!(
                "{name} has shape {d:?}; expected rank 4 [batch, seq, heads, head_dim]"
            )));
        }
    }
    if k != v {
        return Err(msg(format!(
            "k has shape {k:?} but v has {v:?}; they must be equal"
        )));
    }
    if k[0] != q[0] || k[3] != q[3] {
        return Err(msg(format!(
            "q has shape {q:?} but k has {k:?}; batch and head_dim must agree"
        )));
    }
    let sizes = Sizes {
        batch: q[0],
        seqlen_q: q[1],
        seqlen_k: k[1],
        heads_q: q[2],
        heads_kv: k[2],
        head_dim: q[3],
    };
    check_sizes(&sizes)?;
    Ok(sizes)
}

/// The same for a packed (varlen) call: q `[total_q, heads_q, head_dim]`, k and v `[total_k,
/// heads_kv, head_dim]`, `batch` sequences of at most `max_seqlen_q` / `max_seqlen_k` rows.
pub(crate) fn check_packed_shapes(
    q: &[usize],
    k: &[usize],
    v: &[usize],
    batch: usize,
    max_seqlen_q: usize,
    max_seqlen_k: usize,
) -> candle_core::Result<Sizes> {
    for (name, d) in [("q", q), ("k", k), ("v", v)] {
        if d.len() != 3 {
            return Err(msg(format!(
                "{name} has shape {d:?}; a varlen call takes rank 3 [total_tokens, heads, head_dim]"
            )));
        }
    }
    if k != v {
        return Err(msg(format!(
            "k has shape {k:?} but v has {v:?}; they must be equal"
        )));
    }
    if k[2] != q[2] {
        return Err(msg(format!(
            "q has shape {q:?} but k has {k:?}; head_dim must agree"
        )));
    }
    for (what, n) in [("total_q (q's rows)", q[0]), ("total_k (k's rows)", k[0])] {
        if n == 0 {
            return Err(msg(format!("{what} is 0; every size must be at least 1")));
        }
    }
    let sizes = Sizes {
        batch,
        seqlen_q: max_seqlen_q,
        seqlen_k: max_seqlen_k,
        heads_q: q[1],
        heads_kv: k[1],
        head_dim: q[2],
    };
    check_sizes(&sizes)?;
    Ok(sizes)
}

fn check_sizes(s: &Sizes) -> candle_core::Result<()> {
    for (what, n) in [
        ("batch", s.batch),
        ("seqlen_q", s.seqlen_q),
        ("seqlen_k", s.seqlen_k),
        ("heads_q", s.heads_q),
        ("heads_kv", s.heads_kv),
        ("head_dim", s.head_dim),
    ] {
        if n == 0 {
            return Err(msg(format!("{what} is 0; every size must be at least 1")));
        }
    }
    if s.heads_q % s.heads_kv != 0 {
        return Err(msg(format!(
            "q has {} heads, not a multiple of k and v's {} (GQA needs each KV head to serve \
             the same number of query heads)",
            s.heads_q, s.heads_kv
        )));
    }
    Ok(())
}

/// candle's element strides of a `[b, s, h, d]` tensor (rank 4) or a packed `[total, h, d]` one
/// (rank 3, no batch stride) as the launch layer's [`Strides`]. The kernels load `head_dim` as
/// contiguous vectors; any other stride is free.
pub(crate) fn strides_of(
    name: &str,
    dims: &[usize],
    stride: &[usize],
) -> candle_core::Result<Strides> {
    let rank = dims.len();
    if !(rank == 3 || rank == 4) || stride.len() != rank {
        return Err(msg(format!(
            "{name} has shape {dims:?}; expected rank 4 [batch, seq, heads, head_dim] (or 3 \
             [total_tokens, heads, head_dim] for varlen)"
        )));
    }
    // A dimension of size 1 is never stepped over, so its stride does not matter.
    if stride[rank - 1] != 1 && dims[rank - 1] != 1 {
        return Err(msg(format!(
            "{name} has strides {stride:?} for shape {dims:?}: its last dimension (head_dim) \
             is not contiguous; call .contiguous() on it first (that copies)"
        )));
    }
    let i = |x: usize| -> candle_core::Result<i64> {
        i64::try_from(x).map_err(|_| msg(format!("{name}: stride {x} does not fit in i64")))
    };
    Ok(Strides {
        batch: if rank == 4 { i(stride[0])? } else { 0 },
        row: i(stride[rank - 3])?,
        head: i(stride[rank - 2])?,
    })
}

/// The kernels load rows as 16-byte vectors, so a view must start on a 16-byte boundary of its
/// buffer (candle allocates buffers at least that aligned): 8 elements of f16/bf16.
pub(crate) fn check_start(name: &str, start: usize) -> candle_core::Result<()> {
    if start % 8 != 0 {
        return Err(msg(format!(
            "{name} starts at element {start} of its buffer, not a multiple of 8 (16 bytes), as \
             the kernels' vector loads need; .force_contiguous() makes an aligned copy (.contiguous() \
             returns a contiguous view unchanged)"
        )));
    }
    Ok(())
}

pub(crate) fn check_head_dim(dtype: DType, head_dim: usize) -> candle_core::Result<()> {
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

pub(crate) fn check_scale(softmax_scale: f32) -> candle_core::Result<()> {
    if !(softmax_scale.is_finite() && softmax_scale > 0.0) {
        return Err(msg(format!(
            "softmax_scale {softmax_scale} must be finite and > 0"
        )));
    }
    Ok(())
}

/// candle-flash-attn's softcap (FlashAttention-2's convention: 0 turns it off) as the launch
/// layer's: `None` for 0, the cap for a finite positive value. A negative or non-finite cap,
/// which FlashAttention-2 would silently ignore, is refused.
pub(crate) fn softcap_of(softcap: f32) -> candle_core::Result<Option<f32>> {
    if softcap == 0.0 {
        Ok(None)
    } else if softcap.is_finite() && softcap > 0.0 {
        Ok(Some(softcap))
    } else {
        Err(msg(format!(
            "softcap {softcap} must be finite and > 0 (or 0 for none)"
        )))
    }
}

/// candle-flash-attn's `window_size_left` / `window_size_right` (FlashAttention-2's) as the
/// launch layer's causal flag and [`Window`], the way FlashAttention-2 reads them: a side of
/// `None` or wider than `seqlen_k` (the longest sequence's keys, for varlen) is open; no left
/// side with a right side of 0 is the causal mask; and where exactly one side is bounded, the
/// open side is bounded at `seqlen_k` keys. That last rule changes nothing on the left, where
/// `seqlen_k` keys reach past the first key from every row; on the right it hides keys from the
/// first rows only when a row sits more than `seqlen_k` rows before its diagonal key, i.e.
/// with more queries than keys.
pub(crate) fn fa2_window(
    left: Option<usize>,
    right: Option<usize>,
    seqlen_k: usize,
) -> (bool, Window) {
    let left = left.filter(|&w| w <= seqlen_k);
    let right = right.filter(|&w| w <= seqlen_k);
    match (left, right) {
        (None, Some(0)) => (true, Window::UNBOUNDED),
        (Some(l), None) => (false, Window::new(Some(l), Some(seqlen_k))),
        (None, Some(r)) => (false, Window::new(None, Some(r))),
        (l, r) => (false, Window::new(l, r)),
    }
}

/// ALiBi slopes as candle-flash-attn takes them: f32 `[heads_q]`, contiguous, on q's device.
pub(crate) fn check_alibi_slopes(slopes: &Tensor, heads_q: usize) -> candle_core::Result<()> {
    if slopes.dtype() != DType::F32 {
        return Err(msg(format!(
            "alibi_slopes has dtype {:?}; expected f32",
            slopes.dtype()
        )));
    }
    if slopes.dims() != [heads_q] {
        return Err(msg(format!(
            "alibi_slopes has shape {:?}; expected [{heads_q}] (one slope per query head)",
            slopes.dims()
        )));
    }
    if !slopes.is_contiguous() {
        return Err(msg(
            "alibi_slopes is not contiguous; call .contiguous() on it first",
        ));
    }
    Ok(())
}

/// The sequence offsets of a varlen call (candle-flash-attn's `seqlens_q` / `seqlens_k`):
/// u32 or i32 prefix sums `[batch + 1]`, contiguous, both of one length. Returns `batch`.
/// Their contents stay on the device (reading them would synchronize): offsets that start at
/// 0, never decrease and end at the tensors' row counts are the caller's contract. Broken ones
/// never cause an access outside the tensors, but leave the rows of the (uninitialised) output
/// and LSE that no sequence covers unwritten: uninitialised device memory (see the crate docs).
pub(crate) fn check_seqlens(seqlens_q: &Tensor, seqlens_k: &Tensor) -> candle_core::Result<usize> {
    for (name, t) in [("seqlens_q", seqlens_q), ("seqlens_k", seqlens_k)] {
        if !matches!(t.dtype(), DType::U32 | DType::I32) {
            return Err(msg(format!(
                "{name} has dtype {:?}; expected u32 (or i32) prefix sums",
                t.dtype()
            )));
        }
        if t.rank() != 1 || t.dims()[0] < 2 {
            return Err(msg(format!(
                "{name} has shape {:?}; expected [batch + 1] prefix sums with batch >= 1",
                t.dims()
            )));
        }
        if !t.is_contiguous() {
            return Err(msg(format!(
                "{name} is not contiguous; call .contiguous() on it first"
            )));
        }
    }
    if seqlens_q.dims() != seqlens_k.dims() {
        return Err(msg(format!(
            "seqlens_q has shape {:?} but seqlens_k has {:?}; both are [batch + 1]",
            seqlens_q.dims(),
            seqlens_k.dims()
        )));
    }
    Ok(seqlens_q.dims()[0] - 1)
}

/// A side tensor must sit on the device of q.
pub(crate) fn check_same_device(name: &str, t: &Tensor, q: &Tensor) -> candle_core::Result<()> {
    if !t.device().same_device(q.device()) {
        return Err(msg(format!(
            "{name} is on {:?} but q is on {:?}; move it with .to_device(q.device())",
            t.device().location(),
            q.device().location()
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
        // Packed [total, h, d].
        let s = strides_of("q", &[7, 3, 8], &[24, 8, 1]).unwrap();
        assert_eq!(s, Strides::packed(3, 8));
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
        let ok = check_packed_shapes(&[30, 8, 64], &[40, 2, 64], &[40, 2, 64], 3, 12, 20).unwrap();
        assert_eq!(
            (ok.batch, ok.seqlen_q, ok.seqlen_k, ok.heads_q),
            (3, 12, 20, 8)
        );
        for (q, k, needle) in [
            (&[30, 1, 8, 64][..], &[40, 2, 64][..], "rank 3"),
            (&[30, 8, 64], &[40, 2, 32], "head_dim must agree"),
            (&[30, 8, 64], &[40, 3, 64], "not a multiple"),
            (&[0, 8, 64], &[40, 2, 64], "total_q"),
        ] {
            let e = check_packed_shapes(q, k, k, 3, 12, 20)
                .unwrap_err()
                .to_string();
            assert!(e.contains(needle), "{q:?} {k:?}: {e}");
        }
        let e =
            check_packed_shapes(&[30, 8, 64], &[40, 2, 64], &[40, 2, 64], 3, 0, 20).unwrap_err();
        assert!(e.to_string().contains("seqlen_q is 0"), "{e}");
    }

    #[test]
    fn windows_read_as_flash_attention_2_reads_them() {
        let open = Window::UNBOUNDED;
        // Causal: no left side, right side 0 (also a left side wider than the keys).
        assert_eq!(fa2_window(None, Some(0), 100), (true, open));
        assert_eq!(fa2_window(Some(101), Some(0), 100), (true, open));
        // Both sides bounded, as given (Mistral's sliding window is (w - 1, 0)).
        assert_eq!(
            fa2_window(Some(7), Some(0), 100),
            (false, Window::new(Some(7), Some(0)))
        );
        assert_eq!(
            fa2_window(Some(7), Some(3), 100),
            (false, Window::new(Some(7), Some(3)))
        );
        // One side bounded: the other at seqlen_k keys; wider than seqlen_k is open.
        assert_eq!(
            fa2_window(Some(7), None, 100),
            (false, Window::new(Some(7), Some(100)))
        );
        assert_eq!(
            fa2_window(Some(7), Some(101), 100),
            (false, Window::new(Some(7), Some(100)))
        );
        assert_eq!(
            fa2_window(None, Some(5), 100),
            (false, Window::new(None, Some(5)))
        );
        assert_eq!(
            fa2_window(Some(100), Some(100), 100),
            (false, Window::new(Some(100), Some(100)))
        );
        // Neither: no mask.
        assert_eq!(fa2_window(None, None, 100), (false, open));
        assert_eq!(fa2_window(Some(101), Some(200), 100), (false, open));
    }

    #[test]
    fn softcap_zero_is_off_and_nonsense_is_refused() {
        assert_eq!(softcap_of(0.0).unwrap(), None);
        assert_eq!(softcap_of(30.0).unwrap(), Some(30.0));
        for bad in [-1.0, f32::NAN, f32::INFINITY] {
            let e = softcap_of(bad).unwrap_err().to_string();
            assert!(e.contains("softcap"), "{e}");
        }
    }
}
