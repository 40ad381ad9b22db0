//! CPU-only tests of the fuzzer's machinery (they run in CI, where there is no GPU): the case
//! strategies draw valid and varied cases, the tolerance rule rejects wrong outputs, and the
//! shrinking loop finds the exact boundary of a synthetic failure.

use std::collections::HashMap;

use flashattn::{AttentionParams, DType, KernelChoice, RawForward, RawLse, RawTensor};
use flashattn_fuzz::harness::{Case, Inputs, Layout};
use flashattn_fuzz::reproducer::parse_case;
use flashattn_fuzz::strategies::{
    CaseSpace, ConfigFilter, Features, all_labels, classify, pow2_edges, seeded_runner, shrink,
    tile_edges, work,
};
use flashattn_ref as reference;
use half::f16;
use proptest::strategy::{BoxedStrategy, Strategy, ValueTree};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

const DRAWS: usize = 4000;

fn draw(strategy: &BoxedStrategy<Case>, seed: u64, n: usize) -> Vec<Case> {
    let mut runner = seeded_runner(seed);
    (0..n)
        .map(|_| {
            strategy
                .new_tree(&mut runner)
                .expect("no rejections")
                .current()
        })
        .collect()
}

/// What the launch layer's host-side validation says about `case`, with fake, aligned,
/// disjoint device addresses: every drawn case must be one the kernels accept.
fn validate(case: &Case) -> Result<f32, flashattn::Error> {
    let p = &case.params;
    let d = p.head_dim;
    let mut next = 1u64 << 32;
    let mut tensor = |layout: Layout, seqlen: usize, heads: usize| {
        let s = layout.strides(seqlen, heads, d);
        let len = ((p.batch - 1) as i64 * s.batch
            + (seqlen - 1) as i64 * s.row
            + (heads - 1) as i64 * s.head) as usize
            + d;
        let ptr = next;
        next += (len as u64 * 2).next_multiple_of(256);
        RawTensor {
            ptr,
            len,
            dtype: case.dtype,
            strides: s,
        }
    };
    let [ql, kl, vl, ol] = case.layouts();
    let q = tensor(ql, p.seqlen_q, p.heads_q);
    let k = tensor(kl, p.seqlen_k, p.heads_kv);
    let v = tensor(vl, p.seqlen_k, p.heads_kv);
    let o = tensor(ol, p.seqlen_q, p.heads_q);
    let lse = case.with_lse.then_some(RawLse {
        ptr: next,
        len: p.batch * p.heads_q * p.seqlen_q,
    });
    flashattn::validate(p, &RawForward::new(q, k, v, o, lse))
}

fn assert_valid(case: &Case, space: &CaseSpace) {
    let p = &case.params;
    let r = case.reproducer();
    assert!(
        p.heads_kv >= 1 && p.heads_q % p.heads_kv == 0,
        "heads not divisible: {r}"
    );
    assert!(
        p.heads_kv <= space.max_heads_kv && p.heads_q / p.heads_kv <= space.max_group,
        "{r}"
    );
    assert!(p.heads_q <= space.max_heads_q, "{r}");
    assert!((1..=space.max_batch).contains(&p.batch), "{r}");
    let (q_lo, q_hi) = space.seqlen_q.unwrap_or((1, space.max_seqlen));
    let (k_lo, k_hi) = space.seqlen_k.unwrap_or((1, space.max_seqlen));
    assert!(
        (q_lo..=q_hi).contains(&p.seqlen_q) && (k_lo..=k_hi).contains(&p.seqlen_k),
        "{r}"
    );
    assert!(
        work(case) <= space.max_work,
        "work budget exceeded ({}): {r}",
        work(case)
    );
    assert!(
        flashattn::compiled_head_dims(case.dtype).contains(&p.head_dim),
        "head dim not compiled: {r}"
    );
    match &p.kernel {
        KernelChoice::Auto => {}
        KernelChoice::Id(id) => {
            let c = flashattn::kernel_configs()
                .iter()
                .find(|c| c.id == *id)
                .unwrap_or_else(|| panic!("no config {id}: {r}"));
            assert_eq!(
                (c.dtype, c.head_dim),
                (case.dtype, p.head_dim),
                "config {} does not match: {r}",
                c.name
            );
        }
        KernelChoice::Named(name) => panic!("the strategies draw ids, not names ({name}): {r}"),
    }
    let [_, _, _, o_layout] = case.layouts();
    assert!(
        o_layout != Layout::BatchBroadcast,
        "O cannot be broadcast: {r}"
    );
    for layout in case.layouts() {
        if let Layout::Padded { head_gap, row_gap } = layout {
            assert!(
                head_gap % 8 == 0 && row_gap % 8 == 0 && head_gap > 0 && row_gap > 0,
                "gap not a multiple of 8: {r}"
            );
        }
    }
    if let Some(s) = p.softmax_scale {
        assert!((0.01..=2.0).contains(&s), "{r}");
    }
    match case.inputs {
        Inputs::Normal { std } => assert!([0.01, 0.1, 1.0, 4.0, 30.0].contains(&std), "{r}"),
        Inputs::LargeRows { std, factor } => {
            assert!(std > 0.0 && (30.0..=1000.0).contains(&factor), "{r}")
        }
        Inputs::ConstantRows => {}
        Inputs::TiedMax { std } => assert!(std > 0.0, "{r}"),
        Inputs::Drift { .. } => panic!("drifting scores are the grid's, not drawn: {r}"),
    }
    if let Err(e) = validate(case) {
        panic!("the launch layer refuses a drawn case ({e}): {r}");
    }
}

