//! Forward and decode calls back to back on one stream see each other's results. On sm_90 and
//! later the forward kernels and the decode split kernel are launched as programmatic dependents
//! of the kernel ahead of them: they are launched while that kernel still runs, and must touch
//! no global memory until it is done (cuda-src/common/launch.cuh). Two orders are checked against
//! the same calls with the host waiting for each one before launching the next (where nothing can
//! overlap), bit for bit: chains whose every call reads the previous call's O as its Q (read
//! after write; decode with and without its combine kernel), and a short call whose O overwrites
//! part of the K that a long call launched just before it reads last (write after read). Run on
//! a GPU with `--include-ignored`.

use std::sync::Arc;

use cudarc::driver::{CudaSlice, CudaStream};
use flashattn::{AttentionParams, DecodeParams, PagedKv, Strides, Tensor, TensorMut};
use flashattn_fuzz::harness::{TestElement, gpu_stream};
use flashattn_ref as reference;
use half::{bf16, f16};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// An NaN pattern in both element types: every output starts as it, so an output a kernel
/// never wrote (or wrote from inputs it read too early) cannot pass as data.
const POISON: u16 = 0xFFFF;

fn random<T: TestElement>(rng: &mut StdRng, n: usize) -> Vec<T> {
    (0..n)
        .map(|_| T::from_f64(rng.random_range(-2.0..2.0)))
        .collect()
}

fn poisoned<T: TestElement>(stream: &Arc<CudaStream>, n: usize) -> CudaSlice<T> {
    stream.clone_htod(&vec![T::from_bits(POISON); n]).unwrap()
}

fn all_finite<T: TestElement>(x: &[T]) -> bool {
    x.iter().all(|v| v.to_f64().is_finite())
}

/// How the host issues a sequence of calls.
#[derive(Clone, Copy, PartialEq)]
enum Issue {
    /// One after another, as fast as the host can: the kernels may overlap.
    BackToBack,
    /// The host waits for each call before the next: nothing overlaps.
    Serial,
}

/// `calls` calls issued by `issue`, each reading the previous call's output as its input (the
/// first reads `q`); every output, downloaded. `call(input, output)` launches one; each output
/// starts poisoned.
fn run_chain<T: TestElement>(
    stream: &Arc<CudaStream>,
    q: &[T],
    calls: usize,
    issue: Issue,
    mut call: impl FnMut(&CudaSlice<T>, &mut CudaSlice<T>),
) -> Vec<Vec<T>> {
    let q = stream.clone_htod(q).unwrap();
    let mut outs: Vec<CudaSlice<T>> = (0..calls).map(|_| poisoned(stream, q.len())).collect();
    stream.synchronize().unwrap();
    for i in 0..calls {
        let (before, rest) = outs.split_at_mut(i);
        call(if i == 0 { &q } else { &before[i - 1] }, &mut rest[0]);
        if issue == Issue::Serial {
            stream.synchronize().unwrap();
        }
    }
    stream.synchronize().unwrap();
    outs.iter().map(|o| stream.clone_dtoh(o).unwrap()).collect()
}

/// A forward chain (run_chain: each call's Q is the previous call's O); every O, and the
/// configuration the calls ran.
fn chain<T: TestElement>(
    stream: &Arc<CudaStream>,
    p: &AttentionParams,
    (q, k, v): (&[T], &[T], &[T]),
    calls: usize,
    issue: Issue,
) -> (Vec<Vec<T>>, &'static str) {
    let qs = Strides::bshd(p.seqlen_q, p.heads_q, p.head_dim);
    let ks = Strides::bshd(p.seqlen_k, p.heads_kv, p.head_dim);
    let (k, v) = (stream.clone_htod(k).unwrap(), stream.clone_htod(v).unwrap());
    let mut config = "";
    let outs = run_chain(stream, q, calls, issue, |input, output| {
        let info = flashattn::forward(
            stream,
            p,
            Tensor::new(input, qs),
            Tensor::new(&k, ks),
            Tensor::new(&v, ks),
            TensorMut::new(output, qs),
            None,
        )
        .unwrap();
        config = info.config.name;
    });
    (outs, config)
}

