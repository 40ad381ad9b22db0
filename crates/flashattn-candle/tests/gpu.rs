//! GPU tests (ignored without `--include-ignored`): flash_attn on candle tensors against the
//! f64 CPU reference under the project's rule, and against candle's own unfused attention
//! (matmul, masked softmax in f32, matmul) as the user-facing baseline.
//!
//! The rule: `max|out - ref| <= 2 * max|naive - ref| + 1e-5` with `naive` the same-precision
//! plain implementation of flashattn-ref (also for the LSE), and the same bound with candle's
//! plain attention in place of `naive`. Every case prints one `case` line; the last line of
//! the main test is `worst ...`.

use candle_core::{DType, Device, Tensor};
use flashattn_candle::{
    flash_attn, flash_attn_alibi, flash_attn_alibi_windowed, flash_attn_alibi_windowed_softcap,
    flash_attn_varlen, flash_attn_varlen_alibi, flash_attn_varlen_alibi_windowed,
    flash_attn_varlen_alibi_windowed_softcap, flash_attn_varlen_windowed,
    flash_attn_varlen_with_lse, flash_attn_windowed, flash_attn_with_lse, plain_attention,
};
use flashattn_ref::{ATOL, Element, HeadParams, Problem, Strides, TensorRef};
use half::{bf16, f16};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use rand_distr::{Distribution, StandardNormal};

fn device() -> Device {
    Device::new_cuda(0).expect("these tests need a CUDA GPU (run with --include-ignored there)")
}

/// How an input sits in memory; the kernels must read each as it is.
#[derive(Clone, Copy, Debug)]
enum View {
    /// `[b, s, h, d]` contiguous.
    Contiguous,
    /// `[b, h, s, d]` storage seen through `.transpose(1, 2)`.
    HeadsFirst,
    /// Rows narrowed out of a longer `[b, s + 3, h, d]` buffer (a start offset).
    Narrowed,
    /// Heads narrowed out of `[b, s, h + 1, d]` (row stride wider than heads x head_dim).
    PaddedHeads,
}

const VIEWS: [View; 4] = [
    View::Contiguous,
    View::HeadsFirst,
    View::Narrowed,
    View::PaddedHeads,
];

/// A `[b, s, h, d]` tensor of `data` (contiguous b, s, h, d order) on `dev` in `view`'s layout.
fn place(
    data: &[f32],
    dims: (usize, usize, usize, usize),
    dtype: DType,
    view: View,
    dev: &Device,
) -> Tensor {
    let (b, s, h, d) = dims;
    let host = Tensor::from_vec(data.to_vec(), (b, s, h, d), &Device::Cpu).unwrap();
    let t = match view {
        View::Contiguous => host,
        View::HeadsFirst => host.transpose(1, 2).unwrap().contiguous().unwrap(),
        View::Narrowed => {
            let pad = Tensor::ones((b, 3, h, d), DType::F32, &Device::Cpu).unwrap();
            Tensor::cat(
                &[
                    &pad.narrow(1, 0, 1).unwrap(),
                    &host,
                    &pad.narrow(1, 1, 2).unwrap(),
                ],
                1,
            )
            .unwrap()
        }
        View::PaddedHeads => {
            let pad = Tensor::ones((b, s, 1, d), DType::F32, &Device::Cpu).unwrap();
            Tensor::cat(&[&host, &pad], 2).unwrap()
        }
    };
    let t = t.to_dtype(dtype).unwrap().to_device(dev).unwrap();
    let t = match view {
        View::Contiguous => t,
        View::HeadsFirst => t.transpose(1, 2).unwrap(),
        View::Narrowed => t.narrow(1, 1, s).unwrap(),
        View::PaddedHeads => t.narrow(2, 0, h).unwrap(),
    };
    assert_eq!(t.dims(), &[b, s, h, d]);
    t
}

fn host_f64(t: &Tensor) -> Vec<f64> {
    t.to_device(&Device::Cpu)
        .unwrap()
        .to_dtype(DType::F64)
        .unwrap()
        .flatten_all()
        .unwrap()
        .to_vec1::<f64>()
        .unwrap()
}

