//! The GPU merge of partial results: attention computed by the forward kernel over two
//! disjoint key ranges (with LSE), merged on the GPU, must match the CPU reference over all
//! keys under the project's rule, with the naive same-precision attention over all keys as the
//! yardstick. Run on a GPU with `--include-ignored`.

use cudarc::driver::{CudaSlice, CudaStream};
use flashattn::{
    AttentionParams, DType, MergeShape, RawState, RawTensor, Strides, Tensor, TensorMut,
};
use flashattn_fuzz::harness::{TestElement, gpu_stream};
use flashattn_ref as reference;
use half::{bf16, f16};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

struct Part<T> {
    o: CudaSlice<T>,
    lse: CudaSlice<f32>,
}

/// Forward attention of all queries over keys [lo, hi) (a view into K and V).
fn part<T: TestElement>(
    stream: &std::sync::Arc<CudaStream>,
    p: &AttentionParams,
    (q, k, v): (&CudaSlice<T>, &CudaSlice<T>, &CudaSlice<T>),
    (lo, hi): (usize, usize),
) -> Part<T> {
    let qs = Strides::bshd(p.seqlen_q, p.heads_q, p.head_dim);
    let ks = Strides::bshd(p.seqlen_k, p.heads_kv, p.head_dim);
    let sub = AttentionParams {
        seqlen_k: hi - lo,
        ..p.clone()
    };
    let off = lo * ks.row as usize;
    let mut o = stream
        .alloc_zeros::<T>(p.batch * p.seqlen_q * p.heads_q * p.head_dim)
        .unwrap();
    let mut lse = stream
        .alloc_zeros::<f32>(p.batch * p.heads_q * p.seqlen_q)
        .unwrap();
    flashattn::forward(
        stream,
        &sub,
        Tensor::new(q, qs),
        Tensor::new(&k.slice(off..), ks),
        Tensor::new(&v.slice(off..), ks),
        TensorMut::new(&mut o, qs),
        Some(&mut lse),
    )
    .unwrap();
    Part { o, lse }
}

