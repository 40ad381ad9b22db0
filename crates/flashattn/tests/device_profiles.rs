//! The automatic kernel choice on GPUs this project cannot run on: each profile is a real
//! device's compute capability, SM count and opt-in shared memory per block (vendor data), and
//! for every compiled dtype x head dim and a sweep of shapes the choice must exist, fit the
//! device's shared memory, and be code this binary actually carries for that architecture.
//! These stand in for the A10, L4, RTX 4090/5090 and B200 runs that were not possible.

use flashattn::{AttentionParams, DType, DeviceFacts, Error, KernelChoice, KernelConfig};

const KIB: usize = 1024;

fn profiles() -> Vec<DeviceFacts> {
    vec![
        DeviceFacts::new("NVIDIA A100-SXM4-80GB", 108, 80, 163 * KIB),
        DeviceFacts::new("NVIDIA A10", 72, 86, 99 * KIB),
        DeviceFacts::new("NVIDIA L4", 58, 89, 99 * KIB),
        DeviceFacts::new("NVIDIA GeForce RTX 4090", 128, 89, 99 * KIB),
        DeviceFacts::new("NVIDIA H100 80GB HBM3", 132, 90, 227 * KIB),
        DeviceFacts::new("NVIDIA B200", 148, 100, 227 * KIB),
        DeviceFacts::new("NVIDIA GeForce RTX 5090", 170, 120, 99 * KIB),
    ]
}

/// Whether this binary carries code for compute capability `cc`, judged from the build's arch
/// list alone (independently of the registry's ranges): SASS of the same major version and no
/// newer minor (arch-specific `a` targets: that exact one), or PTX of the newest plain target,
/// which the driver compiles for anything at least as new.
fn binary_carries(cc: u32) -> bool {
    let archs: Vec<&str> = flashattn::built_archs().collect();
    let number = |a: &str| -> u32 {
        a.trim_end_matches(|c: char| c.is_ascii_alphabetic())
            .parse()
            .unwrap()
    };
    let sass = archs.iter().any(|a| {
        let n = number(a);
        if a.ends_with('a') {
            n == cc
        } else {
            n / 10 == cc / 10 && n <= cc
        }
    });
    let ptx = archs
        .iter()
        .map(|a| number(a))
        .max()
        .is_some_and(|newest| newest <= cc);
    sass || ptx
}

/// Shapes a user runs: decode against a long cache, the S=512 seed family, long prefill, GQA.
fn sweep(head_dim: usize) -> Vec<AttentionParams> {
    let mut shapes = Vec::new();
    for (batch, heads_q, heads_kv, seqlen_q, seqlen_k, causal) in [
        (1, 32, 8, 1, 4096, false),
        (1, 32, 32, 1, 32768, false),
        (64, 32, 8, 1, 512, false),
        (8, 32, 8, 4, 4096, true),
        (1, 8, 8, 512, 512, false),
        (4, 16, 16, 512, 512, true),
        (8, 16, 16, 512, 512, false),
        (16, 32, 32, 1024, 1024, false),
        (2, 16, 16, 8192, 8192, true),
        (1, 16, 16, 16384, 16384, false),
        (2, 32, 8, 4096, 4096, true),
        (3, 7, 1, 113, 239, false),
    ] {
        shapes.push(AttentionParams {
            heads_kv,
            causal,
            ..AttentionParams::new(batch, seqlen_q, seqlen_k, heads_q, head_dim)
        });
    }
    shapes
}

fn compiled() -> Vec<(DType, usize)> {
    let mut pairs: Vec<(DType, usize)> = flashattn::kernel_configs()
        .iter()
        .map(|c| (c.dtype, c.head_dim))
        .collect();
    pairs.sort_by_key(|&(d, h)| (d.name(), h));
    pairs.dedup();
    pairs
}

#[test]
fn automatic_choice_exists_fits_and_was_built_for_every_profile() {
    let mut checked = 0;
    for device in profiles() {
        let carried = binary_carries(device.compute_capability);
        for (dtype, head_dim) in compiled() {
            for params in sweep(head_dim) {
                let choice = flashattn::choose_config(&params, dtype, &device);
                if !carried {
                    // A trimmed build (FLASHATTN_CUDA_ARCHS) without this GPU's arch: the
                    // refusal must say so, not fail at launch.
                    assert!(
                        matches!(choice, Err(Error::NotBuiltForDevice { .. })),
                        "{}: {choice:?}",
                        device.name
                    );
                    continue;
                }
                let c = choice.unwrap_or_else(|e| {
                    panic!(
                        "{} {dtype} d{head_dim} {params:?}: no choice: {e}",
                        device.name
                    )
                });
                assert!(
                    c.smem_bytes <= device.smem_per_block,
                    "{}: {} needs {} bytes of {}",
                    device.name,
                    c.name,
                    c.smem_bytes,
                    device.smem_per_block
                );
                assert!(
                    c.runs_on(device.compute_capability),
                    "{}: {}",
                    device.name,
                    c.name
                );
                assert_eq!((c.dtype, c.head_dim), (dtype, head_dim));
                checked += 1;
            }
        }
    }
    assert!(checked > 0, "no profile was checked");
}

