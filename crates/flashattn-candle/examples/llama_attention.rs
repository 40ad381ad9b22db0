//! A LLaMA-style attention layer in candle (q/k/v/o projections, rotary embeddings, optional
//! GQA, causal, optionally a Mistral-style sliding window), with seeded random weights, run twice
//! per step: once with candle's plain attention as candle-transformers' llama writes it (matmul,
//! masked softmax in f32, matmul), once with `flashattn_candle::flash_attn` in its place, as
//! candle-transformers' flash-attn path calls it (`flash_attn_windowed` with `--window`). Prints
//! the time per step of the attention and of the whole layer (CUDA synchronised around the timed
//! steps), the largest difference between the two, and the project's error rule for both against
//! the f64 CPU reference on a few heads.
//!
//! ```sh
//! cargo run --release --example llama_attention                       # seq 4096, 32 heads, d128, bf16
//! cargo run --release --example llama_attention -- --seq 512 --kv-heads 8 --steps 5
//! cargo run --release --example llama_attention -- --kv-heads 8 --window 1024   # Mistral-style
//! ```
//!
//! `--help` lists the flags and their defaults.

use std::time::Instant;

use candle_core::{D, DType, Device, Module, Result, Tensor};
use candle_nn::Linear;
use flashattn_ref::{ATOL, Element, Problem, Strides, TensorRef};

/// A LLaMA-style attention layer with candle's plain attention and with flashattn.
#[derive(clap::Parser)]
#[command(name = "llama_attention")]
struct Args {
    #[arg(long, default_value_t = 1)]
    batch: usize,
    #[arg(long, default_value_t = 4096)]
    seq: usize,
    /// Query heads.
    #[arg(long, default_value_t = 32)]
    heads: usize,
    /// Key/value heads (GQA when fewer than --heads); default: --heads.
    #[arg(long)]
    kv_heads: Option<usize>,
    #[arg(long, default_value_t = 128)]
    head_dim: usize,
    #[arg(long, value_enum, default_value_t = Precision::Bf16)]
    dtype: Precision,
    /// Sliding window: each query sees itself and the WINDOW keys before it (FlashAttention-2's
    /// window_size_left, as Mistral's layers pass it); default: every key up to the query.
    #[arg(long)]
    window: Option<usize>,
    /// Timed steps.
    #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u64).range(1..))]
    steps: u64,
    #[arg(long, default_value_t = 3)]
    warmup: usize,
    /// Query heads checked against the f64 CPU reference (0 skips the check).
    #[arg(long, default_value_t = 4)]
    check_heads: usize,
    #[arg(long, default_value_t = 0)]
    seed: u64,
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum Precision {
    Bf16,
    F16,
}

impl Args {
    fn kv_heads(&self) -> usize {
        self.kv_heads.unwrap_or(self.heads)
    }

    fn dtype(&self) -> DType {
        match self.dtype {
            Precision::Bf16 => DType::BF16,
            Precision::F16 => DType::F16,
        }
    }
}

/// The layer's weights and rotary tables.
struct Layer {
    wq: Linear,
    wk: Linear,
    wv: Linear,
    wo: Linear,
    cos: Tensor,
    sin: Tensor,
    heads: usize,
    kv_heads: usize,
    head_dim: usize,
    window: Option<usize>,
}

impl Layer {
    fn new(a: &Args, dev: &Device) -> Result<Self> {
        let hidden = a.heads * a.head_dim;
        let kv = a.kv_heads() * a.head_dim;
        // Scaled so that activations stay of order one through the projections.
        let w = |out: usize, inp: usize| -> Result<Linear> {
            let std = 1.0 / (inp as f32).sqrt();
            let w = Tensor::randn(0f32, std, (out, inp), dev)?.to_dtype(a.dtype())?;
            Ok(Linear::new(w, None))
        };
        // LLaMA's rotary embedding: theta 10000, position p rotates pair i by p / theta^(2i/d).
        let half = a.head_dim / 2;
        let inv: Vec<f32> = (0..half)
            .map(|i| 1.0 / 10000f32.powf(2.0 * i as f32 / a.head_dim as f32))
            .collect();
        let inv = Tensor::from_vec(inv, (1, half), dev)?;
        let pos = Tensor::arange(0u32, a.seq as u32, dev)?
            .to_dtype(DType::F32)?
            .reshape((a.seq, 1))?;
        let angles = pos.broadcast_mul(&inv)?;
        Ok(Layer {
            wq: w(hidden, hidden)?,
            wk: w(kv, hidden)?,
            wv: w(kv, hidden)?,
            wo: w(hidden, hidden)?,
            cos: angles.cos()?.to_dtype(a.dtype())?,
            sin: angles.sin()?.to_dtype(a.dtype())?,
            heads: a.heads,
            kv_heads: a.kv_heads(),
            head_dim: a.head_dim,
            window: a.window,
        })
    }