#[test]
fn drawn_cases_are_valid() {
    let space = CaseSpace::default();
    let cases = draw(&space.strategy().unwrap(), 1, DRAWS);
    for case in &cases {
        assert_valid(case, &space);
    }
    // The budget must be reached (the draws are not timid) without being the typical case
    // (the fuzzer's throughput is set by the CPU reference's cost).
    let total: u64 = cases.iter().map(work).sum();
    let big = cases
        .iter()
        .filter(|c| work(c) > space.max_work / 4)
        .count();
    println!(
        "work: mean {:.3e}, {big} of {DRAWS} cases above a quarter of the budget",
        total as f64 / DRAWS as f64
    );
    assert!(big > 0, "no case came near the work budget");
    // With every head dim compiled the mean sits near a quarter of the budget (5.1e8 of 2e9,
    // and 5.3 cases/s on the lent H100 with 16 reference cores); a third leaves room for the
    // draw-to-draw spread without letting the fuzzer's throughput collapse unnoticed.
    assert!(
        total / (DRAWS as u64) < space.max_work / 3,
        "the mean case is too expensive"
    );
}

#[test]
fn small_space_respects_its_bounds() {
    let space = CaseSpace::small();
    assert!(space.max_seqlen <= 300 && space.max_batch <= 2 && space.max_heads_q <= 8);
    for case in draw(&space.strategy().unwrap(), 2, DRAWS) {
        assert_valid(&case, &space);
    }
}

#[test]
fn walks_space_launches_persistent_walks() {
    let space = CaseSpace::walks();
    let cases = draw(&space.strategy().unwrap(), 3, DRAWS);
    for case in &cases {
        assert_valid(case, &space);
    }
    const PERSISTENT: &str = "non-causal, > 264 tiles of 128 rows (persistent ws)";
    let persistent_cases: Vec<&Case> = cases
        .iter()
        .filter(|c| classify(c).contains(&PERSISTENT))
        .collect();
    let persistent = persistent_cases.len();
    let non_causal = cases.iter().filter(|c| !c.params.causal).count();
    // A sequence's last 192-row tile of 64 rows or fewer: the tile the persistent head-dim-64
    // walk splits by keys across its consumers.
    let split = persistent_cases
        .iter()
        .filter(|c| c.params.head_dim == 64 && (1..=64).contains(&(c.params.seqlen_q % 192)))
        .count();
    const CAUSAL_WALK: &str =
        "causal, every row sees a key, > 264 tiles of 128 rows (persistent causal walk)";
    let causal = cases.len() - non_causal;
    let causal_walks = cases
        .iter()
        .filter(|c| classify(c).contains(&CAUSAL_WALK))
        .count();
    let total: u64 = cases.iter().map(work).sum();
    println!(
        "walks: {persistent} of {non_causal} non-causal cases persistent, {split} with a split \
         tile; {causal_walks} of {causal} causal cases walk; work: mean {:.3e}",
        total as f64 / DRAWS as f64
    );
    assert!(
        causal_walks * 4 > causal,
        "only {causal_walks} of {causal} causal cases walk"
    );
    assert!(
        persistent * 2 > non_causal,
        "only {persistent} of {non_causal} non-causal cases launch a persistent walk"
    );
    assert!(split >= 20, "only {split} cases have a split tile");
    assert!(
        total / (DRAWS as u64) < space.max_work / 2,
        "the mean case is too expensive"
    );
}