/// The regression the issue names: an RTX 4090 decode call at d128 that used to pick a split
/// tile needing more shared memory than the 99 KiB the GPU allows.
#[test]
fn rtx_4090_decode_d128_stays_within_99_kib() {
    let device = DeviceFacts::new("NVIDIA GeForce RTX 4090", 128, 89, 99 * KIB);
    if !binary_carries(89) {
        return;
    }
    for dtype in [DType::F16, DType::BF16] {
        if !flashattn::compiled_head_dims(dtype).contains(&128) {
            continue;
        }
        let p = AttentionParams {
            heads_kv: 32,
            ..AttentionParams::new(1, 1, 4096, 32, 128)
        };
        let c = flashattn::choose_config(&p, dtype, &device).unwrap();
        assert!(
            c.smem_bytes <= 99 * KIB,
            "{}: {} bytes",
            c.name,
            c.smem_bytes
        );
        // And every d256 shape gets a tile that fits.
        if flashattn::compiled_head_dims(dtype).contains(&256) {
            let p = AttentionParams::new(2, 8192, 8192, 8, 256);
            let c = flashattn::choose_config(&p, dtype, &device).unwrap();
            assert!(
                c.smem_bytes <= 99 * KIB,
                "{}: {} bytes",
                c.name,
                c.smem_bytes
            );
        }
    }
}

fn named(params: &AttentionParams, c: &KernelConfig) -> AttentionParams {
    AttentionParams {
        kernel: KernelChoice::Named(c.name.to_string()),
        ..params.clone()
    }
}

#[test]
fn named_configurations_that_cannot_run_are_typed_errors() {
    let small = DeviceFacts::new("NVIDIA L4", 58, 89, 99 * KIB);
    let ampere = DeviceFacts::new("NVIDIA A100-SXM4-80GB", 108, 80, 163 * KIB);
    let mut too_big = 0;
    let mut wrong_arch = 0;
    for c in flashattn::kernel_configs() {
        let p = named(&AttentionParams::new(1, 128, 128, 2, c.head_dim), c);
        if binary_carries(89) && c.runs_on(89) && c.smem_bytes > 99 * KIB {
            match flashattn::choose_config(&p, c.dtype, &small) {
                Err(e @ Error::SharedMemoryExceeded { .. }) => {
                    assert!(e.is_validation());
                    let text = e.to_string();
                    assert!(text.contains(c.name) && text.contains("101376"), "{text}");
                    too_big += 1;
                }
                other => panic!("{}: {other:?}", c.name),
            }
        }
        if !c.runs_on(80) {
            match flashattn::choose_config(&p, c.dtype, &ampere) {
                Err(e @ Error::NotBuiltForDevice { .. }) => {
                    let text = e.to_string();
                    assert!(
                        text.contains("FLASHATTN_CUDA_ARCHS") && text.contains("8.0"),
                        "{text}"
                    );
                    wrong_arch += 1;
                }
                other => panic!("{}: {other:?}", c.name),
            }
        }
    }
    // The default build has both kinds (d256 and kv4 tiles above 99 KiB, sm90 tiles).
    if flashattn_sys_default_build() {
        assert!(too_big > 0 && wrong_arch > 0, "{too_big} {wrong_arch}");
    }
}

fn flashattn_sys_default_build() -> bool {
    let archs: Vec<&str> = flashattn::built_archs().collect();
    archs == ["80", "90a"] && flashattn::compiled_head_dims(DType::BF16).len() == 5
}

#[test]
fn a_smem_cap_makes_a_large_gpu_choose_like_a_small_one() {
    let mut capped = DeviceFacts::new("NVIDIA H100 80GB HBM3", 132, 90, 227 * KIB);
    capped.smem_per_block = flashattn::parse_smem_cap("99K").unwrap();
    assert_eq!(capped.smem_per_block, 101376);
    for (dtype, head_dim) in compiled() {
        for params in sweep(head_dim) {
            if let Ok(c) = flashattn::choose_config(&params, dtype, &capped) {
                assert!(c.smem_bytes <= 101376, "{}", c.name);
            }
        }
    }
}

#[test]
fn smem_cap_values_parse_or_are_refused() {
    assert_eq!(flashattn::parse_smem_cap("101376").unwrap(), 101376);
    assert_eq!(flashattn::parse_smem_cap(" 99kb ").unwrap(), 99 * KIB);
    for bad in ["", "0", "-5", "99M", "lots", "99 K B"] {
        match flashattn::parse_smem_cap(bad) {
            Err(e @ Error::Environment { .. }) => {
                assert!(e.to_string().contains("FLASHATTN_MAX_SMEM_PER_BLOCK"))
            }
            other => panic!("{bad:?}: {other:?}"),
        }
    }
}

#[test]
fn batch_times_heads_is_bounded_to_32_bits() {
    // Each is within the grid limit, the product is not: the causal tile renumbering counts
    // (head, batch) pairs in 32 bits, and used to skip the tail tiles silently.
    let p = AttentionParams::new(65535, 1, 1, 65535, 64);
    let t = flashattn::RawTensor {
        ptr: 0,
        len: 0,
        dtype: DType::F16,
        strides: flashattn::Strides::bshd(1, 65535, 64),
    };
    let raw = flashattn::RawForward::new(t, t, t, t, None);
    match flashattn::validate(&p, &raw) {
        Err(Error::TooLarge { what, .. }) => assert_eq!(what, "batch x heads_q"),
        other => panic!("{other:?}"),
    }
}
