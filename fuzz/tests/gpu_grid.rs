//! The fixed correctness grid: awkward (Sq, Sk) pairs x MHA/GQA/MQA x causal x dtype x every
//! compiled head dim, random inputs at several scales and layouts, outputs poisoned first.
//! Run on a GPU with `cargo test -p flashattn-fuzz -- --include-ignored`.

use std::collections::BTreeMap;

use std::sync::Arc;

use flashattn::cudarc::driver::CudaStream;
use flashattn::{AttentionParams, DType, DeviceFacts, KernelChoice, KernelConfig, Schedule};
use flashattn_fuzz::harness::{Case, HeadVector, Inputs, Layout, gpu_stream, run_case};

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

/// The configurations this GPU can run: built for it, and within its shared memory (which
/// FLASHATTN_MAX_SMEM_PER_BLOCK lowers to test a 99 KiB part on a larger one).
fn runnable_configs(stream: &CudaStream) -> (Arc<DeviceFacts>, Vec<&'static KernelConfig>) {
    let device = flashattn::device_facts(stream.context()).unwrap();
    let configs = flashattn::kernel_configs()
        .iter()
        .filter(|c| device.can_run(c))
        .collect();
    (device, configs)
}

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
                        failures.extend(out.failure(&case.reproducer(), out.config.name));
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
    let (device, configs) = runnable_configs(&stream);
    let over_smem = flashattn::kernel_configs()
        .iter()
        .filter(|c| c.runs_on(device.compute_capability) && !device.can_run(c))
        .count();
    let mut ws_own_kernel = 0;
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
                Case {
                    // Each configuration both ways, O alone and O with LSE: the epilogue
                    // stores LSE only where asked, and must not touch it otherwise.
                    with_lse: (j + config.id as usize) % 2 == 0,
                    ..Case::new(config.dtype, params, 7 + j as u64)
                },
                LAYOUTS[(j + config.id as usize) % LAYOUTS.len()],
            );
            let out =
                run_case(&stream, &case).unwrap_or_else(|e| panic!("{}: {e}", case.reproducer()));
            // A warp-specialized configuration hands tensors no TMA tensor map describes (a
            // batch-broadcast layout) to its fallback tile, and says so.
            let fell_back = config.warp_specialized()
                && !out.config.warp_specialized()
                && (out.config.dtype, out.config.head_dim) == (config.dtype, config.head_dim);
            assert!(
                out.config.id == config.id || fell_back,
                "{} ran {}",
                config.name,
                out.config.name
            );
            if config.warp_specialized() && !fell_back {
                ws_own_kernel += 1;
            }
            cases += 1;
            failures.extend(out.failure(&case.reproducer(), config.name));
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
    let ws_configs = configs.iter().filter(|c| c.warp_specialized()).count();
    println!(
        "warp-specialized: {ws_own_kernel} cases on the kernel itself over {ws_configs} configurations"
    );
    assert!(
        ws_configs == 0 || ws_own_kernel >= ws_configs,
        "the warp-specialized kernel itself ran in {ws_own_kernel} cases"
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

/// Row maxima that keep rising along the kernels' key walk (last key tile first): each key tile
/// raises them by 3, 9 or 30 in base-2 exponent units, so every tile moves the rows' exponent
/// reference and rescales O and the row sums (by 2^-30 a tile at the steepest); and once
/// falling (the first tile holds the maxima, later tiles add little). Every configuration, with
/// LSE. A softmax that kept an earlier reference would overflow P; one whose rescale missed
/// rows would weight the tiles wrongly.
#[test]
#[ignore = "needs a CUDA GPU"]
fn rising_row_maxima() {
    let stream = gpu_stream().expect("a CUDA GPU of compute capability >= 8.0");
    let (_, configs) = runnable_configs(&stream);
    let mut failures = Vec::new();
    let mut cases = 0;
    for (ci, config) in configs.iter().enumerate() {
        // Default scale: one raw score unit is log2(e) / sqrt(d) exponent units.
        let exponent_per_raw = std::f64::consts::LOG2_E / (config.head_dim as f64).sqrt();
        let seqlen_k = config.block_n * 6 + 17;
        for (j, rise_per_tile) in [3.0, 9.0, 30.0, -9.0].into_iter().enumerate() {
            let per_key = -rise_per_tile / (exponent_per_raw * config.block_n as f64);
            let params = AttentionParams {
                heads_q: 2,
                heads_kv: 1,
                kernel: KernelChoice::Id(config.id),
                ..AttentionParams::new(1, 70, seqlen_k, 2, config.head_dim)
            };
            let case = Case {
                inputs: Inputs::Drift {
                    per_key: per_key as f32,
                },
                with_lse: true,
                ..Case::new(config.dtype, params, 1300 + (ci * 4 + j) as u64)
            };
            let out =
                run_case(&stream, &case).unwrap_or_else(|e| panic!("{}: {e}", case.reproducer()));
            cases += 1;
            failures.extend(out.failure(&case.reproducer(), config.name));
        }
    }
    println!(
        "rising row maxima: {} configurations, {cases} cases, {} failed",
        configs.len(),
        failures.len()
    );
    assert!(cases > 0, "no configuration ran");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// PyTorch's top-left causal alignment, or FlashAttention's bottom-right.
fn alignment(top_left: bool) -> flashattn::MaskAlignment {
    if top_left {
        flashattn::MaskAlignment::TopLeft
    } else {
        flashattn::MaskAlignment::BottomRight
    }
}

/// A shape of the warp-specialized walk tests in one of their three variants: 0 plain, 1 with LSE
/// and a sink, 2 with softcap and ALiBi (None where the configuration has no score-modifier
/// kernel); on `config`, with the inputs of `seed`.
fn ws_variant_case(
    config: &KernelConfig,
    params: AttentionParams,
    variant: usize,
    seed: u64,
) -> Option<Case> {
    if variant == 2 && !config.score_mods {
        return None;
    }
    let heads_q = params.heads_q;
    let params = AttentionParams {
        softcap: (variant == 2).then_some(30.0),
        kernel: KernelChoice::Id(config.id),
        ..params
    };
    Some(Case {
        with_lse: variant > 0,
        sinks: (variant == 1).then_some(HeadVector::Spread { lo: -2.0, hi: 2.0 }),
        alibi: (variant == 2).then(|| HeadVector::alibi(heads_q)),
        ..Case::new(config.dtype, params, seed)
    })
}

/// Whether the walk tests' shapes deal as their comments say: they were picked on the host's
/// cost models for a 132-SM Hopper part (the H100's and H200's), so elsewhere a shape may run
/// another schedule and only its numbers are checked.
fn schedules_known(device: &DeviceFacts) -> bool {
    device.compute_capability == 90 && device.sm_count == 132
}

/// Runs `case`, which must run on `config` and, where given and the schedules are known here
/// ([`schedules_known`]), with schedule `want`; its failure, if any, joins `failures`.
fn run_on_config(
    stream: &Arc<CudaStream>,
    device: &DeviceFacts,
    config: &KernelConfig,
    case: &Case,
    want: Option<Schedule>,
    failures: &mut Vec<String>,
) {
    let out = run_case(stream, case).unwrap_or_else(|e| panic!("{}: {e}", case.reproducer()));
    assert_eq!(
        out.config.id, config.id,
        "{} ran {}",
        config.name, out.config.name
    );
    failures.extend(out.failure(&case.reproducer(), config.name));
    if let Some(want) = want.filter(|_| schedules_known(device)) {
        if out.schedule != want {
            failures.push(format!(
                "{} [{}]: ran as {}, the shape is picked to run as {want}",
                case.reproducer(),
                config.name,
                out.schedule
            ));
        }
    }
}

/// A dense, non-causal, unwindowed launch of `config` with more query tiles than SMs walks where
/// the tile has a persistent kernel (head dims 64 and 128) and its keys are within the walk's
/// limit, which the shapes below are.
fn plain_walk(config: &KernelConfig, device: &DeviceFacts, p: &AttentionParams) -> Schedule {
    let tiles = p.batch * p.heads_q * p.seqlen_q.div_ceil(config.block_m);
    if config.head_dim <= 128 && tiles > device.sm_count {
        Schedule::Walk
    } else {
        Schedule::TilePerCta
    }
}

/// The line a warp-specialized walk test prints (`what`: its name in the summaries) and the
/// checks it ends with: something ran on sm_90, nothing failed.
fn finish_ws_test(
    what: &str,
    device: &DeviceFacts,
    configs: usize,
    cases: usize,
    failures: &[String],
) {
    println!(
        "{what}: {configs} warp-specialized configurations, {cases} cases, {} failed",
        failures.len()
    );
    assert!(
        device.compute_capability != 90 || cases > 0,
        "no warp-specialized configuration ran on sm_90"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A sequence's last query tile with warpgroups that have no rows: on the warp-specialized tiles
/// those pass their turns without computing, and a persistent launch (more tiles than SMs, head
/// dims 64 and 128) deals the short tiles after the full ones or, where K/V outgrows the L2 budget,
/// rotates each sequence's query tiles (common/tile_work.cuh). Every warp-specialized
/// configuration, with the last tile holding 8 rows (only the first consumer computes) and 100
/// rows (the third of a 192-row tile has none); at head dim 64 with 320 tiles (persistent on a
/// 132-SM part), once with 1000 keys a head (41 MB of K/V: the rotation), once more so with a
/// last tile of 64 rows (the most a tile split by keys across the consumers holds: the
/// persistent 192-row walk's) and once with 134 query tiles in one sequence; at the wider head
/// dims once with 160 tiles (persistent at head dims 96 and 128, O stored from registers); plain, with
/// LSE and a sink, and with softcap and ALiBi where the tile has score modifiers. With 203 keys
/// (two key tiles) the split tile's third consumer has no key tile of its own. On a 132-SM Hopper
/// part each launch must report a walk exactly where it has more tiles than SMs (`plain_walk`).
#[test]
#[ignore = "needs a CUDA GPU"]
fn ws_short_last_tiles() {
    let stream = gpu_stream().expect("a CUDA GPU of compute capability >= 8.0");
    let (device, mut configs) = runnable_configs(&stream);
    configs.retain(|c| c.warp_specialized());
    let mut failures = Vec::new();
    let mut cases = 0;
    for (ci, config) in configs.iter().enumerate() {
        let heads = if config.head_dim == 64 { 80 } else { 8 };
        // (batch, query heads, KV heads, query rows, keys, variants)
        let mut shapes = vec![
            (2, heads, heads / 4, config.block_m + 8, 203, 3),
            (2, heads, heads / 4, config.block_m + 100, 203, 3),
        ];
        if config.head_dim == 64 {
            shapes.push((2, heads, heads, config.block_m + 8, 1000, 2));
            shapes.push((2, heads, heads, config.block_m + 64, 1000, 2));
            shapes.push((1, 4, 1, config.block_m * 133 + 8, 203, 1));
        } else {
            // 160 tiles, 16 of them short: a persistent walk at head dims 96 and 128 (O from
            // registers).
            shapes.push((2, heads, heads / 4, config.block_m * 9 + 8, 203, 3));
        }
        for (j, (batch, heads_q, heads_kv, seqlen_q, seqlen_k, variants)) in
            shapes.into_iter().enumerate()
        {
            for variant in 0..variants {
                let params = AttentionParams {
                    heads_q,
                    heads_kv,
                    ..AttentionParams::new(batch, seqlen_q, seqlen_k, heads_q, config.head_dim)
                };
                let seed = 900 + (ci * 7 + j * 3 + variant) as u64;
                let want = plain_walk(config, &device, &params);
                if let Some(case) = ws_variant_case(config, params, variant, seed) {
                    run_on_config(&stream, &device, config, &case, Some(want), &mut failures);
                    cases += 1;
                }
            }
        }
    }
    finish_ws_test("short last tiles", &device, configs.len(), cases, &failures);
}

/// Causal launches of the warp-specialized tiles that walk (common/tile_work.cuh, the fold:
/// causal_fold_deal decides with the SM count of the part; these shapes were picked on its model
/// for 132 SMs, the H100's and H200's): every configuration at head dims 64 and 128 with 64 (batch,
/// head) pairs of three full query tiles (a fold and a middle tile each), of three and a short
/// one (folded in), the same with 300 keys more than queries (a chunk of a longer prompt), all of
/// which walk on every tile; 96 pairs of two full tiles and a short one (a single after the
/// folds) and of two tiles top-left over half as many keys (rows past the keys see them all),
/// which walk on the 128-row tiles (on a 132-SM Hopper part those launches must report the
/// folds). Plain everywhere, with LSE and a sink on two shapes, and with softcap and ALiBi on one
/// where the tile has score modifiers.
#[test]
#[ignore = "needs a CUDA GPU"]
fn ws_causal_walks() {
    let stream = gpu_stream().expect("a CUDA GPU of compute capability >= 8.0");
    let (device, mut configs) = runnable_configs(&stream);
    configs.retain(|c| c.warp_specialized() && c.head_dim <= 128);
    let mut failures = Vec::new();
    let mut cases = 0;
    for (ci, config) in configs.iter().enumerate() {
        let m = config.block_m;
        // Variants, a bit each: plain, with LSE and a sink, with softcap and ALiBi.
        const PLAIN: u8 = 1;
        const SINK: u8 = 2;
        const MODS: u8 = 4;
        // (batch, query heads, KV heads, query rows, keys, top-left, variants)
        let shapes = [
            (2, 32, 8, 3 * m, 3 * m, false, PLAIN | SINK),
            (2, 32, 8, 3 * m + 8, 3 * m + 8, false, PLAIN | MODS),
            (2, 32, 32, 3 * m + 8, 3 * m + 308, false, PLAIN | SINK),
            (2, 48, 12, 2 * m + 40, 2 * m + 40, false, PLAIN),
            (2, 48, 12, 2 * m, m, true, PLAIN),
        ];
        for (j, (batch, heads_q, heads_kv, seqlen_q, seqlen_k, top_left, variants)) in
            shapes.into_iter().enumerate()
        {
            for variant in (0..3).filter(|v| variants & (1 << v) != 0) {
                let params = AttentionParams {
                    heads_q,
                    heads_kv,
                    causal: true,
                    alignment: alignment(top_left),
                    ..AttentionParams::new(batch, seqlen_q, seqlen_k, heads_q, config.head_dim)
                };
                let seed = 1700 + (ci * 7 + j * 3 + variant) as u64;
                // The first three shapes fold on every tile, the last two on the 128-row ones.
                let want = (j < 3 || m == 128).then_some(Schedule::CausalFolds);
                if let Some(case) = ws_variant_case(config, params, variant, seed) {
                    run_on_config(&stream, &device, config, &case, want, &mut failures);
                    cases += 1;
                }
            }
        }
    }
    finish_ws_test("causal walks", &device, configs.len(), cases, &failures);
}

/// Windowed launches of the warp-specialized tiles that walk (plain round robin; every row sees
/// its diagonal key, so no more queries than keys): every configuration at head dims 64 and 128,
/// 64 (batch, head) pairs of three query tiles (192 or more tiles, past a 132-SM part's SMs) with
/// a causal 100-key window over 50 keys more than queries, a 64/64 window with a short last tile,
/// and a 200-key left window top-left over a third more keys; plain, with LSE and a sink, and with
/// softcap and ALiBi where the tile has score modifiers. On a 132-SM Hopper part every launch must
/// report a walk.
#[test]
#[ignore = "needs a CUDA GPU"]
fn ws_window_walks() {
    let stream = gpu_stream().expect("a CUDA GPU of compute capability >= 8.0");
    let (device, mut configs) = runnable_configs(&stream);
    configs.retain(|c| c.warp_specialized() && c.head_dim <= 128);
    let mut failures = Vec::new();
    let mut cases = 0;
    for (ci, config) in configs.iter().enumerate() {
        let m = config.block_m;
        // (query rows, keys, causal, top-left, window left, window right)
        let shapes = [
            (3 * m, 3 * m + 50, true, false, Some(100), None),
            (3 * m + 8, 3 * m + 8, false, false, Some(64), Some(64)),
            (3 * m, 4 * m, false, true, Some(200), Some(0)),
        ];
        for (j, (seqlen_q, seqlen_k, causal, top_left, left, right)) in
            shapes.into_iter().enumerate()
        {
            for variant in 0..3 {
                let params = AttentionParams {
                    heads_q: 32,
                    heads_kv: 8,
                    causal,
                    window: flashattn::Window::new(left, right),
                    alignment: alignment(top_left),
                    ..AttentionParams::new(2, seqlen_q, seqlen_k, 32, config.head_dim)
                };
                let seed = 2300 + (ci * 7 + j * 3 + variant) as u64;
                // Windowed walks keep the plain round robin.
                if let Some(case) = ws_variant_case(config, params, variant, seed) {
                    run_on_config(
                        &stream,
                        &device,
                        config,
                        &case,
                        Some(Schedule::Walk),
                        &mut failures,
                    );
                    cases += 1;
                }
            }
        }
    }
    finish_ws_test("window walks", &device, configs.len(), cases, &failures);
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

/// One deterministic feature setting of [`masks_and_score_mods_on_every_config`].
struct Feature {
    name: &'static str,
    causal: bool,
    window: flashattn::Window,
    top_left: bool,
    softcap: Option<f32>,
    alibi: Option<HeadVector>,
    sinks: Option<HeadVector>,
}

impl Feature {
    fn plain(name: &'static str) -> Self {
        Feature {
            name,
            causal: false,
            window: flashattn::Window::UNBOUNDED,
            top_left: false,
            softcap: None,
            alibi: None,
            sinks: None,
        }
    }

    fn needs_score_mods(&self) -> bool {
        self.softcap.is_some() || self.alibi.is_some()
    }
}

fn features() -> Vec<Feature> {
    use flashattn::Window;
    let w = |l: Option<usize>, r: Option<usize>| Window::new(l, r);
    vec![
        Feature {
            window: w(Some(0), Some(0)),
            ..Feature::plain("window (0, 0): the diagonal key alone")
        },
        Feature {
            causal: true,
            window: w(Some(16), None),
            ..Feature::plain("causal + window left 16")
        },
        Feature {
            window: w(Some(100), Some(3)),
            ..Feature::plain("window (100, 3)")
        },
        Feature {
            causal: true,
            top_left: true,
            ..Feature::plain("top-left causal")
        },
        Feature {
            causal: true,
            top_left: true,
            window: w(Some(5), None),
            sinks: Some(HeadVector::Constant(25.0)),
            ..Feature::plain("top-left causal window 5 + sink 25 (rows without keys when Sq > Sk)")
        },
        Feature {
            causal: true,
            sinks: Some(HeadVector::Spread { lo: -4.0, hi: 4.0 }),
            ..Feature::plain("causal + sinks in [-4, 4] (bottom-right: empty rows when Sq > Sk)")
        },
        Feature {
            sinks: Some(HeadVector::Constant(-25.0)),
            ..Feature::plain("sink -25")
        },
        Feature {
            softcap: Some(30.0),
            ..Feature::plain("softcap 30")
        },
        Feature {
            causal: true,
            softcap: Some(1e-3),
            ..Feature::plain("causal + softcap 1e-3 (saturated)")
        },
        Feature {
            causal: true,
            alibi: Some(HeadVector::alibi(4)),
            ..Feature::plain("causal + ALiBi (BLOOM slopes)")
        },
        Feature {
            top_left: true,
            window: w(Some(64), Some(64)),
            alibi: Some(HeadVector::Spread { lo: 0.0, hi: 1.0 }),
            ..Feature::plain("top-left window (64, 64) + ALiBi")
        },
        Feature {
            causal: true,
            window: w(Some(200), None),
            softcap: Some(50.0),
            alibi: Some(HeadVector::Spread { lo: 0.0, hi: 0.5 }),
            sinks: Some(HeadVector::Spread { lo: -2.0, hi: 2.0 }),
            ..Feature::plain("everything: causal window 200, softcap 50, ALiBi, sinks")
        },
    ]
}

/// Masks and score modifiers on every configuration the GPU runs (softcap and ALiBi on those
/// compiled with score modifiers, where they run the second kernel), on the awkward lengths
/// 1, 7, 113, 239 and 1023 (each feature on two (Sq, Sk) pairs, rotating through the pairs),
/// both dtypes, outputs poisoned, LSE checked.
#[test]
#[ignore = "needs a CUDA GPU"]
fn masks_and_score_mods_on_every_config() {
    let stream = gpu_stream().expect("a CUDA GPU of compute capability >= 8.0");
    let small = std::env::var("FLASHATTN_TEST_SMALL").is_ok_and(|v| v == "1");
    let pairs: &[(usize, usize)] = if small {
        &[(1, 1), (7, 113), (113, 7), (239, 239), (70, 150)]
    } else {
        &[
            (1, 1),
            (7, 239),
            (113, 1023),
            (239, 7),
            (1023, 113),
            (1023, 1023),
            (239, 239),
        ]
    };
    let (_, configs) = runnable_configs(&stream);
    let features = features();
    let mut failures = Vec::new();
    let (mut cases, mut mod_cases) = (0, 0);
    for (ci, config) in configs.iter().enumerate() {
        for (fi, f) in features.iter().enumerate() {
            if f.needs_score_mods() && !config.score_mods {
                continue;
            }
            for j in 0..2 {
                let (sq, sk) = pairs[(ci + fi * 2 + j) % pairs.len()];
                let params = AttentionParams {
                    heads_q: 4,
                    heads_kv: 2,
                    causal: f.causal,
                    window: f.window,
                    alignment: alignment(f.top_left),
                    softcap: f.softcap,
                    kernel: KernelChoice::Id(config.id),
                    ..AttentionParams::new(2, sq, sk, 4, config.head_dim)
                };
                let case = Case {
                    alibi: f.alibi,
                    sinks: f.sinks,
                    inputs: Inputs::Normal {
                        std: SCALES[(fi + j) % SCALES.len()],
                    },
                    kv_layout: if j == 0 { Layout::Bhsd } else { Layout::Bshd },
                    ..Case::new(config.dtype, params, 500 + (ci * 31 + fi * 7 + j) as u64)
                };
                let out = run_case(&stream, &case)
                    .unwrap_or_else(|e| panic!("{} [{}]: {e}", case.reproducer(), f.name));
                assert_eq!(out.config.id, config.id);
                cases += 1;
                mod_cases += usize::from(f.needs_score_mods());
                let label = format!("{} ({})", config.name, f.name);
                failures.extend(out.failure(&case.reproducer(), &label));
            }
        }
    }
    let with_mods = configs.iter().filter(|c| c.score_mods).count();
    println!(
        "masks and score modifiers: {} configurations ({with_mods} with score modifiers), {cases} cases \
         ({mod_cases} on the score-modifier kernels), {} failed",
        configs.len(),
        failures.len()
    );
    assert!(
        with_mods > 0,
        "no configuration with score modifiers runs here"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The automatic choice with softcap / ALiBi picks a configuration that has score modifiers,
/// and naming one without them is refused before launch.
#[test]
#[ignore = "needs a CUDA GPU"]
fn score_mods_choose_capable_configs() {
    let stream = gpu_stream().expect("a CUDA GPU of compute capability >= 8.0");
    let device = flashattn::device_facts(stream.context()).unwrap();
    for dtype in [DType::F16, DType::BF16] {
        for d in flashattn::compiled_head_dims(dtype) {
            let params = AttentionParams {
                softcap: Some(20.0),
                causal: true,
                ..AttentionParams::new(1, 300, 300, 2, d)
            };
            let out = run_case(&stream, &Case::new(dtype, params.clone(), 3)).unwrap();
            assert!(out.config.score_mods, "{}", out.config.name);
            assert!(out.check.pass, "{}", out.check.summary());
            if let Some(plain) = flashattn::kernel_configs()
                .iter()
                .find(|c| c.dtype == dtype && c.head_dim == d && !c.score_mods && device.can_run(c))
            {
                let named = AttentionParams {
                    kernel: KernelChoice::Id(plain.id),
                    ..params
                };
                match run_case(&stream, &Case::new(dtype, named, 3)) {
                    Err(flashattn::Error::FeatureNotCompiled { .. }) => {}
                    other => panic!("{}: expected FeatureNotCompiled, got {other:?}", plain.name),
                }
            }
        }
    }
}

/// The split tail (cuda-src/common/tile_work.cuh, SplitTail): non-causal launches of the
/// warp-specialized head-dim-96 and -128 tiles that walk, given a workspace, split their last full tiles'
/// keys across the SMs and merge the parts through it. Every such configuration on a shape whose
/// walk splits on a 132-SM part (picked on split_tail_deal's model: 140 or 150 full tiles over
/// 4,096 keys, 6,000 on the 176-key tile, with a short last tile of 100 or 8 rows, GQA), plain
/// with LSE, with a sink, and with softcap and ALiBi in turn across the configurations; each case
/// run with a zeroed workspace (checked against the reference, and run a second time on the
/// workspace as the first left it, which must repeat it bit for bit: the merge's order is fixed
/// and the counters are back at zero) and without one, which must not split. On a 132-SM Hopper
/// part every run with a workspace must report the split tail (`LaunchInfo::schedule`) and its
/// O differ in its bits from the unsplit one's (the parts' sums round differently).
/// FLASHATTN_TEST_SMALL=1 (under the sanitizers): the first such configuration only.
#[test]
#[ignore = "needs a CUDA GPU"]
fn ws_split_tails() {
    let stream = gpu_stream().expect("a CUDA GPU of compute capability >= 8.0");
    let (device, mut configs) = runnable_configs(&stream);
    configs.retain(|c| c.warp_specialized() && matches!(c.head_dim, 96 | 128));
    if std::env::var("FLASHATTN_TEST_SMALL").is_ok_and(|v| v == "1") {
        configs.truncate(1);
    }
    let splits_here = schedules_known(&device);
    let mut failures = Vec::new();
    let mut cases = 0;
    let mut unsplit = Vec::new();
    for (ci, config) in configs.iter().enumerate() {
        // (query heads, KV heads, query rows, keys)
        let (heads_q, heads_kv, seqlen_q, seqlen_k) = match (config.block_m, config.block_n) {
            (192, _) => (70, 14, 484, 4096),
            (_, 176) => (75, 15, 264, 6000),
            _ => (75, 15, 264, 4096),
        };
        let params = AttentionParams {
            heads_q,
            heads_kv,
            ..AttentionParams::new(1, seqlen_q, seqlen_k, heads_q, config.head_dim)
        };
        let seed = 3100 + ci as u64;
        let Some(case) = ws_variant_case(config, params.clone(), ci % 3, seed)
            .or_else(|| ws_variant_case(config, params, 0, seed))
        else {
            continue;
        };
        let case = Case {
            with_lse: true,
            ..case
        };
        let split = Case {
            workspace: true,
            ..case.clone()
        };
        let run =
            |c: &Case| run_case(&stream, c).unwrap_or_else(|e| panic!("{}: {e}", c.reproducer()));
        let (with, without) = (run(&split), run(&case));
        for (c, out) in [(&split, &with), (&case, &without)] {
            assert_eq!(
                out.config.id, config.id,
                "{} ran {}",
                config.name, out.config.name
            );
            failures.extend(out.failure(&c.reproducer(), config.name));
        }
        // Split, the pieces' sums round differently from the whole tile's.
        if with.schedule != Schedule::SplitTail || with.o_digest == without.o_digest {
            unsplit.push(format!(
                "{} [{}]: ran as {}",
                split.reproducer(),
                config.name,
                with.schedule
            ));
        }
        if without.schedule == Schedule::SplitTail {
            failures.push(format!(
                "{} [{}]: split without a workspace",
                case.reproducer(),
                config.name
            ));
        }
        cases += 1;
    }
    println!(
        "split tails: {} not split{}",
        unsplit.len(),
        if splits_here {
            ""
        } else {
            " (not a 132-SM Hopper part: splits not required)"
        }
    );
    finish_ws_test("split tails", &device, configs.len(), cases, &failures);
    assert!(
        !splits_here || unsplit.is_empty(),
        "the split tail did not run:\n{}",
        unsplit.join("\n")
    );
}
