//! The decode kernel against the CPU reference: contiguous and paged caches (page sizes 16 to
//! 256, permuted block tables with spare pages), per-sequence key counts (empty sequences
//! included), GQA groups, a few query rows with and without the causal mask, forced and
//! automatic split counts, sequence-major and heads-major caches, block-table entries outside the
//! cache (their keys are skipped). Each sequence is checked under the project's rule against the f64
//! reference over its own keys, with the naive same-precision attention as the yardstick;
//! outputs start poisoned (NaN); each call is made twice and must repeat its bits. A second test
//! prints bandwidth figures. Run on a GPU with `--include-ignored`.

use std::sync::Arc;
use std::time::Instant;

use cudarc::driver::{CudaSlice, CudaStream};
use flashattn::{DType, DecodeParams, DeviceFacts, PagedKv, Strides, Tensor, TensorMut};
use flashattn_fuzz::harness::{TestElement, gpu_stream, holds_bits};
use flashattn_ref as reference;
use half::{bf16, f16};
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};

/// One decode problem as the test builds it.
#[derive(Clone, Debug)]
struct Case {
    batch: usize,
    seqlen_q: usize,
    heads_q: usize,
    heads_kv: usize,
    head_dim: usize,
    causal: bool,
    /// Keys per sequence.
    lens: Vec<usize>,
    /// Some(page size): a paged cache.
    page_size: Option<usize>,
    /// Pass the lengths to the kernel (else every sequence has the longest length).
    with_seqlens: bool,
    num_splits: Option<usize>,
    /// K/V heads-major: `[batch, heads_kv, seqlen, d]`, pages `[pages, heads_kv, page_size, d]`.
    heads_major: bool,
    /// Paged, not causal: one used block-table entry of one sequence points outside the cache;
    /// the kernel skips that page's keys, and the reference is given the sequence without them.
    corrupt_page: bool,
}

/// `[outer, seq, heads, d]` rearranged as `[outer, heads, seq, d]`.
fn heads_major<T: Copy>(x: &[T], seq: usize, heads: usize, d: usize) -> Vec<T> {
    let mut out = x.to_vec();
    for (o, chunk) in x.chunks(seq * heads * d).enumerate() {
        for s in 0..seq {
            for h in 0..heads {
                let src = (s * heads + h) * d;
                let dst = o * seq * heads * d + (h * seq + s) * d;
                out[dst..dst + d].copy_from_slice(&chunk[src..src + d]);
            }
        }
    }
    out
}

fn facts(stream: &Arc<CudaStream>) -> Arc<DeviceFacts> {
    flashattn::device_facts(stream.context()).unwrap()
}