fn run<T: TestElement>(
    stream: &std::sync::Arc<CudaStream>,
    p: &AttentionParams,
    split: usize,
    seed: u64,
) -> Result<f64, String> {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut random = |n: usize| {
        (0..n)
            .map(|_| T::from_f64(rng.random_range(-2.0..2.0)))
            .collect::<Vec<T>>()
    };
    let (nq, nk) = (
        p.batch * p.seqlen_q * p.heads_q * p.head_dim,
        p.batch * p.seqlen_k * p.heads_kv * p.head_dim,
    );
    let (q, k, v) = (random(nq), random(nk), random(nk));
    let (qd, kd, vd) = (
        stream.clone_htod(&q).unwrap(),
        stream.clone_htod(&k).unwrap(),
        stream.clone_htod(&v).unwrap(),
    );
    let a = part(stream, p, (&qd, &kd, &vd), (0, split));
    let b = part(stream, p, (&qd, &kd, &vd), (split, p.seqlen_k));
    let qs = Strides::bshd(p.seqlen_q, p.heads_q, p.head_dim);
    let shape = MergeShape {
        batch: p.batch,
        seqlen: p.seqlen_q,
        heads: p.heads_q,
        head_dim: p.head_dim,
    };
    let mut o = stream.clone_htod(&vec![T::from_bits(0xFFFF); nq]).unwrap();
    let mut lse = stream
        .clone_htod(&vec![f32::NAN; p.batch * p.heads_q * p.seqlen_q])
        .unwrap();
    flashattn::merge_states(
        stream,
        &shape,
        Tensor::new(&a.o, qs),
        &a.lse,
        Tensor::new(&b.o, qs),
        &b.lse,
        TensorMut::new(&mut o, qs),
        &mut lse,
    )
    .map_err(|e| e.to_string())?;
    stream.synchronize().unwrap();
    let got_o: Vec<T> = stream.clone_dtoh(&o).unwrap();
    let got_lse: Vec<f32> = stream.clone_dtoh(&lse).unwrap();

    // In place: merge a into b's buffers (the raw entry point allows out == an input exactly).
    let raw = |o: &CudaSlice<T>, l: &CudaSlice<f32>| {
        let (optr, _) = cudarc::driver::DevicePtr::device_ptr(o, stream);
        let (lptr, _) = cudarc::driver::DevicePtr::device_ptr(l, stream);
        RawState {
            o: RawTensor {
                ptr: optr,
                len: o.len(),
                dtype: T::DTYPE,
                strides: qs,
            },
            lse: lptr,
            lse_len: l.len(),
        }
    };
    let (ra, rb) = (raw(&a.o, &a.lse), raw(&b.o, &b.lse));
    // SAFETY: live buffers of the stated lengths, all used on `stream` only.
    unsafe { flashattn::merge_states_raw(stream, &shape, &ra, &rb, &rb) }
        .map_err(|e| e.to_string())?;
    let in_place: Vec<T> = stream.clone_dtoh(&b.o).unwrap();
    if in_place
        .iter()
        .zip(&got_o)
        .any(|(x, y)| x.bits() != y.bits())
    {
        return Err("in-place merge differs from the out-of-place one".into());
    }

    let problem = reference::Problem::new(
        p.batch, p.seqlen_q, p.seqlen_k, p.heads_q, p.heads_kv, p.head_dim, false,
    );
    let ks = reference::Strides::bshd(p.seqlen_k, p.heads_kv, p.head_dim);
    let rq = reference::Strides::bshd(p.seqlen_q, p.heads_q, p.head_dim);
    let want = reference::reference(
        &problem,
        reference::TensorRef::new(&q[..], rq),
        reference::TensorRef::new(&k[..], ks),
        reference::TensorRef::new(&v[..], ks),
    );
    let naive = reference::naive_same_precision(
        &problem,
        reference::TensorRef::new(&q[..], rq),
        reference::TensorRef::new(&k[..], ks),
        reference::TensorRef::new(&v[..], ks),
    );
    let got = reference::gather_bshd(
        reference::TensorRef::new(&got_o[..], rq),
        p.batch,
        p.seqlen_q,
        p.heads_q,
        p.head_dim,
    );
    let check = reference::check(&problem, &got, Some(&got_lse), &want, &naive);
    if check.pass {
        Ok(check.ratio)
    } else {
        Err(check.summary())
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn merged_halves_match_attention_over_all_keys() {
    let stream = gpu_stream().expect("a CUDA GPU");
    let mut failures = Vec::new();
    let mut worst: f64 = 0.0;
    let mut cases = 0;
    for dtype in [DType::F16, DType::BF16] {
        for d in flashattn::compiled_head_dims(dtype) {
            for (i, &(batch, sq, sk, hq, hkv, split)) in [
                (2, 113, 239, 4, 2, 100),
                (1, 1, 1023, 8, 1, 512),
                (3, 7, 2, 2, 2, 1),
                (1, 64, 4096, 4, 4, 17),
            ]
            .iter()
            .enumerate()
            {
                let p = AttentionParams {
                    heads_kv: hkv,
                    ..AttentionParams::new(batch, sq, sk, hq, d)
                };
                let seed = 31 + i as u64;
                let r = match dtype {
                    DType::F16 => run::<f16>(&stream, &p, split, seed),
                    DType::BF16 => run::<bf16>(&stream, &p, split, seed),
                };
                cases += 1;
                match r {
                    Ok(ratio) => worst = worst.max(ratio),
                    Err(e) => failures.push(format!("{dtype} d{d} {p:?} split {split}: {e}")),
                }
            }
        }
    }
    println!(
        "merge: {cases} cases, {} failed, worst error / bound {worst:.3}",
        failures.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