#[test]
fn small_walks_space_has_tiles_to_walk() {
    let space = CaseSpace::small_walks();
    let cases = draw(&space.strategy().unwrap(), 9, DRAWS);
    for case in &cases {
        assert_valid(case, &space);
    }
    // More 192-row (or 128-row) query tiles than a 132-SM part has SMs: what a walk needs.
    let tiles = |c: &Case| c.params.batch * c.params.heads_q * c.params.seqlen_q.div_ceil(192);
    let many = cases.iter().filter(|c| tiles(c) > 132).count();
    println!("small walks: {many} of {DRAWS} cases have more than 132 tiles of 192 rows");
    assert!(many * 3 > DRAWS, "only {many} of {DRAWS} cases could walk");
}

#[test]
fn splits_space_launches_split_tails() {
    let space = CaseSpace::splits();
    let cases = draw(&space.strategy().unwrap(), 5, DRAWS);
    for case in &cases {
        assert_valid(case, &space);
        let p = &case.params;
        assert!(
            case.workspace && !p.causal && matches!(p.head_dim, 96 | 128),
            "{}",
            case.reproducer()
        );
    }
    // What the split needs of the shape (split_tail_deal): more full 192-row tiles than a
    // 132-SM part has SMs, and a remainder (the tail) that the SMs do not divide; the rest
    // (no window, a warp-specialized tile) is the draw's.
    let full = |c: &Case| c.params.batch * c.params.heads_q * (c.params.seqlen_q / 192);
    let candidates = cases
        .iter()
        .filter(|c| c.params.window.left.is_none() && c.params.window.right.is_none())
        .filter(|c| full(c) > 132 && full(c) % 132 != 0)
        .count();
    let total: u64 = cases.iter().map(work).sum();
    println!(
        "splits: {candidates} of {} cases with a tail of full 192-row tiles past 132 SMs and \
         no window; work: mean {:.3e}",
        cases.len(),
        total as f64 / cases.len() as f64
    );
    assert!(
        candidates * 2 > cases.len(),
        "only {candidates} of {} cases could split",
        cases.len()
    );
    // Every other preset passes a workspace in about a quarter of its cases.
    let default = draw(&CaseSpace::default().strategy().unwrap(), 6, DRAWS);
    let with = default.iter().filter(|c| c.workspace).count();
    assert!(
        (DRAWS / 5..DRAWS * 3 / 10).contains(&with),
        "{with} of {DRAWS} default cases pass a workspace"
    );
}

#[test]
fn reproducer_lines_read_back() {
    // What `flashattn-fuzz --replay` relies on: every case any preset draws prints to a line
    // that reads back to the same case, bit for bit (f32 fields included).
    for (n, space) in [
        CaseSpace::default(),
        CaseSpace::small(),
        CaseSpace::walks(),
        CaseSpace::small_walks(),
        CaseSpace::splits(),
    ]
    .into_iter()
    .enumerate()
    {
        for case in draw(&space.strategy().unwrap(), 10 + n as u64, 1000) {
            let line = case.reproducer();
            assert_eq!(parse_case(&line).as_ref(), Ok(&case), "{line}");
        }
    }
}

#[test]
fn same_seed_draws_same_cases() {
    let s = CaseSpace::default().strategy().unwrap();
    assert_eq!(draw(&s, 7, 200), draw(&s, 7, 200));
    assert_ne!(draw(&s, 7, 50), draw(&s, 8, 50));
}

fn count_labels(cases: &[Case]) -> HashMap<&'static str, usize> {
    let known = all_labels();
    let mut counts = HashMap::new();
    for case in cases {
        for label in classify(case) {
            assert!(
                known.contains(&label),
                "classify produced {label}, missing from all_labels()"
            );
            *counts.entry(label).or_insert(0) += 1;
        }
    }
    counts
}

