//! The variable-length reference: packed sequences against the dense reference run on each
//! sequence copied out on its own, and against the dense batch when every sequence has the
//! same length. Empty sequences (no queries, no keys) and `seqused_k` included.

use flashattn_ref::{
    HeadParams, Output, Problem, Strides, TensorRef, Varlen, naive_same_precision_varlen,
    naive_same_precision_with, reference_varlen, reference_with,
};
use half::bf16;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

const HQ: usize = 4;
const HKV: usize = 2;
const D: usize = 16;

/// A packed `[total, heads, D]` tensor in one of three layouts, NaN in every gap.
fn packed(rng: &mut StdRng, total: usize, heads: usize, layout: usize) -> (Vec<bf16>, Strides) {
    let (row, head) = match layout {
        0 => ((heads * D) as i64, D as i64), // [total, H, D]
        1 => (D as i64, (total * D) as i64), // [H, total, D]
        _ => ((heads * (D + 8) + 8) as i64, (D + 8) as i64), // gaps after heads and rows
    };
    let strides = Strides {
        batch: 0,
        row,
        head,
    };
    let len = strides.required_len(1, total, heads, D);
    let mut data = vec![bf16::from_f64(f64::NAN); len];
    for s in 0..total {
        for h in 0..heads {
            let at = strides.offset(0, s, h);
            for x in &mut data[at..at + D] {
                *x = bf16::from_f64(rng.random_range(-2.0..2.0));
            }
        }
    }
    (data, strides)
}

/// Rows `rows` of a packed tensor copied into a contiguous `[1, rows.len(), heads, D]` one.
fn copy_rows(data: &[bf16], s: Strides, rows: std::ops::Range<usize>, heads: usize) -> Vec<bf16> {
    let mut out = Vec::new();
    for r in rows {
        for h in 0..heads {
            let at = s.offset(0, r, h);
            out.extend_from_slice(&data[at..at + D]);
        }
    }
    out
}

fn tr(x: &[bf16], s: Strides) -> TensorRef<'_, bf16> {
    TensorRef::new(x, s)
}

fn prefix(lens: &[usize]) -> Vec<usize> {
    std::iter::once(0)
        .chain(lens.iter().scan(0, |acc, &l| {
            *acc += l;
            Some(*acc)
        }))
        .collect()
}

fn features(causal: bool, k: usize) -> Problem {
    let mut p = Problem::new(1, 1, 1, HQ, HKV, D, causal);
    match k % 4 {
        0 => {}
        1 => p.window_left = Some(5),
        2 => {
            p.top_left = true;
            p.softcap = Some(2.0);
        }
        _ => p.window_right = Some(3),
    }
    p
}

/// Each sequence of the packed output equals the dense reference (and naive baseline) on the
/// sequence alone, bit for bit; rows of sequences without keys are O = 0 and LSE = -inf or the
/// sink.
#[test]
fn packed_sequences_match_each_sequence_alone() {
    let slopes = [0.5f32, 0.25, 0.125, 0.0625];
    let sinks = [0.3f32, -1.0, 2.0, f32::NEG_INFINITY];
    let mut rng = StdRng::seed_from_u64(13);
    // (query lengths, key lengths, seqused_k)
    type Mix<'a> = (&'a [usize], &'a [usize], Option<&'a [usize]>);
    let cases: [Mix; 4] = [
        (&[1, 7, 0, 33, 19], &[1, 7, 4, 33, 40], None),
        (&[5, 9, 3], &[9, 0, 3], None),
        (&[20, 11], &[20, 30], Some(&[13, 0])),
        (&[0, 17, 2], &[3, 17, 8], Some(&[3, 17, 1])),
    ];
    for (n, (lens_q, lens_k, used)) in cases.into_iter().enumerate() {
        for layout in 0..3 {
            let (cu_q, cu_k) = (prefix(lens_q), prefix(lens_k));
            let vl = Varlen {
                cu_seqlens_q: &cu_q,
                cu_seqlens_k: &cu_k,
                seqused_k: used,
            };
            let (tq, tk) = (vl.total_q(), vl.total_k());
            let (q, qs) = packed(&mut rng, tq, HQ, layout);
            let (k, ks) = packed(&mut rng, tk, HKV, layout);
            let (v, vs) = packed(&mut rng, tk, HKV, (layout + 1) % 3);
            let p = features(n % 2 == 0, n + layout);
            let heads = HeadParams {
                alibi_slopes: (layout == 1).then_some(&slopes[..]),
                sinks: (layout != 0).then_some(&sinks[..]),
            };
            let args = [
                TensorRef::new(&q[..], qs),
                TensorRef::new(&k[..], ks),
                TensorRef::new(&v[..], vs),
            ];
            let [rq, rk, rv] = args;
            let want = reference_varlen(&p, &vl, rq, rk, rv, heads);
            let naive = naive_same_precision_varlen(&p, &vl, rq, rk, rv, heads);
            let packed_p = vl.packed_problem(&p);
            assert_eq!(want.o.len(), packed_p.o_len());
            assert_eq!(want.lse.len(), HQ * tq);
            for b in 0..lens_q.len() {
                let seq = vl.sequence(&p, b);
                let (q0, k0) = (cu_q[b], cu_k[b]);
                let alone = |t: &[bf16], s: Strides, rows, h| copy_rows(t, s, rows, h);
                let qb = alone(&q, qs, q0..q0 + seq.seqlen_q, HQ);
                let kb = alone(&k, ks, k0..k0 + seq.seqlen_k, HKV);
                let vb = alone(&v, vs, k0..k0 + seq.seqlen_k, HKV);
                let sq = Strides::bshd(seq.seqlen_q, HQ, D);
                let sk = Strides::bshd(seq.seqlen_k, HKV, D);
                let dense: [Output; 2] = [
                    reference_with(&seq, tr(&qb, sq), tr(&kb, sk), tr(&vb, sk), heads),
                    naive_same_precision_with(&seq, tr(&qb, sq), tr(&kb, sk), tr(&vb, sk), heads),
                ];
                for (got, alone) in [&want, &naive].into_iter().zip(&dense) {
                    let row = HQ * D;
                    assert_eq!(
                        got.o[q0 * row..(q0 + seq.seqlen_q) * row],
                        alone.o[..],
                        "case {n} layout {layout} sequence {b}"
                    );
                    for h in 0..HQ {
                        for i in 0..seq.seqlen_q {
                            let (g, a) =
                                (got.lse[h * tq + q0 + i], alone.lse[h * seq.seqlen_q + i]);
                            assert!(g == a, "case {n} seq {b} head {h} row {i}: {g} vs {a}");
                        }
                    }
                }
                if seq.seqlen_k == 0 {
                    for h in 0..HQ {
                        let sink = heads.sinks.map_or(f64::NEG_INFINITY, |s| s[h] as f64);
                        assert!((0..seq.seqlen_q).all(|i| want.lse[h * tq + q0 + i] == sink));
                    }
                    let row = HQ * D;
                    assert!(
                        want.o[q0 * row..(q0 + seq.seqlen_q) * row]
                            .iter()
                            .all(|&x| x == 0.0)
                    );
                }
            }
        }
    }
}