/// The long call `long` reads K = `k`, then the short call `short` writes its O over the first
/// rows of that same buffer. The long call's O, the short call's (now in the buffer) and the
/// configurations of both.
fn overwrite_after_read<T: TestElement>(
    stream: &Arc<CudaStream>,
    (long, short): (&AttentionParams, &AttentionParams),
    (q, k, v): (&[T], &[T], &[T]),
    issue: Issue,
) -> (Vec<T>, Vec<T>, [&'static str; 2]) {
    let qs = Strides::bshd(long.seqlen_q, long.heads_q, long.head_dim);
    let ks = Strides::bshd(long.seqlen_k, long.heads_kv, long.head_dim);
    let ss = Strides::bshd(short.seqlen_q, short.heads_q, short.head_dim);
    let short_len = short.seqlen_q * short.heads_q * short.head_dim;
    let q_d = stream.clone_htod(q).unwrap();
    let mut k_d = stream.clone_htod(k).unwrap();
    let v_d = stream.clone_htod(v).unwrap();
    let mut o = poisoned::<T>(stream, q.len());
    stream.synchronize().unwrap();
    let first = flashattn::forward(
        stream,
        long,
        Tensor::new(&q_d, qs),
        Tensor::new(&k_d, ks),
        Tensor::new(&v_d, ks),
        TensorMut::new(&mut o, qs),
        None,
    )
    .unwrap();
    if issue == Issue::Serial {
        stream.synchronize().unwrap();
    }
    // Q, K and V of the short call: the long call's own Q and V, read at the short shape.
    let mut target = k_d.slice_mut(0..short_len);
    let second = flashattn::forward(
        stream,
        short,
        Tensor::new(&q_d.slice(0..short_len), ss),
        Tensor::new(&v_d.slice(0..short_len), ss),
        Tensor::new(&v_d.slice(0..short_len), ss),
        TensorMut::new(&mut target, ss),
        None,
    )
    .unwrap();
    stream.synchronize().unwrap();
    let written = stream.clone_dtoh(&k_d.slice(0..short_len)).unwrap();
    (
        stream.clone_dtoh(&o).unwrap(),
        written,
        [first.config.name, second.config.name],
    )
}

/// A decode chain (run_chain: each call's one query row per head is the previous call's O)
/// against a contiguous cache, with `p.num_splits` key splits (1: the split kernel writes O
/// itself; more: a combine kernel follows it); every O.
fn decode_chain<T: TestElement>(
    stream: &Arc<CudaStream>,
    p: &DecodeParams,
    (q, k, v): (&[T], &[T], &[T]),
    calls: usize,
    issue: Issue,
) -> Vec<Vec<T>> {
    let facts = flashattn::device_facts(stream.context()).unwrap();
    let qs = Strides::bshd(1, p.heads_q, p.head_dim);
    let ks = Strides::bshd(p.seqlen_k, p.heads_kv, p.head_dim);
    let (k, v) = (stream.clone_htod(k).unwrap(), stream.clone_htod(v).unwrap());
    let splits = p.num_splits.unwrap_or(1);
    let mut ws: CudaSlice<f32> = stream
        .alloc_zeros(flashattn::decode_workspace_len(p, splits).max(1))
        .unwrap();
    run_chain(stream, q, calls, issue, |input, output| {
        flashattn::decode(
            stream,
            &facts,
            p,
            Tensor::new(input, qs),
            Tensor::new(&k, ks),
            Tensor::new(&v, ks),
            None::<PagedKv<'_, CudaSlice<i32>>>,
            None::<&CudaSlice<i32>>,
            TensorMut::new(output, qs),
            None,
            Some(&mut ws),
        )
        .unwrap();
    })
}

fn decode_chains<T: TestElement>(stream: &Arc<CudaStream>, failures: &mut Vec<String>) -> usize {
    let dtype = T::DTYPE;
    let mut cases = 0;
    for (i, &(batch, seqlen_k, heads_q, heads_kv, head_dim, splits)) in [
        (4, 4096, 32, 8, 128, 1),
        (1, 8192, 32, 8, 128, 8),
        (2, 1023, 8, 8, 64, 3),
    ]
    .iter()
    .enumerate()
    {
        if !flashattn::compiled_head_dims(dtype).contains(&head_dim) {
            continue;
        }
        let p = DecodeParams {
            num_splits: Some(splits),
            ..DecodeParams::new(batch, seqlen_k, heads_q, heads_kv, head_dim)
        };
        let (q, k, v) = random_qkv::<T>(
            80 + i as u64,
            batch * heads_q * head_dim,
            batch * seqlen_k * heads_kv * head_dim,
        );
        let fast = decode_chain(stream, &p, (&q, &k, &v), 4, Issue::BackToBack);
        let serial = decode_chain(stream, &p, (&q, &k, &v), 4, Issue::Serial);
        cases += 1;
        let name = format!("{dtype} decode {p:?}");
        println!("stream order: decode chain of 4 on {name}");
        if let Some(e) = first_difference(&fast, &serial, |i| format!("call {i}")) {
            failures.push(format!("{name}: {e}"));
        }
    }
    cases
}

fn same_bits<T: TestElement>(a: &[T], b: &[T]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.bits() == y.bits())
}

/// What is wrong with the outputs of a back-to-back run against the serial run's, output by
/// output (`what(i)` names output i), or None.
fn first_difference<T: TestElement>(
    fast: &[Vec<T>],
    serial: &[Vec<T>],
    what: impl Fn(usize) -> String,
) -> Option<String> {
    if let Some(bad) = fast.iter().position(|o| !all_finite(o)) {
        return Some(format!("{} back to back is not finite", what(bad)));
    }
    (0..fast.len())
        .find(|&i| !same_bits(&fast[i], &serial[i]))
        .map(|bad| format!("{} back to back differs from the serial run", what(bad)))
}

/// Q (`nq` elements), K and V (`nk` each), uniform in [-2, 2), from `seed`.
fn random_qkv<T: TestElement>(seed: u64, nq: usize, nk: usize) -> (Vec<T>, Vec<T>, Vec<T>) {
    let mut rng = StdRng::seed_from_u64(seed);
    (
        random(&mut rng, nq),
        random(&mut rng, nk),
        random(&mut rng, nk),
    )
}