#[test]
fn draws_hit_every_edge() {
    let labels = all_labels();
    let mut unique = labels.clone();
    unique.sort_unstable();
    unique.dedup();
    assert_eq!(unique.len(), labels.len(), "duplicate labels");

    let cases = draw(&CaseSpace::default().strategy().unwrap(), 3, DRAWS);
    let counts = count_labels(&cases);
    let report: Vec<String> = labels
        .iter()
        .map(|l| format!("{l}: {}", counts.get(l).unwrap_or(&0)))
        .collect();
    println!("{}", report.join("\n"));
    for label in &labels {
        let n = counts.get(label).copied().unwrap_or(0);
        assert!(
            n >= 10,
            "edge `{label}` hit only {n} times in {DRAWS} draws"
        );
    }

    // Every compiled configuration is forced by id, not just the dispatcher's default. Counted
    // on plain draws: with features mixed, softcap/ALiBi cases go to the score-modifier
    // configurations only, which thins the others below a stable threshold.
    let plain = CaseSpace {
        features: Features::Off,
        ..CaseSpace::default()
    };
    let plain_cases = draw(&plain.strategy().unwrap(), 3, DRAWS);
    for c in flashattn::kernel_configs() {
        let n = plain_cases
            .iter()
            .filter(|x| x.params.kernel == KernelChoice::Id(c.id))
            .count();
        assert!(n >= 5, "configuration {} drawn {n} times", c.name);
    }
    for dtype in [DType::F16, DType::BF16] {
        for d in flashattn::compiled_head_dims(dtype) {
            let n = cases
                .iter()
                .filter(|x| x.dtype == dtype && x.params.head_dim == d)
                .count();
            assert!(n >= 10, "{dtype} d{d} drawn {n} times");
        }
    }
}

#[test]
fn small_space_hits_its_edges() {
    let cases = draw(&CaseSpace::small().strategy().unwrap(), 4, DRAWS);
    let counts = count_labels(&cases);
    for label in all_labels() {
        // Sequences of 1024 and more, and launches of more tiles than an H100 has SMs, are
        // outside the small space by design.
        if label.contains(">=1024") || label.contains("persistent") {
            continue;
        }
        let n = counts.get(label).copied().unwrap_or(0);
        assert!(n >= 5, "small space: edge `{label}` hit only {n} times");
    }
}

#[test]
fn edge_lists() {
    let tiles = tile_edges(4096);
    for x in [
        15, 16, 17, 31, 33, 63, 65, 127, 128, 129, 255, 257, 383, 385,
    ] {
        assert!(tiles.contains(&x), "{x} missing from tile edges {tiles:?}");
    }
    assert_eq!(pow2_edges(300), vec![255, 256, 257]);
    let p = pow2_edges(4096);
    assert!(
        p.contains(&4095) && p.contains(&4096) && !p.contains(&4097) && !p.contains(&127),
        "{p:?}"
    );
    assert!(tile_edges(20).iter().all(|&x| x <= 20));
}

#[test]
fn classify_names_the_edges() {
    let params = AttentionParams {
        heads_q: 8,
        heads_kv: 1,
        causal: true,
        ..AttentionParams::new(1, 257, 1, 8, 64)
    };
    let case = Case {
        kv_layout: Layout::Padded {
            head_gap: 8,
            row_gap: 16,
        },
        inputs: Inputs::ConstantRows,
        ..Case::new(DType::F16, params, 0)
    };
    let labels = classify(&case);
    for want in [
        "sk=1",
        "sq=pow2+-1",
        "sq>sk causal (fully masked rows)",
        "mqa",
        "q:bshd",
        "kv:padded",
        "constant_rows",
        "auto_config",
    ] {
        assert!(labels.contains(&want), "{want} missing from {labels:?}");
    }
    for not in [
        "sq=1",
        "sq=tile+-1",
        "gqa",
        "mha",
        "named_config",
        "no_lse",
        "sk=pow2+-1",
    ] {
        assert!(!labels.contains(&not), "{not} wrongly in {labels:?}");
    }
}

#[test]
fn config_filters() {
    let cfg = &flashattn::kernel_configs()[flashattn::kernel_configs().len() - 1];
    let named = CaseSpace {
        configs: ConfigFilter::Named(vec![cfg.name.to_string()]),
        ..CaseSpace::default()
    };
    for case in draw(&named.strategy().unwrap(), 5, 300) {
        assert_eq!(case.params.kernel, KernelChoice::Id(cfg.id));
        assert_eq!(
            (case.dtype, case.params.head_dim),
            (cfg.dtype, cfg.head_dim)
        );
    }
    let auto = CaseSpace {
        configs: ConfigFilter::Auto,
        dtypes: vec![DType::BF16],
        ..CaseSpace::default()
    };
    for case in draw(&auto.strategy().unwrap(), 6, 300) {
        assert_eq!(case.params.kernel, KernelChoice::Auto);
        assert_eq!(case.dtype, DType::BF16);
    }
    let d = flashattn::compiled_head_dims(DType::F16)[0];
    let one_dim = CaseSpace {
        head_dims: Some(vec![d]),
        ..CaseSpace::default()
    };
    assert!(
        draw(&one_dim.strategy().unwrap(), 7, 300)
            .iter()
            .all(|c| c.params.head_dim == d)
    );

    let unknown = CaseSpace {
        configs: ConfigFilter::Named(vec!["no_such_config".into()]),
        ..CaseSpace::default()
    };
    assert!(unknown.strategy().unwrap_err().0.contains("no_such_config"));
    let odd_dim = CaseSpace {
        head_dims: Some(vec![40]),
        ..CaseSpace::default()
    };
    assert!(odd_dim.strategy().is_err());
    let none = CaseSpace {
        dtypes: vec![],
        ..CaseSpace::default()
    };
    assert!(none.strategy().is_err());
    let zero = CaseSpace {
        max_seqlen: 0,
        ..CaseSpace::default()
    };
    assert!(zero.strategy().is_err());
}