fn max_abs_diff(a: &[f64], b: &[f64]) -> f64 {
    assert_eq!(a.len(), b.len());
    a.iter()
        .zip(b)
        .map(|(x, y)| {
            if x.is_finite() && y.is_finite() {
                (x - y).abs()
            } else {
                f64::INFINITY
            }
        })
        .fold(0.0, f64::max)
}

struct Outcome {
    /// Worst error / bound under the project rule (O and LSE).
    ratio: f64,
    /// Worst error / bound with candle's plain attention as the baseline.
    candle_ratio: f64,
}

/// One problem: flash_attn and flash_attn_with_lse against the reference, naive and candle.
fn run_case<E: Element>(
    p: &Problem,
    dtype: DType,
    views: [View; 3],
    rng: &mut StdRng,
    dev: &Device,
) -> Outcome {
    let (b, sq, sk, hq, hkv, d) = (
        p.batch, p.seqlen_q, p.seqlen_k, p.heads_q, p.heads_kv, p.head_dim,
    );
    // Values rounded to the dtype first, so the CPU reference sees exactly what the GPU sees.
    let mut draw = |n: usize| -> Vec<f32> {
        (0..n)
            .map(|_| E::round_f32(StandardNormal.sample(&mut *rng)))
            .collect()
    };
    let (qd, kd, vd) = (
        draw(b * sq * hq * d),
        draw(b * sk * hkv * d),
        draw(b * sk * hkv * d),
    );
    let q = place(&qd, (b, sq, hq, d), dtype, views[0], dev);
    let k = place(&kd, (b, sk, hkv, d), dtype, views[1], dev);
    let v = place(&vd, (b, sk, hkv, d), dtype, views[2], dev);

    let (o, lse) = flash_attn_with_lse(&q, &k, &v, p.softmax_scale, p.causal).unwrap();
    let o_plain_call = flash_attn(&q, &k, &v, p.softmax_scale, p.causal).unwrap();
    let candle = plain_attention(&q, &k, &v, p.softmax_scale, p.causal).unwrap();
    assert_eq!(o.dims(), &[b, sq, hq, d]);
    assert_eq!(o.dtype(), dtype);
    assert!(o.is_contiguous());
    assert_eq!(lse.dims(), &[b, hq, sq]);
    assert_eq!(lse.dtype(), DType::F32);

    let got = host_f64(&o);
    // Same kernel, same inputs: the LSE-less call must give the same bits.
    assert_eq!(
        got,
        host_f64(&o_plain_call),
        "flash_attn and flash_attn_with_lse differ: {p:?}"
    );
    let got_lse: Vec<f32> = lse.flatten_all().unwrap().to_vec1::<f32>().unwrap();
    let candle_o = host_f64(&candle);

    let cast = |x: &[f32]| x.iter().map(|&f| E::from_f64(f as f64)).collect::<Vec<E>>();
    let (qe, ke, ve) = (cast(&qd), cast(&kd), cast(&vd));
    let tq = TensorRef::new(&qe, Strides::bshd(sq, hq, d));
    let tk = TensorRef::new(&ke, Strides::bshd(sk, hkv, d));
    let tv = TensorRef::new(&ve, Strides::bshd(sk, hkv, d));
    let reference = flashattn_ref::reference(p, tq, tk, tv);
    let naive = flashattn_ref::naive_same_precision(p, tq, tk, tv);
    let c = flashattn_ref::check(p, &got, Some(&got_lse), &reference, &naive);

    let candle_err = max_abs_diff(&candle_o, &reference.o);
    let candle_bound = 2.0 * candle_err + ATOL;
    let candle_ratio = c.o_max_err / candle_bound;
    println!(
        "case {dtype:?} b{b} sq{sq} sk{sk} hq{hq} hkv{hkv} d{d} causal={} views={views:?}: ours {:.3e}, naive {:.3e}, candle plain {:.3e}, rule ratio {:.3}, vs candle {:.3}, lse err {:.3e} (bound {:.3e})",
        p.causal,
        c.o_max_err,
        c.o_naive_err,
        candle_err,
        c.ratio,
        candle_ratio,
        c.lse_max_err,
        c.lse_bound
    );
    assert!(c.pass, "{p:?} {views:?}: {c}");
    assert!(
        c.o_max_err <= candle_bound,
        "{p:?} {views:?}: error {:.3e} above 2 x candle's plain attention's {candle_err:.3e} + {ATOL}",
        c.o_max_err
    );
    Outcome {
        ratio: c.ratio,
        candle_ratio,
    }
}

