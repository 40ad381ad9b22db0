//! The property test: random cases from [`CaseSpace`] on the GPU, each checked against the CPU
//! reference. Failures are shrunk by proptest and their seeds persisted in
//! `fuzz/proptest-regressions/gpu_fuzz.txt`, which proptest replays before any new case.
//! Run on a GPU with `cargo test -p flashattn-fuzz --test gpu_fuzz -- --include-ignored`;
//! `FLASHATTN_TEST_SMALL=1` (under compute-sanitizer) draws from [`CaseSpace::small`].

use std::path::Path;
use std::sync::{Arc, OnceLock};

use cudarc::driver::CudaStream;
use flashattn_fuzz::harness::{gpu_stream, run_case};
use flashattn_fuzz::strategies::CaseSpace;
use proptest::prelude::*;
use proptest::test_runner::FileFailurePersistence;

/// Where the regression seeds live. `cargo test` runs test binaries from `fuzz/`, while
/// `scripts/gpu-run.sh` runs the packed binary from the checkout root; the compile-time path
/// is the fallback for a binary run from anywhere else on the machine that built it.
fn regression_file() -> &'static str {
    const FROM_CRATE: &str = "proptest-regressions/gpu_fuzz.txt";
    const FROM_ROOT: &str = "fuzz/proptest-regressions/gpu_fuzz.txt";
    [FROM_CRATE, FROM_ROOT]
        .into_iter()
        .find(|p| Path::new(p).is_file())
        .unwrap_or(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/proptest-regressions/gpu_fuzz.txt"
        ))
}

/// One stream for every case: opening the device per case would dominate small cases.
fn stream() -> &'static Arc<CudaStream> {
    static STREAM: OnceLock<Arc<CudaStream>> = OnceLock::new();
    STREAM.get_or_init(|| gpu_stream().expect("a CUDA GPU of compute capability >= 8.0"))
}

/// The cases to draw: only configurations this GPU can run (built for it, within its shared
/// memory after any `FLASHATTN_MAX_SMEM_PER_BLOCK` cap).
fn space() -> CaseSpace {
    let mut space = if std::env::var("FLASHATTN_TEST_SMALL").is_ok_and(|v| v == "1") {
        CaseSpace::small()
    } else {
        CaseSpace::default()
    };
    let facts = flashattn::device_facts(stream().context()).expect("device facts");
    space.device = Some((*facts).clone());
    space
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 64,
        // Each shrinking step is a GPU run plus a CPU reference.
        max_shrink_iters: 300,
        failure_persistence: Some(Box::new(FileFailurePersistence::Direct(regression_file()))),
        ..ProptestConfig::default()
    })]

    #[test]
    #[ignore = "needs a CUDA GPU"]
    fn kernels_match_reference(case in space().strategy().expect("a compiled configuration")) {
        let out = run_case(stream(), &case);
        prop_assert!(out.is_ok(), "{}: launch error {}", case.reproducer(), out.as_ref().err().map(ToString::to_string).unwrap_or_default());
        let out = out.unwrap();
        prop_assert!(out.check.pass, "{} [{}]: {}", case.reproducer(), out.config.name, out.check.summary());
    }
}
