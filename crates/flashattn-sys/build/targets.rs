//! What to build, from the environment: SM targets, head dims and element types. A malformed
//! value stops the build with one sentence naming the variable and the entry.

use std::env;

use crate::codegen::{DTYPES, Dtype};
use crate::fail;
use crate::tiles::ALL_HEAD_DIMS;

/// The arch whose machine code the Hopper kernel needs (wgmma).
pub const HOPPER_ARCH: &str = "90a";

/// The SM targets: `FLASHATTN_CUDA_ARCHS`, else candle's `CUDA_COMPUTE_CAP`, else `80;90a`.
pub fn target_archs() -> Vec<String> {
    if let Ok(spec) = env::var("FLASHATTN_CUDA_ARCHS") {
        return parse_archs(&spec);
    }
    if let Ok(spec) = env::var("CUDA_COMPUTE_CAP") {
        // A plain sm_90 build would leave out the Hopper kernel; sm_90a machine code runs on
        // every compute capability 9.0 GPU, so 90 is taken to mean 90a.
        let archs = parse_archs(&spec)
            .into_iter()
            .map(|a| {
                if a == "90" {
                    HOPPER_ARCH.to_string()
                } else {
                    a
                }
            })
            .collect();
        return archs;
    }
    parse_archs("80;90a")
}

/// The numeric part of an arch (`90a` -> 90): compute capability x 10.
pub fn arch_number(arch: &str) -> u32 {
    arch.chars()
        .take_while(char::is_ascii_digit)
        .collect::<String>()
        .parse()
        .unwrap()
}

fn parse_archs(spec: &str) -> Vec<String> {
    let archs: Vec<String> = spec
        .split([';', ','])
        .map(|s| {
            s.trim()
                .trim_start_matches("sm_")
                .trim_start_matches("compute_")
                .to_string()
        })
        .filter(|s| !s.is_empty())
        .collect();
    for a in &archs {
        let digits: String = a.chars().take_while(char::is_ascii_digit).collect();
        match digits.parse::<u32>() {
            Ok(n) if n >= 80 => {}
            _ => fail(&format!(
                "FLASHATTN_CUDA_ARCHS entry `{a}`: the kernels need sm_80 or newer (e.g. 80;86;89;90a)"
            )),
        }
    }
    if archs.is_empty() {
        fail("FLASHATTN_CUDA_ARCHS is empty");
    }
    archs
}

/// `FLASHATTN_HEAD_DIMS`, else every head dim the kernels support.
pub fn head_dims() -> Vec<u32> {
    let Ok(spec) = env::var("FLASHATTN_HEAD_DIMS") else {
        return ALL_HEAD_DIMS.to_vec();
    };
    let dims: Vec<u32> = spec
        .split([',', ';'])
        .filter(|s| !s.trim().is_empty())
        .map(|s| match s.trim().parse::<u32>() {
            Ok(d) if ALL_HEAD_DIMS.contains(&d) => d,
            _ => fail(&format!(
                "FLASHATTN_HEAD_DIMS entry `{s}`: supported head dims are {ALL_HEAD_DIMS:?}"
            )),
        })
        .collect();
    if dims.is_empty() {
        fail("FLASHATTN_HEAD_DIMS is empty");
    }
    dims
}

/// `FLASHATTN_DTYPES`, else both element types.
pub fn dtypes() -> Vec<&'static Dtype> {
    let Ok(spec) = env::var("FLASHATTN_DTYPES") else {
        return DTYPES.iter().collect();
    };
    let picked: Vec<&'static Dtype> = spec
        .split([',', ';'])
        .filter(|s| !s.trim().is_empty())
        .map(|s| {
            DTYPES
                .iter()
                .find(|d| d.name == s.trim())
                .unwrap_or_else(|| {
                    fail(&format!(
                        "FLASHATTN_DTYPES entry `{s}`: use f16 and/or bf16"
                    ))
                })
        })
        .collect();
    if picked.is_empty() {
        fail("FLASHATTN_DTYPES is empty");
    }
    picked
}