/// A small GQA problem on the CPU with f16 inputs, its f64 reference and its naive baseline.
fn small_problem(
    causal: bool,
    seqlen_q: usize,
    seqlen_k: usize,
) -> (reference::Problem, reference::Output, reference::Output) {
    let p = reference::Problem::new(2, seqlen_q, seqlen_k, 4, 2, 64, causal);
    let mut rng = StdRng::seed_from_u64(11);
    let mut tensor = |s: usize, h: usize| -> Vec<f16> {
        (0..2 * s * h * 64)
            .map(|_| f16::from_f32(rng.random_range(-2.0..2.0)))
            .collect()
    };
    let (q, k, v) = (
        tensor(seqlen_q, 4),
        tensor(seqlen_k, 2),
        tensor(seqlen_k, 2),
    );
    let (sq, sk) = (
        reference::Strides::bshd(seqlen_q, 4, 64),
        reference::Strides::bshd(seqlen_k, 2, 64),
    );
    let want = reference::reference(&p, t(&q, sq), t(&k, sk), t(&v, sk));
    let naive = reference::naive_same_precision(&p, t(&q, sq), t(&k, sk), t(&v, sk));
    (p, want, naive)
}

fn t(x: &[f16], s: reference::Strides) -> reference::TensorRef<'_, f16> {
    reference::TensorRef::new(x, s)
}

fn lse32(x: &[f64]) -> Vec<f32> {
    x.iter().map(|&v| v as f32).collect()
}

#[test]
fn tolerance_rule_rejects_corrupted_outputs() {
    let (p, want, naive) = small_problem(true, 37, 53);
    // The naive baseline is within its own bound by construction.
    let c = reference::check(&p, &naive.o, Some(&lse32(&naive.lse)), &want, &naive);
    assert!(c.pass, "{}", c.summary());
    assert!(
        c.o_naive_err > 0.0,
        "f16 rounding should make the baseline inexact"
    );

    let bound = c.o_bound;
    let i = want.o.len() / 2;
    let mut got = want.o.clone();
    got[i] += 1.05 * bound;
    let c = reference::check(&p, &got, Some(&lse32(&want.lse)), &want, &naive);
    assert!(
        !c.pass,
        "an error of 1.05 x the bound passed: {}",
        c.summary()
    );
    assert!(
        c.ratio > 1.0 && c.worst_o.is_some_and(|(j, _, _)| j == i),
        "{}",
        c.summary()
    );

    // Just under the bound passes: the rule is a threshold, not a bit-exact comparison.
    got[i] = want.o[i] + 0.9 * bound;
    assert!(reference::check(&p, &got, Some(&lse32(&want.lse)), &want, &naive).pass);

    got[i] = f64::NAN;
    let c = reference::check(&p, &got, Some(&lse32(&want.lse)), &want, &naive);
    assert!(!c.pass && c.non_finite == 1, "{}", c.summary());

    let mut lse = lse32(&want.lse);
    lse[3] = f32::NAN;
    assert!(!reference::check(&p, &want.o, Some(&lse), &want, &naive).pass);
    lse[3] = f32::INFINITY;
    assert!(!reference::check(&p, &want.o, Some(&lse), &want, &naive).pass);
}

