//! Times the CPU reference, the naive baseline and the check on one problem,
//! to keep an eye on how long GPU tests spend on the CPU side.
//!
//! Usage: `cargo run --release -p flashattn-ref --example ref_timing --
//! [seqlen] [heads] [head_dim] [causal: 0|1] [dtype: f16|bf16|f32]`
//! (defaults: 2048 2 128 0 f16).

use std::time::Instant;

use flashattn_ref::{Element, Problem, Strides, TensorRef, check, naive_same_precision, reference};
use half::{bf16, f16};
use rand::SeedableRng;
use rand::rngs::StdRng;
use rand_distr::{Distribution, StandardNormal};

fn random<E: Element>(rng: &mut StdRng, n: usize) -> Vec<E> {
    (0..n)
        .map(|_| E::from_f64(StandardNormal.sample(rng)))
        .collect()
}

fn run<E: Element>(p: &Problem) {
    let mut rng = StdRng::seed_from_u64(1);
    let qs = Strides::bshd(p.seqlen_q, p.heads_q, p.head_dim);
    let ks = Strides::bshd(p.seqlen_k, p.heads_kv, p.head_dim);
    let q = random::<E>(
        &mut rng,
        qs.required_len(p.batch, p.seqlen_q, p.heads_q, p.head_dim),
    );
    let k = random::<E>(
        &mut rng,
        ks.required_len(p.batch, p.seqlen_k, p.heads_kv, p.head_dim),
    );
    let v = random::<E>(&mut rng, k.len());
    let (q, k, v) = (
        TensorRef::new(&q, qs),
        TensorRef::new(&k, ks),
        TensorRef::new(&v, ks),
    );

    let t = Instant::now();
    let r = reference(p, q, k, v);
    let t_ref = t.elapsed();
    let t = Instant::now();
    let n = naive_same_precision(p, q, k, v);
    let t_naive = t.elapsed();
    let t = Instant::now();
    let lse: Vec<f32> = n.lse.iter().map(|&x| x as f32).collect();
    let c = check(p, &n.o, Some(&lse), &r, &n);
    let t_check = t.elapsed();

    let gflop = p.flops() / 1e9;
    println!("{} {p:?}", E::NAME);
    println!(
        "reference: {:8.3} s ({:.2} GFLOP/s)",
        t_ref.as_secs_f64(),
        gflop / t_ref.as_secs_f64()
    );
    println!(
        "naive:     {:8.3} s ({:.2} GFLOP/s)",
        t_naive.as_secs_f64(),
        gflop / t_naive.as_secs_f64()
    );
    println!("check:     {:8.3} s", t_check.as_secs_f64());
    println!("naive vs reference: {c}");
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let num = |i: usize, default: usize| -> usize {
        args.get(i)
            .map(|s| s.parse().expect("numeric argument"))
            .unwrap_or(default)
    };
    let (s, h, d) = (num(0, 2048), num(1, 2), num(2, 128));
    let causal = num(3, 0) != 0;
    let p = Problem::new(1, s, s, h, h, d, causal);
    match args.get(4).map(String::as_str).unwrap_or("f16") {
        "f16" => run::<f16>(&p),
        "bf16" => run::<bf16>(&p),
        "f32" => run::<f32>(&p),
        other => panic!("unknown dtype {other}"),
    }
}
