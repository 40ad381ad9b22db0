//! The fixed correctness grid: awkward (Sq, Sk) pairs x MHA/GQA/MQA x causal x dtype x every
//! compiled head dim, random inputs at several scales and layouts, outputs poisoned first.
//! Run on a GPU with `cargo test -p flashattn-fuzz -- --include-ignored`.

use std::collections::BTreeMap;

use flashattn::{AttentionParams, DType, KernelChoice};
use flashattn_fuzz::harness::{Case, Inputs, Layout, gpu_stream, run_case};

const SEQ_PAIRS: &[(usize, usize)] = &[
    (1, 1),
    (7, 9),
    (113, 203),
    (239, 1),
    (512, 512),
    (1023, 1024),
    (2048, 2048),
];
const HEADS: &[(usize, usize)] = &[(2, 2), (4, 2), (3, 1)]; // MHA, GQA, MQA
const PADDED: Layout = Layout::Padded {
    head_gap: 8,
    row_gap: 16,
};
/// (Q, K, V, O) layouts, cycled through the grid: transposed and padded tensors, K/V shared by
/// the whole batch (stride 0), K and V laid out differently, O laid out unlike Q (padded O
/// also checks that its gaps are never written).
const LAYOUTS: &[[Layout; 4]] = &[
    [Layout::Bshd, Layout::Bshd, Layout::Bshd, Layout::Bshd],
    [Layout::Bhsd, Layout::Bshd, Layout::Bshd, Layout::Bhsd],
    [Layout::Bshd, PADDED, PADDED, Layout::Bshd],
    [
        Layout::Bshd,
        Layout::BatchBroadcast,
        Layout::BatchBroadcast,
        PADDED,
    ],
    [Layout::Bhsd, Layout::Bshd, Layout::Bhsd, Layout::Bshd],
    [PADDED, Layout::Bhsd, Layout::BatchBroadcast, Layout::Bhsd],
];

fn with_layouts(case: Case, [q, k, v, o]: [Layout; 4]) -> Case {
    Case {
        q_layout: q,
        kv_layout: k,
        v_layout: Some(v),
        o_layout: Some(o),
        ..case
    }
}

const SCALES: &[f32] = &[1.0, 0.1, 4.0];

