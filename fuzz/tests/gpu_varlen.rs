//! Variable-length (packed) prefill on the GPU against the CPU reference: a fixed grid of length
//! mixes on every configuration the GPU runs (empty sequences, seqused_k, GQA, masks and score
//! modifiers per sequence), and the property fuzzer over random mixes ([`varlen_strategy`]).
//! Outputs are poisoned; O's gaps and tail and LSE's tail must stay untouched. Run on a GPU:
//!
//! ```text
//! FLASHATTN_VARLEN_CASES=1000 cargo test --release -p flashattn-fuzz --test gpu_varlen -- --include-ignored
//! ```
//!
//! `FLASHATTN_TEST_SMALL=1` (under compute-sanitizer) keeps every sequence short.

use std::path::Path;
use std::sync::{Arc, OnceLock};

use cudarc::driver::CudaStream;
use flashattn::{AttentionParams, KernelChoice, MaskAlignment, Window};
use flashattn_fuzz::harness::{Case, HeadVector, Layout, gpu_stream};
use flashattn_fuzz::strategies::CaseSpace;
use flashattn_fuzz::varlen::{VarlenCase, run_varlen_case, varlen_strategy};
use proptest::prelude::*;
use proptest::test_runner::FileFailurePersistence;

fn small() -> bool {
    std::env::var("FLASHATTN_TEST_SMALL").is_ok_and(|v| v == "1")
}

fn stream() -> &'static Arc<CudaStream> {
    static STREAM: OnceLock<Arc<CudaStream>> = OnceLock::new();
    STREAM.get_or_init(|| gpu_stream().expect("a CUDA GPU of compute capability >= 8.0"))
}

/// (query lengths, key lengths, seqused_k) mixes: awkward lengths, sequences without queries or
/// without keys, more queries than keys (causal rows that see nothing), keys cut by seqused_k.
/// (query lengths, key lengths, seqused_k) of one batch.
type Mix = (Vec<usize>, Vec<usize>, Option<Vec<usize>>);

fn mixes() -> Vec<Mix> {
    if small() {
        return vec![
            (vec![1, 7, 0, 113], vec![1, 7, 5, 113], None),
            (vec![70, 1, 150], vec![0, 9, 150], None),
            (vec![129, 33], vec![64, 200], Some(vec![64, 17])),
        ];
    }
    vec![
        (vec![1, 7, 0, 113, 239], vec![1, 7, 3, 113, 239], None),
        (vec![1023, 1, 65], vec![1023, 0, 300], None),
        (
            vec![239, 128, 129],
            vec![113, 257, 129],
            Some(vec![113, 0, 100]),
        ),
        (vec![257; 3], vec![257; 3], None),
    ]
}

/// The varlen case of `params` (heads, head dim, options, kernel) over one length mix.
fn case_of(
    config: &flashattn::KernelConfig,
    params: AttentionParams,
    (lens_q, lens_k, seqused_k): &Mix,
    seed: u64,
) -> VarlenCase {
    let params = AttentionParams {
        batch: lens_q.len(),
        seqlen_q: *lens_q.iter().max().unwrap(),
        seqlen_k: *lens_k.iter().max().unwrap(),
        ..params
    };
    VarlenCase {
        base: Case::new(config.dtype, params, seed),
        lens_q: lens_q.clone(),
        lens_k: lens_k.clone(),
        seqused_k: seqused_k.clone(),
    }
}