/// Equal lengths packed back to back are the dense `[B, S, H, D]` batch: same O, and LSE
/// `[H, B * S]` is the dense `[B, H, S]` transposed.
#[test]
fn equal_lengths_are_the_dense_batch() {
    let (b, s) = (3, 21);
    let mut rng = StdRng::seed_from_u64(5);
    let (q, qs) = packed(&mut rng, b * s, HQ, 0);
    let (k, ks) = packed(&mut rng, b * s, HKV, 0);
    let (v, vs) = packed(&mut rng, b * s, HKV, 0);
    let cu = prefix(&[s; 3]);
    let vl = Varlen {
        cu_seqlens_q: &cu,
        cu_seqlens_k: &cu,
        seqused_k: None,
    };
    let p = features(true, 1);
    let heads = HeadParams::default();
    let got = reference_varlen(
        &p,
        &vl,
        TensorRef::new(&q, qs),
        TensorRef::new(&k, ks),
        TensorRef::new(&v, vs),
        heads,
    );
    let dense_p = Problem {
        batch: b,
        seqlen_q: s,
        seqlen_k: s,
        ..p
    };
    let dense = |h| Strides::bshd(s, h, D);
    let want = reference_with(
        &dense_p,
        tr(&q, dense(HQ)),
        tr(&k, dense(HKV)),
        tr(&v, dense(HKV)),
        heads,
    );
    assert_eq!(got.o, want.o);
    for bi in 0..b {
        for h in 0..HQ {
            for i in 0..s {
                assert_eq!(
                    got.lse[h * b * s + bi * s + i],
                    want.lse[(bi * HQ + h) * s + i]
                );
            }
        }
    }
    assert!(got.o.iter().all(|x| x.is_finite()) && got.o.iter().any(|&x| x != 0.0));
}

#[test]
#[should_panic(expected = "never decrease")]
fn decreasing_prefix_sums_are_refused() {
    let (cu_q, cu_k) = ([0usize, 5, 3], [0usize, 2, 4]);
    let vl = Varlen {
        cu_seqlens_q: &cu_q,
        cu_seqlens_k: &cu_k,
        seqused_k: None,
    };
    let q = vec![bf16::ZERO; 5 * HQ * D];
    let k = vec![bf16::ZERO; 4 * HKV * D];
    let p = Problem::new(1, 1, 1, HQ, HKV, D, false);
    let t = |h| Strides::bshd(0, h, D);
    reference_varlen(
        &p,
        &vl,
        tr(&q, t(HQ)),
        tr(&k, t(HKV)),
        tr(&k, t(HKV)),
        HeadParams::default(),
    );
}

#[test]
#[should_panic(expected = "above the sequence's")]
fn seqused_k_beyond_the_sequence_is_refused() {
    let cu = [0usize, 4];
    let used = [5usize];
    let vl = Varlen {
        cu_seqlens_q: &cu,
        cu_seqlens_k: &cu,
        seqused_k: Some(&used),
    };
    let q = vec![bf16::ZERO; 4 * HQ * D];
    let p = Problem::new(1, 1, 1, HQ, HQ, D, false);
    let t = TensorRef::new(&q[..], Strides::bshd(0, HQ, D));
    reference_varlen(&p, &vl, t, t, t, HeadParams::default());
}