#[test]
#[ignore = "needs a CUDA GPU"]
fn grid_matches_reference() {
    let stream = gpu_stream().expect("a CUDA GPU of compute capability >= 8.0");
    let mut worst: BTreeMap<(String, usize), f64> = BTreeMap::new();
    let mut failures = Vec::new();
    let mut cases = 0;
    for dtype in [DType::F16, DType::BF16] {
        let dims = flashattn::compiled_head_dims(dtype);
        assert!(
            dims.contains(&64) && dims.contains(&128),
            "{dtype}: head dims 64 and 128 must be compiled, have {dims:?}"
        );
        for &d in &dims {
            for &(sq, sk) in SEQ_PAIRS {
                for &(hq, hkv) in HEADS {
                    for causal in [false, true] {
                        let i = cases;
                        let batch = if sq * sk >= 1 << 20 { 1 } else { 2 };
                        let params = AttentionParams {
                            heads_q: hq,
                            heads_kv: hkv,
                            causal,
                            ..AttentionParams::new(batch, sq, sk, hq, d)
                        };
                        let case = with_layouts(
                            Case {
                                inputs: Inputs::Normal {
                                    std: SCALES[(i / 3) % SCALES.len()],
                                },
                                ..Case::new(dtype, params, 1000 + i as u64)
                            },
                            LAYOUTS[i % LAYOUTS.len()],
                        );
                        let out = run_case(&stream, &case)
                            .unwrap_or_else(|e| panic!("{}: {e}", case.reproducer()));
                        cases += 1;
                        let w = worst.entry((dtype.to_string(), d)).or_insert(0.0);
                        *w = w.max(out.check.ratio);
                        if !out.check.pass {
                            failures.push(format!(
                                "{} [{}]: {}",
                                case.reproducer(),
                                out.config.name,
                                out.check.summary()
                            ));
                        }
                    }
                }
            }
        }
    }
    println!("grid: {cases} cases, {} failed", failures.len());
    for ((dtype, d), ratio) in &worst {
        println!("worst error / bound: {dtype} d{d}: {ratio:.3}");
    }
    assert!(
        failures.is_empty(),
        "{} of {cases} cases failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Every compiled configuration, not only the automatic choice, on the shapes that stress
/// tails, fully masked rows and multi-tile causal diagonals.
#[test]
#[ignore = "needs a CUDA GPU"]
fn every_config_on_awkward_shapes() {
    let stream = gpu_stream().expect("a CUDA GPU of compute capability >= 8.0");
    let mut failures = Vec::new();
    let mut cases = 0;
    // FLASHATTN_TEST_SMALL=1 (used under compute-sanitizer) keeps shapes small enough for
    // racecheck while still covering tails, masks and multiple K/V tiles.
    let small = std::env::var("FLASHATTN_TEST_SMALL").is_ok_and(|v| v == "1");
    let shapes: &[(usize, usize, bool)] = if small {
        &[
            (113, 203, true),
            (239, 1, false),
            (70, 150, false),
            (1, 1, false),
        ]
    } else {
        &[
            (113, 203, true),
            (239, 1, false),
            (300, 77, true),
            (1023, 1024, true),
            (1, 1, false),
        ]
    };
    // The configurations this GPU can run: built for it, and within its shared memory (which
    // FLASHATTN_MAX_SMEM_PER_BLOCK lowers to test a 99 KiB part on a larger one).
    let device = flashattn::device_facts(stream.context()).unwrap();
    let configs: Vec<_> = flashattn::kernel_configs()
        .iter()
        .filter(|c| device.can_run(c))
        .collect();
    let over_smem = flashattn::kernel_configs()
        .iter()
        .filter(|c| c.runs_on(device.compute_capability) && !device.can_run(c))
        .count();
    for config in &configs {
        for (j, &(sq, sk, causal)) in shapes.iter().enumerate() {
            let params = AttentionParams {
                heads_q: 4,
                heads_kv: 2,
                causal,
                kernel: KernelChoice::Id(config.id),
                ..AttentionParams::new(2, sq, sk, 4, config.head_dim)
            };
            let case = with_layouts(
                Case::new(config.dtype, params, 7 + j as u64),
                LAYOUTS[(j + config.id as usize) % LAYOUTS.len()],
            );
            let out =
                run_case(&stream, &case).unwrap_or_else(|e| panic!("{}: {e}", case.reproducer()));
            assert_eq!(out.config.id, config.id);
            cases += 1;
            if !out.check.pass {
                failures.push(format!(
                    "{} [{}]: {}",
                    case.reproducer(),
                    config.name,
                    out.check.summary()
                ));
            }
        }
    }
    println!(
        "configs: {} of {} compiled configurations run on this GPU ({over_smem} more were built \
         for it but exceed {} bytes of shared memory), {cases} cases, {} failed",
        configs.len(),
        flashattn::kernel_configs().len(),
        device.smem_per_block,
        failures.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Inputs that break a naive softmax: huge rows, constant rows, tied maxima.
#[test]
#[ignore = "needs a CUDA GPU"]
fn hostile_inputs() {
    let stream = gpu_stream().expect("a CUDA GPU of compute capability >= 8.0");
    let mut failures = Vec::new();
    for dtype in [DType::F16, DType::BF16] {
        for (i, inputs) in [
            Inputs::LargeRows {
                std: 1.0,
                factor: 30.0,
            },
            Inputs::ConstantRows,
            Inputs::TiedMax { std: 1.0 },
            Inputs::Normal { std: 0.01 },
            Inputs::Normal { std: 30.0 },
        ]
        .into_iter()
        .enumerate()
        {
            for causal in [false, true] {
                let params = AttentionParams {
                    causal,
                    ..AttentionParams::new(2, 200, 333, 2, 64)
                };
                let case = Case {
                    inputs,
                    ..Case::new(dtype, params, 99 + i as u64)
                };
                let out = run_case(&stream, &case).unwrap();
                if !out.check.pass {
                    failures.push(format!("{}: {}", case.reproducer(), out.check.summary()));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Cases the fuzzer once failed, replayed exactly (inputs are a function of the seed).
#[test]
#[ignore = "needs a CUDA GPU"]
fn fuzz_regressions() {
    let stream = gpu_stream().expect("a CUDA GPU of compute capability >= 8.0");
    // Sk = 1 with scores near 1e4: the row max must map to exactly exp2(0) = 1.
    let sk1 = Case {
        inputs: Inputs::Normal { std: 30.0 },
        with_lse: false,
        ..Case::new(
            DType::F16,
            AttentionParams {
                heads_kv: 1,
                softmax_scale: Some(1.2882953),
                ..AttentionParams::new(1, 3, 1, 3, 64)
            },
            5005735666067572984,
        )
    };
    // Scores near 1e5, past f16's range: the naive baseline must keep a yardstick.
    let overflow = Case {
        inputs: Inputs::Normal { std: 30.0 },
        ..Case::new(
            DType::F16,
            AttentionParams {
                softmax_scale: Some(1.6912421),
                ..AttentionParams::new(1, 1, 219, 1, 256)
            },
            6592401193337193850,
        )
    };
    for case in [sk1, overflow] {
        let out = run_case(&stream, &case).unwrap();
        assert!(
            out.check.pass,
            "{}: {}",
            case.reproducer(),
            out.check.summary()
        );
    }
}