fn run<E: Element>(p: &Problem, views: [View; 3], rng: &mut StdRng, dev: &Device) -> Outcome {
    run_case::<E>(p, dtype_of::<E>(), views, rng, dev)
}

/// candle's dtype of the element type `E` (f16 or bf16).
fn dtype_of<E: Element>() -> DType {
    if E::NAME == "bf16" {
        DType::BF16
    } else {
        DType::F16
    }
}

fn compiled(dtype: flashattn::DType) -> Vec<usize> {
    flashattn::compiled_head_dims(dtype)
}

/// A head dim this build has for `E`, then 1-3 KV heads in groups of 1, 2 or 4:
/// `(head_dim, heads_q, heads_kv)`.
fn draw_heads<E: Element>(rng: &mut StdRng) -> (usize, usize, usize) {
    let dims = compiled(if E::NAME == "bf16" {
        flashattn::DType::BF16
    } else {
        flashattn::DType::F16
    });
    let d = dims[rng.random_range(0..dims.len())];
    let heads_kv = rng.random_range(1..=3);
    let heads_q = heads_kv * [1, 2, 4][rng.random_range(0..3)];
    (d, heads_q, heads_kv)
}

/// A random case: its rule ratio.
type CaseFn = fn(&mut StdRng, &Device) -> f64;