    /// Projections and RoPE, as candle-transformers' llama: q, k, v as `[b, heads, s, d]`.
    fn qkv(&self, x: &Tensor) -> Result<(Tensor, Tensor, Tensor)> {
        let (b, s, _) = x.dims3()?;
        let split = |t: Tensor, h: usize| -> Result<Tensor> {
            t.reshape((b, s, h, self.head_dim))?
                .transpose(1, 2)?
                .contiguous()
        };
        let q = split(self.wq.forward(x)?, self.heads)?;
        let k = split(self.wk.forward(x)?, self.kv_heads)?;
        let v = split(self.wv.forward(x)?, self.kv_heads)?;
        let q = candle_nn::rotary_emb::rope(&q, &self.cos, &self.sin)?;
        let k = candle_nn::rotary_emb::rope(&k, &self.cos, &self.sin)?;
        Ok((q, k, v))
    }

    /// candle's plain attention, written as candle-transformers' llama writes it: KV heads
    /// repeated, `q k^T / sqrt(d)`, causal (or sliding-window) mask filled with -inf, softmax
    /// in f32, `p v`.
    /// Returns `[b, s, heads * d]`.
    fn attention_plain(&self, q: &Tensor, k: &Tensor, v: &Tensor, mask: &Tensor) -> Result<Tensor> {
        let (b, h, s, d) = q.dims4()?;
        let group = self.heads / self.kv_heads;
        let repeat = |t: &Tensor| -> Result<Tensor> {
            if group == 1 {
                return Ok(t.clone());
            }
            let (b, hk, s, d) = t.dims4()?;
            t.unsqueeze(2)?
                .broadcast_as((b, hk, group, s, d))?
                .reshape((b, hk * group, s, d))
        };
        let (k, v) = (repeat(k)?, repeat(v)?);
        let att = (q.matmul(&k.t()?)? / (d as f64).sqrt())?;
        let minus_inf = Tensor::new(f32::NEG_INFINITY, att.device())?
            .to_dtype(att.dtype())?
            .broadcast_as(att.shape())?;
        let att = mask
            .broadcast_as(att.shape())?
            .where_cond(&minus_inf, &att)?;
        let att =
            candle_nn::ops::softmax_last_dim(&att.to_dtype(DType::F32)?)?.to_dtype(q.dtype())?;
        att.matmul(&v.contiguous()?)?
            .transpose(1, 2)?
            .reshape((b, s, h * d))
    }