/// Every configuration the GPU runs, on every length mix, causal and not, 4 query heads on 2
/// KV heads; then each configuration once more with per-sequence windows, top-left alignment
/// and sinks (softcap and ALiBi too where it has score modifiers), in a padded layout.
#[test]
#[ignore = "needs a CUDA GPU"]
fn varlen_grid_every_config() {
    let stream = stream();
    let device = flashattn::device_facts(stream.context()).unwrap();
    let configs: Vec<_> = flashattn::kernel_configs()
        .iter()
        .filter(|c| device.can_run(c))
        .collect();
    assert!(!configs.is_empty(), "no configuration runs on this GPU");
    let padded = Layout::Padded {
        head_gap: 8,
        row_gap: 16,
    };
    let mut failures = Vec::new();
    let (mut cases, mut tma_cases) = (0, 0);
    for config in &configs {
        let base = AttentionParams {
            heads_q: 4,
            heads_kv: 2,
            kernel: KernelChoice::Id(config.id),
            ..AttentionParams::new(1, 1, 1, 4, config.head_dim)
        };
        let mut run = |case: VarlenCase| {
            let out = run_varlen_case(stream, &case)
                .unwrap_or_else(|e| panic!("{}: {e}", case.reproducer()));
            assert_eq!(out.config.id, config.id);
            cases += 1;
            failures.extend(out.failure(&case.reproducer(), config.name));
            out.feed
        };
        for (j, mix) in mixes().iter().enumerate() {
            for causal in [true, false] {
                let params = AttentionParams {
                    causal,
                    ..base.clone()
                };
                let feed = run(case_of(config, params, mix, 11 + j as u64));
                // Packed BSHD tensors are what tensor maps describe: every Hopper kernel takes
                // them by TMA, its boxes reading into the next sequence (and the NaN keys past
                // seqused_k) that the kernels must keep out of P.V.
                if config.name.starts_with("sm90_") {
                    assert_eq!(feed, flashattn::Feed::Tma, "{}", config.name);
                    tma_cases += 1;
                }
            }
        }
        let mods = config.score_mods;
        let params = AttentionParams {
            causal: true,
            window: Window::new(Some(31), None),
            alignment: if config.id % 2 == 0 {
                MaskAlignment::TopLeft
            } else {
                MaskAlignment::BottomRight
            },
            softcap: mods.then_some(30.0),
            ..base.clone()
        };
        let mixes = mixes();
        let mut case = case_of(config, params, &mixes[config.id as usize % mixes.len()], 5);
        case.base.q_layout = padded;
        case.base.kv_layout = Layout::Bhsd;
        case.base.o_layout = Some(padded);
        case.base.sinks = Some(HeadVector::Spread { lo: -4.0, hi: 4.0 });
        case.base.alibi = mods.then(|| HeadVector::alibi(4));
        run(case);
    }
    println!(
        "varlen grid: {} configurations, {cases} cases ({tma_cases} fed by TMA), {} failed",
        configs.len(),
        failures.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Where the fuzzer's regression seeds live (as for gpu_fuzz).
fn regression_file() -> &'static str {
    const FROM_CRATE: &str = "proptest-regressions/gpu_varlen.txt";
    const FROM_ROOT: &str = "fuzz/proptest-regressions/gpu_varlen.txt";
    [FROM_CRATE, FROM_ROOT]
        .into_iter()
        .find(|p| Path::new(p).is_file())
        .unwrap_or(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/proptest-regressions/gpu_varlen.txt"
        ))
}

fn space() -> CaseSpace {
    let mut space = if small() {
        CaseSpace::small()
    } else {
        CaseSpace::default()
    };
    let facts = flashattn::device_facts(stream().context()).expect("device facts");
    space.device = Some((*facts).clone());
    space
}

/// Cases per run: `FLASHATTN_VARLEN_CASES` (the issue's bar is 1,000), else 64.
fn case_count() -> u32 {
    std::env::var("FLASHATTN_VARLEN_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(64)
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: case_count(),
        max_shrink_iters: 300,
        failure_persistence: Some(Box::new(FileFailurePersistence::Direct(regression_file()))),
        ..ProptestConfig::default()
    })]

    #[test]
    #[ignore = "needs a CUDA GPU"]
    fn varlen_kernels_match_reference(case in varlen_strategy(&space()).expect("a compiled configuration")) {
        let out = run_varlen_case(stream(), &case);
        prop_assert!(out.is_ok(), "{}: launch error {}", case.reproducer(), out.as_ref().err().map(ToString::to_string).unwrap_or_default());
        let out = out.unwrap();
        prop_assert!(out.check.pass, "{} [{}]: {}", case.reproducer(), out.config.name, out.check.summary());
    }
}
