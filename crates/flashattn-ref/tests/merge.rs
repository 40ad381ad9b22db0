//! The merge identity the GPU merge relies on: attention over all keys equals the merge of
//! attention over two disjoint parts.

use flashattn_ref::{Output, Problem, Strides, TensorRef, merge, reference};

fn lcg(seed: &mut u64) -> f32 {
    *seed = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    ((*seed >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0
}

fn max_diff(a: &[f64], b: &[f64]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(x, y)| if x == y { 0.0 } else { (x - y).abs() })
        .fold(0.0, f64::max)
}

#[test]
fn attention_over_all_keys_is_the_merge_of_two_parts() {
    let (batch, sq, sk, hq, hkv, d) = (2, 5, 37, 4, 2, 16);
    let mut seed = 7;
    let mut random = |n: usize| (0..n).map(|_| lcg(&mut seed) * 2.0).collect::<Vec<f32>>();
    let q = random(batch * sq * hq * d);
    let k = random(batch * sk * hkv * d);
    let v = random(batch * sk * hkv * d);
    let qs = Strides::bshd(sq, hq, d);
    let ks = Strides::bshd(sk, hkv, d);
    let full = reference(
        &Problem::new(batch, sq, sk, hq, hkv, d, false),
        TensorRef::new(&q, qs),
        TensorRef::new(&k, ks),
        TensorRef::new(&v, ks),
    );
    for split in [1, 13, 36] {
        let part = |lo: usize, hi: usize| {
            let off = lo * ks.row as usize;
            let p = Problem::new(batch, sq, hi - lo, hq, hkv, d, false);
            reference(
                &p,
                TensorRef::new(&q, qs),
                TensorRef::new(&k[off..], ks),
                TensorRef::new(&v[off..], ks),
            )
        };
        let merged = merge(&part(0, split), &part(split, sk), batch, sq, hq, d);
        assert!(
            max_diff(&merged.o, &full.o) < 1e-12,
            "split {split}: O {}",
            max_diff(&merged.o, &full.o)
        );
        assert!(
            max_diff(&merged.lse, &full.lse) < 1e-12,
            "split {split}: LSE"
        );
    }
}

#[test]
fn a_part_that_saw_no_key_changes_nothing() {
    let a = Output {
        o: vec![0.25, -3.0, 7.5, 1.0],
        lse: vec![1.5, -0.5],
    };
    let empty = Output {
        o: vec![f64::NAN; 4],
        lse: vec![f64::NEG_INFINITY; 2],
    };
    let m = merge(&a, &empty, 1, 2, 1, 2);
    assert_eq!(m.o, a.o);
    assert_eq!(m.lse, a.lse);
    let both_empty = merge(&empty, &empty, 1, 2, 1, 2);
    assert_eq!(both_empty.o, vec![0.0; 4]);
    assert!(both_empty.lse.iter().all(|&l| l == f64::NEG_INFINITY));
}