    /// The same attention through flash_attn (flash_attn_windowed with a window), called as
    /// candle-transformers' flash-attn paths call candle-flash-attn: `[b, s, h, d]` views of the
    /// `[b, h, s, d]` tensors (no copies).
    fn attention_flash(&self, q: &Tensor, k: &Tensor, v: &Tensor) -> Result<Tensor> {
        let (b, h, s, d) = q.dims4()?;
        let scale = 1.0 / (d as f32).sqrt();
        let (q, k, v) = (q.transpose(1, 2)?, k.transpose(1, 2)?, v.transpose(1, 2)?);
        let o = match self.window {
            None => flashattn_candle::flash_attn(&q, &k, &v, scale, true)?,
            Some(w) => flashattn_candle::flash_attn_windowed(&q, &k, &v, scale, Some(w), Some(0))?,
        };
        o.reshape((b, s, h * d))
    }
}

/// Mean milliseconds per call of `f`, CUDA synchronised before and after the timed calls.
fn time_ms(
    dev: &Device,
    warmup: usize,
    steps: usize,
    mut f: impl FnMut() -> Result<Tensor>,
) -> Result<f64> {
    for _ in 0..warmup {
        f()?;
    }
    dev.synchronize()?;
    let start = Instant::now();
    for _ in 0..steps {
        f()?;
    }
    dev.synchronize()?;
    Ok(start.elapsed().as_secs_f64() * 1e3 / steps as f64)
}

fn max_diff(a: &Tensor, b: &Tensor) -> Result<f32> {
    (a.to_dtype(DType::F32)? - b.to_dtype(DType::F32)?)?
        .abs()?
        .flatten_all()?
        .max(D::Minus1)?
        .to_scalar::<f32>()
}

/// The project's rule on the first `n` query heads (and the KV heads they read), against the
/// f64 reference: returns a printable verdict and whether both comparisons pass.
fn check_heads<E: Element + candle_core::WithDType>(
    n: usize,
    (q, k, v): (&Tensor, &Tensor, &Tensor),
    flash: &Tensor,
    plain: &Tensor,
    group: usize,
    window: Option<usize>,
) -> Result<(String, bool)> {
    let (b, _, s, d) = q.dims4()?;
    let nkv = n / group;
    // [b, h, s, d] -> the first heads, as contiguous [b, s, h, d] host data.
    let host = |t: &Tensor, h: usize| -> Result<Vec<E>> {
        t.narrow(1, 0, h)?
            .transpose(1, 2)?
            .contiguous()?
            .to_device(&Device::Cpu)?
            .flatten_all()?
            .to_vec1::<E>()
    };
    let (qh, kh, vh) = (host(q, n)?, host(k, nkv)?, host(v, nkv)?);
    let p = Problem {
        window_left: window,
        ..Problem::new(b, s, s, n, nkv, d, true)
    };
    let tq = TensorRef::new(&qh, Strides::bshd(s, n, d));
    let tk = TensorRef::new(&kh, Strides::bshd(s, nkv, d));
    let tv = TensorRef::new(&vh, Strides::bshd(s, nkv, d));
    let reference = flashattn_ref::reference(&p, tq, tk, tv);
    let naive = flashattn_ref::naive_same_precision(&p, tq, tk, tv);
    // Both outputs are [b, s, heads * d]: the first n heads are the first n * d columns.
    let out = |t: &Tensor| -> Result<Vec<f64>> {
        t.narrow(2, 0, n * d)?
            .contiguous()?
            .to_device(&Device::Cpu)?
            .to_dtype(DType::F64)?
            .flatten_all()?
            .to_vec1::<f64>()
    };
    let (fo, po) = (out(flash)?, out(plain)?);
    let c = flashattn_ref::check(&p, &fo, None, &reference, &naive);
    let plain_err = po
        .iter()
        .zip(&reference.o)
        .map(|(x, r)| (x - r).abs())
        .fold(0.0, f64::max);
    let vs_plain = c.o_max_err <= 2.0 * plain_err + ATOL;
    let text = format!(
        "rule on heads 0..{n} against the f64 reference: flashattn max err {:.3e}, candle plain {plain_err:.3e}, \
         same-precision naive {:.3e}; bound 2 x naive + 1e-5 = {:.3e}: {}; bound 2 x candle plain + 1e-5 = {:.3e}: {}",
        c.o_max_err,
        c.o_naive_err,
        c.o_bound,
        if c.pass { "PASS" } else { "FAIL" },
        2.0 * plain_err + ATOL,
        if vs_plain { "PASS" } else { "FAIL" },
    );
    Ok((text, c.pass && vs_plain))
}

fn main() -> Result<()> {
    let a = <Args as clap::Parser>::parse();
    if a.kv_heads() == 0 || a.heads % a.kv_heads() != 0 {
        <Args as clap::CommandFactory>::command()
            .error(
                clap::error::ErrorKind::ValueValidation,
                format!(
                    "--heads {} is not a multiple of --kv-heads {}",
                    a.heads,
                    a.kv_heads()
                ),
            )
            .exit();
    }
    let dev = Device::new_cuda(0)?;
    dev.set_seed(a.seed)?;
    let layer = Layer::new(&a, &dev)?;
    let hidden = a.heads * a.head_dim;
    let x = Tensor::randn(0f32, 1.0, (a.batch, a.seq, hidden), &dev)?.to_dtype(a.dtype())?;
    // Causal mask as candle-transformers builds it: 1 where key j > query i; with a window, as
    // its mistral builds it: also where j is more than the window before i.
    let window = a.window;
    let mask: Vec<u8> = (0..a.seq)
        .flat_map(|i| (0..a.seq).map(move |j| u8::from(j > i || window.is_some_and(|w| j + w < i))))
        .collect();
    let mask = Tensor::from_slice(&mask, (a.seq, a.seq), &dev)?;
    let mask_name = match a.window {
        None => "causal".to_string(),
        Some(w) => format!("causal, sliding window of {w} keys"),
    };
    println!(
        "llama attention layer: batch {}, seq {}, hidden {hidden}, heads {} (kv {}), head_dim {}, {:?}, {mask_name}",
        a.batch,
        a.seq,
        a.heads,
        a.kv_heads(),
        a.head_dim,
        a.dtype()
    );

    let (q, k, v) = layer.qkv(&x)?;
    let plain = layer.attention_plain(&q, &k, &v, &mask)?;
    let flash = layer.attention_flash(&q, &k, &v)?;
    let layer_plain = layer.wo.forward(&plain)?;
    let layer_flash = layer.wo.forward(&flash)?;

    let t_core_plain = time_ms(&dev, a.warmup, a.steps as usize, || {
        layer.attention_plain(&q, &k, &v, &mask)
    })?;
    let t_core_flash = time_ms(&dev, a.warmup, a.steps as usize, || {
        layer.attention_flash(&q, &k, &v)
    })?;
    let t_layer_plain = time_ms(&dev, a.warmup, a.steps as usize, || {
        let (q, k, v) = layer.qkv(&x)?;
        layer.wo.forward(&layer.attention_plain(&q, &k, &v, &mask)?)
    })?;
    let t_layer_flash = time_ms(&dev, a.warmup, a.steps as usize, || {
        let (q, k, v) = layer.qkv(&x)?;
        layer.wo.forward(&layer.attention_flash(&q, &k, &v)?)
    })?;
    println!(
        "attention (after RoPE, before o_proj): candle plain {t_core_plain:.3} ms/step, flashattn {t_core_flash:.3} ms/step: {:.2}x",
        t_core_plain / t_core_flash
    );
    println!(
        "whole layer (projections + RoPE + attention): candle plain {t_layer_plain:.3} ms/step, flashattn {t_layer_flash:.3} ms/step: {:.2}x",
        t_layer_plain / t_layer_flash
    );
    let (d_core, d_layer) = (
        max_diff(&plain, &flash)?,
        max_diff(&layer_plain, &layer_flash)?,
    );
    println!(
        "max |flashattn - candle plain|: attention output {d_core:.3e}, layer output {d_layer:.3e}"
    );

    let mut ok = true;
    let group = a.heads / a.kv_heads();
    if a.check_heads > 0 {
        // Whole GQA groups, so that the checked query heads read whole KV heads.
        let n = a.check_heads.div_ceil(group).max(1) * group;
        let n = n.min(a.heads);
        let (text, pass) = match a.dtype() {
            DType::F16 => {
                check_heads::<half::f16>(n, (&q, &k, &v), &flash, &plain, group, a.window)?
            }
            _ => check_heads::<half::bf16>(n, (&q, &k, &v), &flash, &plain, group, a.window)?,
        };
        println!("{text}");
        ok = pass;
    }
    println!(
        "RESULT seq={} heads={} kv_heads={} head_dim={} dtype={:?} window={} attention_ms plain={t_core_plain:.3} flash={t_core_flash:.3} speedup={:.2} layer_ms plain={t_layer_plain:.3} flash={t_layer_flash:.3} speedup={:.2} max_diff={d_core:.3e} rule={}",
        a.seq,
        a.heads,
        a.kv_heads(),
        a.head_dim,
        a.dtype(),
        a.window.map_or("none".to_string(), |w| w.to_string()),
        t_core_plain / t_core_flash,
        t_layer_plain / t_layer_flash,
        if a.check_heads == 0 {
            "skipped"
        } else if ok {
            "PASS"
        } else {
            "FAIL"
        }
    );
    if !ok {
        std::process::exit(1);
    }
    Ok(())
}