fn chains<T: TestElement>(stream: &Arc<CudaStream>, failures: &mut Vec<String>) -> usize {
    let dtype = T::DTYPE;
    let mut cases = 0;
    // (batch, seqlen, heads_q, heads_kv, head_dim, causal): the f16 seed shapes that run the
    // persistent warp-specialized tile, the one-warpgroup Hopper tile and the portable tile on
    // the H100's table, a multi-wave non-persistent causal launch, and a small GQA one.
    let shapes = [
        (8, 512, 16, 16, 64, false),
        (4, 512, 16, 16, 64, false),
        (1, 512, 8, 8, 64, false),
        (2, 1023, 8, 2, 128, true),
        (1, 113, 4, 1, 256, false),
    ];
    for (i, &(batch, seqlen, heads_q, heads_kv, head_dim, causal)) in shapes.iter().enumerate() {
        if !flashattn::compiled_head_dims(dtype).contains(&head_dim) {
            continue;
        }
        let p = AttentionParams {
            heads_kv,
            causal,
            ..AttentionParams::new(batch, seqlen, seqlen, heads_q, head_dim)
        };
        let (q, k, v) = random_qkv::<T>(
            70 + i as u64,
            batch * seqlen * heads_q * head_dim,
            batch * seqlen * heads_kv * head_dim,
        );
        let (fast, config) = chain(stream, &p, (&q, &k, &v), 4, Issue::BackToBack);
        let (serial, _) = chain(stream, &p, (&q, &k, &v), 4, Issue::Serial);
        cases += 1;
        let name = format!("{dtype} {p:?} ({config})");
        println!("stream order: chain of 4 on {name}");
        if let Some(e) = first_difference(&fast, &serial, |i| format!("call {i}")) {
            failures.push(format!("{name}: {e}"));
        }
        // The serial run itself is right: its first call against the reference (the later
        // calls are the same kernel on other inputs).
        if i == shapes.len() - 1 {
            let problem = flashattn_fuzz::harness::reference_problem(&p);
            let (qs, ks) = (
                reference::Strides::bshd(seqlen, heads_q, head_dim),
                reference::Strides::bshd(seqlen, heads_kv, head_dim),
            );
            let args = (
                reference::TensorRef::new(&q[..], qs),
                reference::TensorRef::new(&k[..], ks),
                reference::TensorRef::new(&v[..], ks),
            );
            let want = reference::reference(&problem, args.0, args.1, args.2);
            let naive = reference::naive_same_precision(&problem, args.0, args.1, args.2);
            let got = reference::gather_bshd(
                reference::TensorRef::new(&serial[0][..], qs),
                batch,
                seqlen,
                heads_q,
                head_dim,
            );
            let check = reference::check(&problem, &got, None, &want, &naive);
            if !check.pass {
                failures.push(format!(
                    "{name}: first call against the reference: {}",
                    check.summary()
                ));
            }
        }
    }
    cases
}

fn overwrites<T: TestElement>(stream: &Arc<CudaStream>, failures: &mut Vec<String>) -> usize {
    let dtype = T::DTYPE;
    if !flashattn::compiled_head_dims(dtype).contains(&128) {
        return 0;
    }
    // Every query tile of the long call walks its keys from the last tile down, so the rows
    // the short call overwrites (batch 0's first 64 keys) are read at the end of each walk.
    let long = AttentionParams::new(2, 4096, 4096, 8, 128);
    let short = AttentionParams::new(1, 64, 64, 8, 128);
    let n = 2 * 4096 * 8 * 128;
    let (q, k, v) = random_qkv::<T>(90, n, n);
    let (fast_o, fast_written, configs) =
        overwrite_after_read(stream, (&long, &short), (&q, &k, &v), Issue::BackToBack);
    let (serial_o, serial_written, _) =
        overwrite_after_read(stream, (&long, &short), (&q, &k, &v), Issue::Serial);
    let name = format!(
        "{dtype} {long:?} ({}) then {short:?} ({})",
        configs[0], configs[1]
    );
    println!("stream order: overwrite after read on {name}");
    let outputs = |i: usize| ["the long call's O", "the short call's O"][i].to_string();
    if let Some(e) = first_difference(
        &[fast_o, fast_written],
        &[serial_o, serial_written],
        outputs,
    ) {
        failures.push(format!("{name}: {e}"));
    }
    1
}

fn every_case<T: TestElement>(stream: &Arc<CudaStream>, failures: &mut Vec<String>) -> usize {
    chains::<T>(stream, failures)
        + overwrites::<T>(stream, failures)
        + decode_chains::<T>(stream, failures)
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn calls_back_to_back_see_each_others_results() {
    let stream = gpu_stream().expect("a CUDA GPU");
    let mut failures = Vec::new();
    let cases =
        every_case::<f16>(&stream, &mut failures) + every_case::<bf16>(&stream, &mut failures);
    println!("stream order: {cases} cases, {} failed", failures.len());
    assert!(cases > 0, "no head dim of the cases is compiled");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