fn run<T: TestElement>(stream: &Arc<CudaStream>, c: &Case, seed: u64) -> Result<f64, String> {
    let mut rng = StdRng::seed_from_u64(seed);
    let d = c.head_dim;
    let max_len = *c.lens.iter().max().unwrap();
    let lens: Vec<usize> = if c.with_seqlens {
        c.lens.clone()
    } else {
        vec![max_len; c.batch]
    };
    let random = |n: usize, rng: &mut StdRng| {
        (0..n)
            .map(|_| T::from_f64(rng.random_range(-2.0..2.0)))
            .collect::<Vec<T>>()
    };
    let row = c.heads_kv * d;
    // Per sequence, its keys and values contiguous [len, heads_kv, d] (what the reference sees).
    let mut seq_k: Vec<Vec<T>> = lens.iter().map(|&l| random(l * row, &mut rng)).collect();
    let mut seq_v: Vec<Vec<T>> = lens.iter().map(|&l| random(l * row, &mut rng)).collect();
    let mut ref_lens = lens.clone();
    let q = random(c.batch * c.seqlen_q * c.heads_q * d, &mut rng);

    // The cache as the kernel sees it.
    let (k_cache, v_cache, kv_strides, table) = match c.page_size {
        None => {
            let mut k = vec![T::from_f64(0.0); c.batch * max_len.max(1) * row];
            let mut v = k.clone();
            for b in 0..c.batch {
                let at = b * max_len * row;
                k[at..at + lens[b] * row].copy_from_slice(&seq_k[b]);
                v[at..at + lens[b] * row].copy_from_slice(&seq_v[b]);
            }
            if c.heads_major {
                let (k, v) = (
                    heads_major(&k, max_len, c.heads_kv, d),
                    heads_major(&v, max_len, c.heads_kv, d),
                );
                (k, v, Strides::bhsd(max_len, c.heads_kv, d), None)
            } else {
                (k, v, Strides::bshd(max_len, c.heads_kv, d), None)
            }
        }
        Some(ps) => {
            let width = max_len.div_ceil(ps);
            let used: usize = lens.iter().map(|l| l.div_ceil(ps)).sum();
            // Spare pages, shuffled: the table, not the order, decides where keys live.
            let num_pages = used + 3;
            let mut order: Vec<usize> = (0..num_pages).collect();
            order.shuffle(&mut rng);
            let mut k = random(num_pages * ps * row, &mut rng);
            let mut v = random(num_pages * ps * row, &mut rng);
            // Unused table entries hold -1, or a valid page for keys past the sequence's end.
            let mut table = vec![-1i32; c.batch * width.max(1)];
            let mut next = 0;
            for b in 0..c.batch {
                for slot in 0..lens[b].div_ceil(ps) {
                    let page = order[next];
                    next += 1;
                    table[b * width + slot] = page as i32;
                    let keys = (lens[b] - slot * ps).min(ps);
                    let src = slot * ps * row..(slot * ps + keys) * row;
                    let dst = page * ps * row;
                    k[dst..dst + keys * row].copy_from_slice(&seq_k[b][src.clone()]);
                    v[dst..dst + keys * row].copy_from_slice(&seq_v[b][src]);
                }
                if c.with_seqlens && lens[b] < max_len {
                    for slot in lens[b].div_ceil(ps)..width {
                        table[b * width + slot] = order[num_pages - 1] as i32;
                    }
                }
            }
            if c.corrupt_page {
                let b = (0..c.batch).find(|&b| lens[b] > 0).unwrap();
                let slot = rng.random_range(0..lens[b].div_ceil(ps));
                table[b * width + slot] = if slot % 2 == 0 {
                    -7
                } else {
                    num_pages as i32 + 5
                };
                let gone = slot * ps * row..((slot + 1) * ps).min(lens[b]) * row;
                ref_lens[b] -= gone.len() / row;
                seq_k[b].drain(gone.clone());
                seq_v[b].drain(gone);
            }
            if c.heads_major {
                let (k, v) = (
                    heads_major(&k, ps, c.heads_kv, d),
                    heads_major(&v, ps, c.heads_kv, d),
                );
                (
                    k,
                    v,
                    Strides::bhsd(ps, c.heads_kv, d),
                    Some((table, width, num_pages)),
                )
            } else {
                (
                    k,
                    v,
                    Strides::bshd(ps, c.heads_kv, d),
                    Some((table, width, num_pages)),
                )
            }
        }
    };

    let p = DecodeParams {
        seqlen_q: c.seqlen_q,
        causal: c.causal,
        num_splits: c.num_splits,
        ..DecodeParams::new(c.batch, max_len, c.heads_q, c.heads_kv, d)
    };
    let facts = facts(stream);
    let splits = flashattn::decode_splits(&p, &facts);
    let qs = Strides::bshd(c.seqlen_q, c.heads_q, d);
    let nq = q.len();
    let qd = stream.clone_htod(&q).unwrap();
    let kd = stream.clone_htod(&k_cache).unwrap();
    let vd = stream.clone_htod(&v_cache).unwrap();
    // NaN-poisoned outputs (0x7FFF is NaN in f16 and bf16), before each of the two calls.
    let o_init = vec![T::from_bits(0x7FFF); nq];
    let rows = c.batch * c.heads_q * c.seqlen_q;
    let lse_init = vec![f32::NAN; rows];
    let mut od = stream.clone_htod(&o_init).unwrap();
    let mut lse = stream.clone_htod(&lse_init).unwrap();
    let mut ws: CudaSlice<f32> = stream
        .clone_htod(&vec![
            f32::NAN;
            flashattn::decode_workspace_len(&p, splits).max(1)
        ])
        .unwrap();
    let lens_i32: Vec<i32> = lens.iter().map(|&l| l as i32).collect();
    let lens_d = stream.clone_htod(&lens_i32).unwrap();
    let table_d = table
        .as_ref()
        .map(|(t, _, _)| stream.clone_htod(t).unwrap());
    let call = |od: &mut CudaSlice<T>, lse: &mut CudaSlice<f32>, ws: &mut CudaSlice<f32>| {
        let paged = match (&table, &table_d) {
            (Some((_, width, num_pages)), Some(td)) => Some(PagedKv {
                block_table: td,
                width: *width,
                page_size: c.page_size.unwrap(),
                num_pages: *num_pages,
            }),
            _ => None,
        };
        flashattn::decode(
            stream,
            &facts,
            &p,
            Tensor::new(&qd, qs),
            Tensor::new(&kd, kv_strides),
            Tensor::new(&vd, kv_strides),
            paged,
            c.with_seqlens.then_some(&lens_d),
            TensorMut::new(od, qs),
            Some(lse),
            Some(ws),
        )
        .map_err(|e| format!("launch: {e}"))?;
        stream.synchronize().map_err(|e| e.to_string())
    };
    call(&mut od, &mut lse, &mut ws)?;
    let got_o: Vec<T> = stream.clone_dtoh(&od).unwrap();
    let got_lse: Vec<f32> = stream.clone_dtoh(&lse).unwrap();
    // The same call again, O and LSE poisoned again, the workspace as the first call left it: the
    // same bits (README, "Determinism").
    stream.memcpy_htod(&o_init, &mut od).unwrap();
    stream.memcpy_htod(&lse_init, &mut lse).unwrap();
    call(&mut od, &mut lse, &mut ws)?;
    if !holds_bits(stream, &od, &lse, &got_o, &got_lse).map_err(|e| e.to_string())? {
        return Err("a second call did not repeat the first's O and LSE bit for bit".into());
    }

    // Check sequence by sequence against the reference over its own keys.
    let mut worst: f64 = 0.0;
    let seq_q = c.seqlen_q * c.heads_q * d;
    for b in 0..c.batch {
        let o_b = &got_o[b * seq_q..(b + 1) * seq_q];
        let lse_b: Vec<f32> = (0..c.heads_q * c.seqlen_q)
            .map(|i| got_lse[b * c.heads_q * c.seqlen_q + i])
            .collect();
        if ref_lens[b] == 0 {
            if o_b.iter().any(|x| x.to_f64() != 0.0)
                || lse_b.iter().any(|&l| l != f32::NEG_INFINITY)
            {
                return Err(format!(
                    "sequence {b} has no keys but O != 0 or LSE != -inf"
                ));
            }
            continue;
        }
        let mut problem = reference::Problem::new(
            1,
            c.seqlen_q,
            ref_lens[b],
            c.heads_q,
            c.heads_kv,
            d,
            c.causal,
        );
        problem.softmax_scale = 1.0 / (d as f32).sqrt();
        let rq = reference::Strides::bshd(c.seqlen_q, c.heads_q, d);
        let rk = reference::Strides::bshd(ref_lens[b], c.heads_kv, d);
        let q_b = &q[b * seq_q..(b + 1) * seq_q];
        let args = (
            reference::TensorRef::new(q_b, rq),
            reference::TensorRef::new(&seq_k[b][..], rk),
            reference::TensorRef::new(&seq_v[b][..], rk),
        );
        let want = reference::reference(&problem, args.0, args.1, args.2);
        let naive = reference::naive_same_precision(&problem, args.0, args.1, args.2);
        let got = reference::gather_bshd(
            reference::TensorRef::new(o_b, rq),
            1,
            c.seqlen_q,
            c.heads_q,
            d,
        );
        let check = reference::check(&problem, &got, Some(&lse_b), &want, &naive);
        if !check.pass {
            return Err(format!(
                "sequence {b} ({} keys): {}",
                ref_lens[b],
                check.summary()
            ));
        }
        worst = worst.max(check.ratio);
    }
    Ok(worst)
}