/// `cases` cases drawn from `seed`, bf16 and f16 in turn: the worst rule ratio.
fn worst_of(seed: u64, cases: usize, bf16_case: CaseFn, f16_case: CaseFn) -> f64 {
    let dev = device();
    let mut rng = StdRng::seed_from_u64(seed);
    (0..cases)
        .map(|i| {
            if i % 2 == 0 {
                bf16_case(&mut rng, &dev)
            } else {
                f16_case(&mut rng, &dev)
            }
        })
        .fold(0.0, f64::max)
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn random_shapes_match_the_reference_and_candle_attention() {
    let dev = device();
    let mut rng = StdRng::seed_from_u64(15);
    let (mut worst, mut worst_candle, mut cases) = (0f64, 0f64, 0);
    for i in 0..40 {
        let bf = i % 2 == 0;
        let dims = compiled(if bf {
            flashattn::DType::BF16
        } else {
            flashattn::DType::F16
        });
        let d = dims[rng.random_range(0..dims.len())];
        let heads_kv = rng.random_range(1..=4);
        let group = [1, 1, 2, 4, 8][rng.random_range(0..5)];
        let batch = rng.random_range(1..=2);
        let seqlen_q = if rng.random_bool(0.2) {
            1
        } else {
            rng.random_range(1..=300)
        };
        let seqlen_k = if rng.random_bool(0.3) {
            seqlen_q
        } else {
            rng.random_range(1..=300)
        };
        let causal = rng.random_bool(0.5);
        let mut p = Problem::new(
            batch,
            seqlen_q,
            seqlen_k,
            heads_kv * group,
            heads_kv,
            d,
            causal,
        );
        if rng.random_bool(0.25) {
            p.softmax_scale = rng.random_range(0.02..0.5);
        }
        let views = [0, 1, 2].map(|_| VIEWS[rng.random_range(0..VIEWS.len())]);
        let out = if bf {
            run::<bf16>(&p, views, &mut rng, &dev)
        } else {
            run::<f16>(&p, views, &mut rng, &dev)
        };
        worst = worst.max(out.ratio);
        worst_candle = worst_candle.max(out.candle_ratio);
        cases += 1;
    }
    println!(
        "worst over {cases} cases: rule ratio {worst:.3}, vs candle plain attention {worst_candle:.3} (pass <= 1)"
    );
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn llama_sized_bf16_gqa_causal() {
    let dev = device();
    let mut rng = StdRng::seed_from_u64(7);
    // One LLaMA-3-8B-like layer's attention at a modest length (the CPU reference is the cost).
    let p = Problem::new(1, 1024, 1024, 32, 8, 128, true);
    for views in [[View::Contiguous; 3], [View::HeadsFirst; 3]] {
        run::<bf16>(&p, views, &mut rng, &dev);
    }
    // Decoding: one new query over a long cache.
    let p = Problem::new(2, 1, 1500, 32, 8, 128, true);
    run::<bf16>(&p, [View::Contiguous; 3], &mut rng, &dev);
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn rows_that_see_no_key_give_zeros_and_minus_infinity() {
    let dev = device();
    let (b, sq, sk, h, d) = (1, 12, 4, 2, 64);
    let q = Tensor::ones((b, sq, h, d), DType::BF16, &dev).unwrap();
    let k = Tensor::ones((b, sk, h, d), DType::BF16, &dev).unwrap();
    let (o, lse) = flash_attn_with_lse(&q, &k, &k, 0.125, true).unwrap();
    let (o, lse) = (host_f64(&o), host_f64(&lse));
    // Causal, bottom-right: rows 0..sq-sk see nothing.
    for s in 0..sq {
        let row = &o[s * h * d..(s + 1) * h * d];
        let blind = s < sq - sk;
        assert!(
            row.iter().all(|&x| if blind { x == 0.0 } else { x == 1.0 }),
            "row {s}: {row:?}"
        );
        for hh in 0..h {
            let l = lse[hh * sq + s];
            assert!(
                if blind {
                    l == f64::NEG_INFINITY
                } else {
                    l.is_finite()
                },
                "lse[{hh},{s}] = {l}"
            );
        }
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn misaligned_views_are_errors_and_contiguous_fixes_them() {
    let dev = device();
    let (b, s, h, d) = (1, 16, 2, 64);
    // Rows of 2 x 65 elements: head_dim 64 narrowed out of 65 breaks the 16-byte row alignment.
    let wide = Tensor::ones((b, s, h, d + 1), DType::F16, &dev).unwrap();
    let q = wide.narrow(3, 0, d).unwrap();
    let k = Tensor::ones((b, s, h, d), DType::F16, &dev).unwrap();
    let e = flash_attn(&q, &k, &k, 0.125, false)
        .unwrap_err()
        .to_string();
    println!("misaligned: {e}");
    assert!(e.starts_with("flashattn: "), "{e}");
    let o = flash_attn(&q.contiguous().unwrap(), &k, &k, 0.125, false).unwrap();
    assert!(host_f64(&o).iter().all(|&x| x == 1.0));
    // A start offset that is not a multiple of 8 elements, likewise.
    let flat = Tensor::ones(b * s * h * d + 3, DType::F16, &dev).unwrap();
    let q = flat
        .narrow(0, 3, b * s * h * d)
        .unwrap()
        .reshape((b, s, h, d))
        .unwrap();
    let e = flash_attn(&q, &k, &k, 0.125, false)
        .unwrap_err()
        .to_string();
    println!("offset: {e}");
    assert!(e.contains(".force_contiguous()"), "{e}");
    // candle's .contiguous() keeps an already contiguous view (and its offset); .force_contiguous() copies.
    let o = flash_attn(&q.force_contiguous().unwrap(), &k, &k, 0.125, false).unwrap();
    assert!(host_f64(&o).iter().all(|&x| x == 1.0));
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn gpu_dtype_mismatch_and_backward_are_errors() {
    let dev = device();
    let q = Tensor::ones((1, 8, 2, 64), DType::BF16, &dev).unwrap();
    let k = Tensor::ones((1, 8, 2, 64), DType::F16, &dev).unwrap();
    assert!(flash_attn(&q, &k, &k, 0.125, false).is_err());
    let f = Tensor::ones((1, 8, 2, 64), DType::F32, &dev).unwrap();
    assert!(flash_attn(&f, &f, &f, 0.125, false).is_err());
    // The op has no backward pass: asking for one is an error, as in candle-flash-attn.
    let var = candle_core::Var::from_tensor(&q).unwrap();
    let o = flash_attn(var.as_tensor(), &q, &q, 0.125, false).unwrap();
    let loss = o.to_dtype(DType::F32).unwrap().sum_all().unwrap();
    let e = loss.backward().unwrap_err().to_string();
    println!("backward: {e}");
}

/// FlashAttention-2's reading of `window_size_left` / `window_size_right` (its flash_api.cpp),
/// written out as the reference's problem: a side wider than `seqlen_k` is open, `(open, 0)`
/// is the causal mask, and where one side is bounded the other is bounded at `seqlen_k`.
fn fa2_mask(p: &mut Problem, left: Option<usize>, right: Option<usize>, seqlen_k: usize) {
    let left = left.filter(|&w| w <= seqlen_k);
    let right = right.filter(|&w| w <= seqlen_k);
    p.causal = left.is_none() && right == Some(0);
    if !p.causal {
        (p.window_left, p.window_right) = match (left, right) {
            (Some(l), None) => (Some(l), Some(seqlen_k)),
            (None, Some(r)) => (Some(seqlen_k), Some(r)),
            both => both,
        };
    }
}

/// A window side as the callers of candle-flash-attn pass it: open, 0, a few keys, or more keys
/// than there are.
fn draw_side(rng: &mut StdRng, seqlen_k: usize) -> Option<usize> {
    match rng.random_range(0..4) {
        0 => None,
        1 => Some(0),
        2 => Some(rng.random_range(1..=64)),
        _ => Some(seqlen_k + rng.random_range(0..3)),
    }
}

/// Random values rounded to E, as f32 (what the GPU sees) and as E (what the reference takes).
fn draw_values<E: Element>(rng: &mut StdRng, n: usize) -> (Vec<f32>, Vec<E>) {
    let f: Vec<f32> = (0..n)
        .map(|_| E::round_f32(StandardNormal.sample(&mut *rng)))
        .collect();
    let e = f.iter().map(|&x| E::from_f64(x as f64)).collect();
    (f, e)
}

/// The masks and score modifiers of candle-flash-attn's dense functions (windows, ALiBi,
/// softcap), each call through the function a caller would pick, against the f64 reference
/// under the project's rule.
fn masked_case<E: Element>(rng: &mut StdRng, dev: &Device) -> f64 {
    let dtype = dtype_of::<E>();
    let (d, heads_q, heads_kv) = draw_heads::<E>(rng);
    let batch = rng.random_range(1..=2);
    let sq = rng.random_range(1..=260);
    let sk = if rng.random_bool(0.3) {
        sq
    } else {
        rng.random_range(1..=260)
    };
    // The function first (each of the four alike), then the options it takes.
    let function = rng.random_range(0..4);
    let (left, right) = if function == 1 {
        (None, None) // flash_attn_alibi: the causal flag alone
    } else {
        (draw_side(rng, sk), draw_side(rng, sk))
    };
    let causal = function == 1 && rng.random_bool(0.5);
    let alibi = matches!(function, 1 | 2) || (function == 3 && rng.random_bool(0.5));
    let softcap = if function == 3 && rng.random_bool(0.8) {
        rng.random_range(5.0..50.0f32)
    } else {
        0.0
    };
    let mut p = Problem::new(batch, sq, sk, heads_q, heads_kv, d, causal);
    if function != 1 {
        fa2_mask(&mut p, left, right, sk);
    }
    p.softcap = (softcap > 0.0).then_some(softcap);
    let slopes: Vec<f32> = (0..heads_q)
        .map(|_| rng.random_range(0.0..0.5f32))
        .collect();

    let (qd, qe) = draw_values::<E>(rng, batch * sq * heads_q * d);
    let (kd, ke) = draw_values::<E>(rng, batch * sk * heads_kv * d);
    let (vd, ve) = draw_values::<E>(rng, batch * sk * heads_kv * d);
    let q = place(&qd, (batch, sq, heads_q, d), dtype, View::Contiguous, dev);
    let k = place(&kd, (batch, sk, heads_kv, d), dtype, View::HeadsFirst, dev);
    let v = place(&vd, (batch, sk, heads_kv, d), dtype, View::Contiguous, dev);
    let slopes_t = Tensor::new(slopes.as_slice(), dev).unwrap();
    let scale = p.softmax_scale;
    let (o, via) = match function {
        0 => (
            flash_attn_windowed(&q, &k, &v, scale, left, right),
            "windowed",
        ),
        1 => (
            flash_attn_alibi(&q, &k, &v, &slopes_t, scale, causal),
            "alibi",
        ),
        2 => (
            flash_attn_alibi_windowed(&q, &k, &v, &slopes_t, scale, left, right),
            "alibi_windowed",
        ),
        _ => (
            flash_attn_alibi_windowed_softcap(
                &q,
                &k,
                &v,
                alibi.then_some(&slopes_t),
                scale,
                left,
                right,
                softcap,
            ),
            "alibi_windowed_softcap",
        ),
    };
    let o = o.unwrap();
    assert_eq!(o.dims(), &[batch, sq, heads_q, d]);
    let got = host_f64(&o);
    let heads = HeadParams {
        alibi_slopes: alibi.then_some(slopes.as_slice()),
        sinks: None,
    };
    let tq = TensorRef::new(&qe, Strides::bshd(sq, heads_q, d));
    let tk = TensorRef::new(&ke, Strides::bshd(sk, heads_kv, d));
    let tv = TensorRef::new(&ve, Strides::bshd(sk, heads_kv, d));
    let reference = flashattn_ref::reference_with(&p, tq, tk, tv, heads);
    let naive = flashattn_ref::naive_same_precision_with(&p, tq, tk, tv, heads);
    let c = flashattn_ref::check(&p, &got, None, &reference, &naive);
    println!(
        "masked {dtype:?} b{batch} sq{sq} sk{sk} hq{heads_q} hkv{heads_kv} d{d} causal={causal} window ({left:?}, {right:?}) alibi={alibi} softcap={softcap:.1} via {via}: ours {:.3e}, naive {:.3e}, ratio {:.3}",
        c.o_max_err, c.o_naive_err, c.ratio
    );
    assert!(
        c.pass,
        "{p:?} window ({left:?}, {right:?}) alibi={alibi} via {via}: {c}"
    );
    c.ratio
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn windows_alibi_and_softcap_match_the_reference() {
    let worst = worst_of(21, 40, masked_case::<bf16>, masked_case::<f16>);
    println!("worst over 40 masked cases: rule ratio {worst:.3} (pass <= 1)");
}

/// candle-flash-attn's varlen functions on packed batches (empty sequences among them), with
/// u32 or i32 offsets, against the reference sequence by sequence.
fn varlen_case<E: Element>(rng: &mut StdRng, dev: &Device) -> f64 {
    let dtype = dtype_of::<E>();
    let (d, heads_q, heads_kv) = draw_heads::<E>(rng);
    let batch = rng.random_range(1..=5);
    let (mut cu_q, mut cu_k) = (vec![0usize], vec![0usize]);
    for _ in 0..batch {
        let lq = if rng.random_bool(0.15) {
            0
        } else {
            rng.random_range(1..=200)
        };
        let lk = if rng.random_bool(0.1) {
            0
        } else if rng.random_bool(0.3) {
            lq
        } else {
            rng.random_range(1..=300)
        };
        cu_q.push(cu_q.last().unwrap() + lq);
        cu_k.push(cu_k.last().unwrap() + lk);
    }
    if *cu_q.last().unwrap() == 0 || *cu_k.last().unwrap() == 0 {
        // The launch layer needs a row in each tensor: give the last sequence one of each.
        let (b, lq, lk) = (batch, 1, 1);
        cu_q[b] += lq;
        cu_k[b] += lk;
    }
    let (total_q, total_k) = (cu_q[batch], cu_k[batch]);
    let lens = |cu: &[usize]| (0..batch).map(|b| cu[b + 1] - cu[b]).max().unwrap();
    let (max_q, max_k) = (lens(&cu_q), lens(&cu_k));
    let mode = rng.random_range(0..5);
    let (left, right) = (draw_side(rng, max_k), draw_side(rng, max_k));
    let causal = rng.random_bool(0.5);
    let softcap = if mode == 4 && rng.random_bool(0.5) {
        rng.random_range(5.0..50.0f32)
    } else {
        0.0
    };
    let alibi = matches!(mode, 2 | 3) || (mode == 4 && rng.random_bool(0.5));
    let mut p = Problem::new(1, max_q, max_k, heads_q, heads_kv, d, false);
    if matches!(mode, 0 | 2) {
        p.causal = causal;
    } else {
        fa2_mask(&mut p, left, right, max_k);
    }
    p.softcap = (softcap > 0.0).then_some(softcap);
    let slopes: Vec<f32> = (0..heads_q)
        .map(|_| rng.random_range(0.0..0.5f32))
        .collect();

    let (qd, qe) = draw_values::<E>(rng, total_q * heads_q * d);
    let (kd, ke) = draw_values::<E>(rng, total_k * heads_kv * d);
    let (vd, ve) = draw_values::<E>(rng, total_k * heads_kv * d);
    let packed = |data: &[f32], rows: usize, heads: usize| {
        Tensor::from_vec(data.to_vec(), (rows, heads, d), &Device::Cpu)
            .unwrap()
            .to_dtype(dtype)
            .unwrap()
            .to_device(dev)
            .unwrap()
    };
    let (q, k, v) = (
        packed(&qd, total_q, heads_q),
        packed(&kd, total_k, heads_kv),
        packed(&vd, total_k, heads_kv),
    );
    let signed = rng.random_bool(0.3);
    let offsets = |cu: &[usize]| {
        if signed {
            Tensor::new(
                cu.iter().map(|&x| x as i32).collect::<Vec<_>>().as_slice(),
                dev,
            )
            .unwrap()
        } else {
            Tensor::new(
                cu.iter().map(|&x| x as u32).collect::<Vec<_>>().as_slice(),
                dev,
            )
            .unwrap()
        }
    };
    let (sq_t, sk_t) = (offsets(&cu_q), offsets(&cu_k));
    let slopes_t = Tensor::new(slopes.as_slice(), dev).unwrap();
    let scale = p.softmax_scale;
    let mut lse = None;
    let (o, via) = match mode {
        0 => {
            // With the LSE too: the same O bit for bit.
            let (o, l) =
                flash_attn_varlen_with_lse(&q, &k, &v, &sq_t, &sk_t, max_q, max_k, scale, causal)
                    .unwrap();
            assert_eq!(l.dims(), &[heads_q, total_q]);
            lse = Some(l.flatten_all().unwrap().to_vec1::<f32>().unwrap());
            let plain =
                flash_attn_varlen(&q, &k, &v, &sq_t, &sk_t, max_q, max_k, scale, causal).unwrap();
            assert_eq!(
                host_f64(&plain),
                host_f64(&o),
                "flash_attn_varlen and _with_lse differ"
            );
            (Ok(o), "varlen (+ _with_lse)")
        }
        1 => (
            flash_attn_varlen_windowed(&q, &k, &v, &sq_t, &sk_t, max_q, max_k, scale, left, right),
            "varlen_windowed",
        ),
        2 => (
            flash_attn_varlen_alibi(
                &q, &k, &v, &slopes_t, &sq_t, &sk_t, max_q, max_k, scale, causal,
            ),
            "varlen_alibi",
        ),
        3 => (
            flash_attn_varlen_alibi_windowed(
                &q, &k, &v, &slopes_t, &sq_t, &sk_t, max_q, max_k, scale, left, right,
            ),
            "varlen_alibi_windowed",
        ),
        _ => (
            flash_attn_varlen_alibi_windowed_softcap(
                &q,
                &k,
                &v,
                alibi.then_some(&slopes_t),
                &sq_t,
                &sk_t,
                max_q,
                max_k,
                scale,
                left,
                right,
                softcap,
            ),
            "varlen_alibi_windowed_softcap",
        ),
    };
    let o = o.unwrap();
    assert_eq!(o.dims(), &[total_q, heads_q, d]);
    let got = host_f64(&o);
    let vl = flashattn_ref::Varlen {
        cu_seqlens_q: &cu_q,
        cu_seqlens_k: &cu_k,
        seqused_k: None,
    };
    let heads = HeadParams {
        alibi_slopes: alibi.then_some(slopes.as_slice()),
        sinks: None,
    };
    let tq = TensorRef::new(&qe, Strides::bshd(total_q, heads_q, d));
    let tk = TensorRef::new(&ke, Strides::bshd(total_k, heads_kv, d));
    let tv = TensorRef::new(&ve, Strides::bshd(total_k, heads_kv, d));
    let reference = flashattn_ref::reference_varlen(&p, &vl, tq, tk, tv, heads);
    let naive = flashattn_ref::naive_same_precision_varlen(&p, &vl, tq, tk, tv, heads);
    let c = flashattn_ref::check(
        &vl.packed_problem(&p),
        &got,
        lse.as_deref(),
        &reference,
        &naive,
    );
    println!(
        "varlen {dtype:?} seqs q {cu_q:?} k {cu_k:?} hq{heads_q} hkv{heads_kv} d{d} causal={} window ({:?}, {:?}) alibi={alibi} softcap={softcap:.1} i32={signed} via {via}: ours {:.3e}, naive {:.3e}, ratio {:.3}",
        p.causal, p.window_left, p.window_right, c.o_max_err, c.o_naive_err, c.ratio
    );
    assert!(c.pass, "{p:?} {cu_q:?} {cu_k:?} via {via}: {c}");
    c.ratio
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn varlen_functions_match_the_reference() {
    let worst = worst_of(22, 40, varlen_case::<bf16>, varlen_case::<f16>);
    println!("worst over 40 varlen cases: rule ratio {worst:.3} (pass <= 1)");
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn side_tensors_on_another_device_are_errors() {
    let dev = device();
    let q = Tensor::ones((1, 8, 2, 64), DType::BF16, &dev).unwrap();
    let slopes = Tensor::new(&[0.5f32, 0.25], &Device::Cpu).unwrap();
    let e = flash_attn_alibi(&q, &q, &q, &slopes, 0.125, true)
        .unwrap_err()
        .to_string();
    println!("alibi on the CPU: {e}");
    assert!(e.contains("alibi_slopes is on"), "{e}");
    let packed = Tensor::ones((8, 2, 64), DType::BF16, &dev).unwrap();
    let cu = Tensor::new(&[0u32, 8], &Device::Cpu).unwrap();
    let e = flash_attn_varlen(&packed, &packed, &packed, &cu, &cu, 8, 8, 0.125, true)
        .unwrap_err()
        .to_string();
    println!("offsets on the CPU: {e}");
    assert!(e.contains("seqlens_q is on"), "{e}");
    // The same call with the offsets on the device runs; a row of ones attends to ones.
    let cu = cu.to_device(&dev).unwrap();
    let o = flash_attn_varlen(&packed, &packed, &packed, &cu, &cu, 8, 8, 0.125, true).unwrap();
    assert!(host_f64(&o).iter().all(|&x| x == 1.0));
}
