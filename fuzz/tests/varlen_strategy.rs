//! CPU-only tests of the varlen fuzzer's case strategy (they run in CI, where there is no GPU):
//! the drawn mixes are valid for the launch layer, varied (empty sequences, awkward lengths,
//! seqused_k, slack in the max lengths, GQA, features, both dtypes, every head dim) and within
//! the reference's work bound.

use std::collections::HashSet;

use flashattn::{DType, RawForward, RawLse, RawTensor, RawVarlen, Strides};
use flashattn_fuzz::strategies::{CaseSpace, seeded_runner};
use flashattn_fuzz::varlen::{AWKWARD_LENS, VarlenCase, varlen_strategy};
use proptest::strategy::{Strategy, ValueTree};

fn draw(space: &CaseSpace, n: usize) -> Vec<VarlenCase> {
    let strategy = varlen_strategy(space).expect("a compiled configuration");
    let mut runner = seeded_runner(17);
    (0..n)
        .map(|_| strategy.new_tree(&mut runner).unwrap().current())
        .collect()
}

/// The launch layer's verdict on `case` with fake, aligned, disjoint device addresses.
fn validate(case: &VarlenCase) -> Result<f32, flashattn::Error> {
    let p = &case.base.params;
    let d = p.head_dim;
    let (total_q, total_k) = case.totals();
    let mut next = 1u64 << 32;
    let mut alloc = |bytes: usize| {
        let ptr = next;
        next += (bytes as u64).next_multiple_of(256);
        ptr
    };
    let mut tensor = |layout: flashattn_fuzz::harness::Layout, rows: usize, heads: usize| {
        let s = Strides {
            batch: 0,
            ..layout.strides(rows, heads, d)
        };
        let len = ((rows - 1) as i64 * s.row + (heads - 1) as i64 * s.head) as usize + d;
        RawTensor {
            ptr: alloc(2 * len),
            len,
            dtype: case.base.dtype,
            strides: s,
        }
    };
    let [ql, kl, vl, ol] = case.layouts();
    let (q, k, v, o) = (
        tensor(ql, total_q, p.heads_q),
        tensor(kl, total_k, p.heads_kv),
        tensor(vl, total_k, p.heads_kv),
        tensor(ol, total_q, p.heads_q),
    );
    let lse = RawLse {
        ptr: alloc(4 * p.heads_q * total_q),
        len: p.heads_q * total_q,
    };
    let b = p.batch;
    let varlen = RawVarlen {
        cu_seqlens_q: (alloc(4 * (b + 1)), b + 1),
        cu_seqlens_k: (alloc(4 * (b + 1)), b + 1),
        seqused_k: case.seqused_k.as_ref().map(|_| (alloc(4 * b), b)),
        total_q,
        total_k,
    };
    flashattn::validate_varlen(p, &RawForward::new(q, k, v, o, Some(lse)), &varlen)
}

#[test]
fn varlen_cases_are_valid_and_varied() {
    let space = CaseSpace::default();
    let cases = draw(&space, 1500);
    let mut dtypes = HashSet::new();
    let mut head_dims = HashSet::new();
    let (mut empty_q, mut empty_k, mut awkward, mut used, mut slack, mut gqa, mut features) =
        (0, 0, 0, 0, 0, 0, 0);
    let mut batches = HashSet::new();
    for c in &cases {
        let p = &c.base.params;
        validate(c).unwrap_or_else(|e| panic!("{}: {e}", c.reproducer()));
        assert_eq!(p.batch, c.lens_q.len());
        assert_eq!(c.lens_q.len(), c.lens_k.len());
        assert!((1..=8).contains(&p.batch));
        assert!(c.lens_q.iter().all(|&l| l <= p.seqlen_q));
        assert!(c.lens_k.iter().all(|&l| l <= p.seqlen_k));
        let (tq, tk) = c.totals();
        assert!(tq >= 1 && tk >= 1, "{}", c.reproducer());
        let pairs: u64 = c
            .lens_q
            .iter()
            .zip(&c.lens_k)
            .map(|(&a, &b)| (a * b) as u64)
            .sum();
        assert!(
            pairs * (p.heads_q * p.head_dim) as u64 <= space.max_work,
            "{}",
            c.reproducer()
        );
        if let Some(u) = &c.seqused_k {
            assert_eq!(u.len(), p.batch);
            assert!(u.iter().zip(&c.lens_k).all(|(&u, &l)| u <= l));
            used += 1;
        }
        dtypes.insert(c.base.dtype);
        head_dims.insert(p.head_dim);
        batches.insert(p.batch);
        empty_q += c.lens_q.contains(&0) as usize;
        empty_k += c.lens_k.contains(&0) as usize;
        awkward += c.lens_q.iter().any(|l| AWKWARD_LENS.contains(l)) as usize;
        slack += (p.seqlen_q > *c.lens_q.iter().max().unwrap()) as usize;
        gqa += (p.heads_q > p.heads_kv) as usize;
        features += (p.window != flashattn::Window::UNBOUNDED
            || p.softcap.is_some()
            || c.base.alibi.is_some()
            || c.base.sinks.is_some()) as usize;
    }
    for (what, n) in [
        ("empty query sequence", empty_q),
        ("empty key sequence", empty_k),
        ("awkward length", awkward),
        ("seqused_k", used),
        ("max above the longest", slack),
        ("GQA", gqa),
        ("masks or score modifiers", features),
    ] {
        assert!(n >= cases.len() / 20, "{what}: only {n} of {}", cases.len());
    }
    assert_eq!(batches.len(), 8);
    let compiled: HashSet<DType> = [DType::F16, DType::BF16]
        .into_iter()
        .filter(|&t| !flashattn::compiled_head_dims(t).is_empty())
        .collect();
    assert_eq!(dtypes, compiled);
    let all_dims: HashSet<usize> = compiled
        .iter()
        .flat_map(|&t| flashattn::compiled_head_dims(t))
        .collect();
    assert_eq!(head_dims, all_dims);
}

#[test]
fn small_space_keeps_sequences_short() {
    let space = CaseSpace::small();
    for c in draw(&space, 300) {
        assert!(
            c.lens_q
                .iter()
                .chain(&c.lens_k)
                .all(|&l| l <= space.max_seqlen)
        );
        validate(&c).unwrap_or_else(|e| panic!("{}: {e}", c.reproducer()));
    }
}