fn random_case(rng: &mut StdRng, dtype: DType) -> Case {
    let dims = flashattn::compiled_head_dims(dtype);
    let head_dim = dims[rng.random_range(0..dims.len())];
    let (heads_q, heads_kv) =
        [(32, 8), (4, 4), (8, 1), (6, 2), (1, 1), (16, 2)][rng.random_range(0..6)];
    let batch = [1, 2, 3, 5][rng.random_range(0..4)];
    let seqlen_q = [1, 1, 1, 2, 3, 5][rng.random_range(0..6)];
    let awkward = [1, 7, 113, 239, 1023, 257, 4000, 16];
    let with_seqlens = rng.random_bool(0.5);
    let lens: Vec<usize> = (0..batch)
        .map(|_| {
            if with_seqlens && rng.random_bool(0.15) {
                0
            } else if rng.random_bool(0.5) {
                awkward[rng.random_range(0..awkward.len())]
            } else {
                rng.random_range(1..3000)
            }
        })
        .collect();
    let lens = if lens.iter().all(|&l| l == 0) {
        vec![1; batch]
    } else {
        lens
    };
    let causal = rng.random_bool(0.5);
    let page_size = [None, None, Some(16), Some(48), Some(64), Some(256)][rng.random_range(0..6)];
    Case {
        batch,
        seqlen_q,
        heads_q,
        heads_kv,
        head_dim,
        causal,
        lens,
        page_size,
        with_seqlens,
        num_splits: [None, None, Some(1), Some(3), Some(17)][rng.random_range(0..5)],
        heads_major: rng.random_bool(0.5),
        // Causal alignment counts the skipped keys, which the shortened reference cannot.
        corrupt_page: page_size.is_some() && !causal && rng.random_bool(0.25),
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn decode_matches_the_reference_on_random_caches() {
    let stream = gpu_stream().expect("a CUDA GPU");
    let cases: usize = std::env::var("FLASHATTN_DECODE_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(200);
    let mut rng = StdRng::seed_from_u64(0xDEC0DE);
    let mut failures = Vec::new();
    let mut worst: f64 = 0.0;
    for i in 0..cases {
        let dtype = if i % 2 == 0 { DType::F16 } else { DType::BF16 };
        let case = random_case(&mut rng, dtype);
        let seed = 1000 + i as u64;
        let r = match dtype {
            DType::F16 => run::<f16>(&stream, &case, seed),
            DType::BF16 => run::<bf16>(&stream, &case, seed),
        };
        match r {
            Ok(ratio) => worst = worst.max(ratio),
            Err(e) => failures.push(format!("{dtype} {case:?}: {e}")),
        }
    }
    println!(
        "decode: {cases} cases, {} failed, worst error / bound {worst:.3}",
        failures.len()
    );
    assert!(
        failures.is_empty(),
        "{}",
        failures[..failures.len().min(10)].join("\n")
    );
}

/// KV bytes read per second for the decode shapes (bf16, d128, 32 query heads on 8 KV
/// heads, one query row), contiguous and paged, beside a device-to-device copy of the same
/// bytes: a quick figure, not the benchmark suite.
#[test]
#[ignore = "needs a CUDA GPU"]
fn decode_bandwidth_report() {
    let stream = gpu_stream().expect("a CUDA GPU");
    let facts = facts(&stream);
    let (hq, hkv, d) = (32, 8, 128);
    for &batch in &[1usize, 8, 64] {
        for &sk in &[512usize, 4096, 32768] {
            let kv_elems = batch * sk * hkv * d;
            let k: CudaSlice<bf16> = stream.alloc_zeros(kv_elems).unwrap();
            let v: CudaSlice<bf16> = stream.alloc_zeros(kv_elems).unwrap();
            let q: CudaSlice<bf16> = stream.alloc_zeros(batch * hq * d).unwrap();
            let mut o: CudaSlice<bf16> = stream.alloc_zeros(batch * hq * d).unwrap();
            let p = DecodeParams::new(batch, sk, hq, hkv, d);
            let splits = flashattn::decode_splits(&p, &facts);
            let mut ws: CudaSlice<f32> = stream
                .alloc_zeros(flashattn::decode_workspace_len(&p, splits).max(1))
                .unwrap();
            let qs = Strides::bshd(1, hq, d);
            let time = |f: &mut dyn FnMut()| {
                for _ in 0..3 {
                    f();
                }
                stream.synchronize().unwrap();
                let iters = 50;
                let t = Instant::now();
                for _ in 0..iters {
                    f();
                }
                stream.synchronize().unwrap();
                t.elapsed().as_secs_f64() / iters as f64
            };
            let mut line = format!("decode b{batch} sk{sk} splits {splits}:");
            let bytes = 2.0 * kv_elems as f64 * 2.0;
            for page in [None, Some(16usize), Some(64), Some(256)] {
                let (table, width, pages) = match page {
                    None => (None, 0, 0),
                    Some(ps) => {
                        let width = sk.div_ceil(ps);
                        let pages = batch * width;
                        let t: Vec<i32> = (0..pages as i32).collect();
                        (Some(stream.clone_htod(&t).unwrap()), width, pages)
                    }
                };
                let kv_strides = match page {
                    None => Strides::bshd(sk, hkv, d),
                    Some(ps) => Strides::bshd(ps, hkv, d),
                };
                let secs = time(&mut || {
                    let paged = table.as_ref().map(|t| PagedKv {
                        block_table: t,
                        width,
                        page_size: page.unwrap(),
                        num_pages: pages,
                    });
                    flashattn::decode(
                        &stream,
                        &facts,
                        &p,
                        Tensor::new(&q, qs),
                        Tensor::new(&k, kv_strides),
                        Tensor::new(&v, kv_strides),
                        paged,
                        None::<&CudaSlice<i32>>,
                        TensorMut::new(&mut o, qs),
                        None,
                        Some(&mut ws),
                    )
                    .unwrap();
                });
                let name = page.map_or("contiguous".to_string(), |ps| format!("page{ps}"));
                line += &format!(
                    " {name} {:.1} us {:.0} GB/s;",
                    secs * 1e6,
                    bytes / secs / 1e9
                );
            }
            // The copy: read and write the same number of bytes as K and V hold.
            let mut dst: CudaSlice<bf16> = stream.alloc_zeros(kv_elems).unwrap();
            let secs = time(&mut || {
                stream.memcpy_dtod(&k, &mut dst).unwrap();
                stream.memcpy_dtod(&v, &mut dst).unwrap();
            });
            line += &format!(" copy {:.0} GB/s (read + write)", 2.0 * bytes / secs / 1e9);
            println!("{line}");
        }
    }
}
