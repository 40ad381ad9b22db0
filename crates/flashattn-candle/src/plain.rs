//! Attention from candle's own tensor ops: the unfused baseline the GPU tests compare with, and
//! a fallback where the kernels do not run.

use candle_core::{DType, Result, Tensor};

use crate::checks::{Sizes, check_shapes};

/// Attention from candle's own tensor ops, unfused: `q k^T` (matmul in q's dtype), scale, mask
/// and softmax in f32, probabilities back to q's dtype, `p v` (matmul). Same arguments,
/// layouts and semantics as [`flash_attn`](crate::flash_attn) (bottom-right causal mask, GQA,
/// a row that sees no key gives zeros), on any device and dtype candle supports.
///
/// It is the baseline the GPU tests and the example compare [`flash_attn`](crate::flash_attn)
/// with, and a fallback where the kernels do not run (CPU, f32). It materialises the
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