#[test]
fn tolerance_rule_on_fully_masked_rows() {
    // Causal with Sq > Sk: the first rows see no key; O must be 0 and LSE -inf there.
    let (p, want, naive) = small_problem(true, 40, 9);
    assert!(want.lse.contains(&f64::NEG_INFINITY));
    let c = reference::check(&p, &want.o, Some(&lse32(&want.lse)), &want, &naive);
    assert!(c.pass, "{}", c.summary());
    let row = want
        .lse
        .iter()
        .position(|x| *x == f64::NEG_INFINITY)
        .unwrap();
    let mut lse = lse32(&want.lse);
    lse[row] = 0.0;
    assert!(
        !reference::check(&p, &want.o, Some(&lse), &want, &naive).pass,
        "a finite LSE on a fully masked row passed"
    );
}

/// Draw from `seed` until `fails` holds, then shrink that case with `fails`.
fn shrink_synthetic(
    seed: u64,
    max_steps: usize,
    fails: impl Fn(&Case) -> bool,
) -> (Case, flashattn_fuzz::strategies::Shrunk) {
    let strategy = CaseSpace::default().strategy().unwrap();
    let mut runner = seeded_runner(seed);
    for _ in 0..10_000 {
        let mut tree = strategy.new_tree(&mut runner).unwrap();
        let start = tree.current();
        if fails(&start) {
            let shrunk = shrink(&mut *tree, max_steps, &fails);
            assert!(
                fails(&shrunk.case),
                "shrink returned a passing case: {}",
                shrunk.case.reproducer()
            );
            return (start, shrunk);
        }
    }
    panic!("seed {seed}: no failing case in 10000 draws");
}

#[test]
fn synthetic_failure_shrinks_to_its_boundary() {
    // A fake kernel bug: wrong iff seqlen_q >= 37 with a causal mask at one head dim. The
    // largest compiled dim is used so that shrinking the head dim has to back off.
    let d = *flashattn::compiled_head_dims(DType::F16).last().unwrap();
    let fails = |c: &Case| c.params.seqlen_q >= 37 && c.params.head_dim == d && c.params.causal;
    for seed in 0..6 {
        let (start, shrunk) = shrink_synthetic(seed, 2000, fails);
        let (m, p) = (&shrunk.case, &shrunk.case.params);
        println!(
            "seed {seed}: {} GPU-equivalent runs: {}\n    -> {}",
            shrunk.steps,
            start.reproducer(),
            m.reproducer()
        );
        assert!(!shrunk.out_of_steps, "ran out of steps: {}", m.reproducer());
        assert_eq!(p.seqlen_q, 37, "{}", m.reproducer());
        assert_eq!((p.head_dim, p.causal), (d, true));
        assert_eq!(
            (p.batch, p.heads_q, p.heads_kv, p.seqlen_k),
            (1, 1, 1, 1),
            "{}",
            m.reproducer()
        );
        assert_eq!((m.q_layout, m.kv_layout), (Layout::Bshd, Layout::Bshd));
        assert_eq!(
            (m.inputs, p.softmax_scale, &p.kernel),
            (Inputs::Normal { std: 1.0 }, None, &KernelChoice::Auto)
        );
        // The search is a binary search per value: a handful of runs per field, not hundreds.
        assert!(shrunk.steps <= 150, "{} runs", shrunk.steps);
    }
}

#[test]
fn shrinking_stops_at_its_step_budget() {
    let (start, shrunk) = shrink_synthetic(1, 5, |c: &Case| c.params.seqlen_q >= 2);
    assert!(shrunk.out_of_steps);
    assert_eq!(shrunk.steps, 5);
    assert!(
        shrunk.case.params.seqlen_q >= 2 && shrunk.case.params.seqlen_q <= start.params.seqlen_q
    );
}

#[test]
fn shrinking_keeps_a_case_nothing_simpler_reproduces() {
    // A bug so specific that only the drawn case shows it: shrinking must hand that case back.
    let strategy = CaseSpace::default().strategy().unwrap();
    let mut tree = strategy.new_tree(&mut seeded_runner(9)).unwrap();
    let start = tree.current();
    let shrunk = shrink(&mut *tree, 500, |c| *c == start);
    assert_eq!(shrunk.case, start);
    assert_eq!(shrunk.failing_steps, 0);
}

#[test]
fn regression_file_is_in_place() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/proptest-regressions/gpu_fuzz.txt"
    );
    let text = std::fs::read_to_string(path).expect(
        "fuzz/proptest-regressions/gpu_fuzz.txt must exist (gpu_fuzz persists failures there)",
    );
    for (n, line) in text.lines().enumerate() {
        let content = line.split('#').next().unwrap().trim();
        assert!(
            content.is_empty() || content.starts_with("cc "),
            "line {}: proptest cannot parse `{line}`",
            n + 1
        );
    }
}
