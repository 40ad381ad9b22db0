//! Builds the CUDA kernels in `cuda-src/` with nvcc (through `cc`, in parallel) and generates
//! the Rust side of `flashattn.h` with bindgen.
//!
//! The compiled kernel configurations are listed in `cuda-src/tiles.rs`, beside the kernels;
//! from those tables this script writes one small instantiation file per (kernel, dtype, head
//! dim) and the registry the dispatcher includes (`codegen`), so adding a configuration is one
//! line and nvcc compiles the files concurrently (`nvcc`). The sm90 files are compiled for
//! sm_90a alone, and only when `90a` is a target.
//!
//! Environment (each one re-runs the build when it changes):
//! - `FLASHATTN_CUDA_ARCHS`: `;`- or `,`-separated SM targets, default `80;90a`. Each becomes
//!   `-gencode=arch=compute_X,code=sm_X`; `80` also runs on sm_86/sm_89. The portable kernels
//!   also carry PTX of the newest listed virtual arch, which the driver compiles for GPUs newer
//!   than every listed target (Blackwell on a default build).
//! - `CUDA_COMPUTE_CAP`: candle's convention (`86`, `89`, `90`, or a list), used when
//!   `FLASHATTN_CUDA_ARCHS` is unset; `90` means `90a`, so an H100 build gets the Hopper kernel.
//! - `DOCS_RS`: skip the kernel build (docs.rs has no nvcc); only the bindings are generated.
//! - `FLASHATTN_HEAD_DIMS`: head dims to compile, default all of `32,64,96,128,256`.
//! - `FLASHATTN_DTYPES`: `f16,bf16` (default) or a subset.
//! - `FLASHATTN_PTXAS_VERBOSE=1`: ptxas resource report (registers, spills) as build warnings.
//! - `NVCC`, `CUDA_HOME`/`CUDA_PATH`: where the toolkit is; otherwise `nvcc` on `PATH`.

mod bindings;
mod codegen;
mod decode_units;
mod nvcc;
mod targets;
#[path = "../../../cuda-src/tiles.rs"]
mod tiles;
mod toolkit;

use std::env;
use std::fs;
use std::path::{Path, PathBuf};

use codegen::generate_sources;
use targets::{HOPPER_ARCH, arch_number};

fn main() {
    let manifest_dir = PathBuf::from(env::var("CARGO_MANIFEST_DIR").unwrap());
    let cuda_src = manifest_dir.join("../../cuda-src").canonicalize().unwrap_or_else(|_| {
        fail("cuda-src/ was not found next to crates/: flashattn-sys builds from the workspace checkout")
    });
    let out_dir = PathBuf::from(env::var("OUT_DIR").unwrap());

    for var in [
        "FLASHATTN_CUDA_ARCHS",
        "CUDA_COMPUTE_CAP",
        "DOCS_RS",
        "FLASHATTN_HEAD_DIMS",
        "FLASHATTN_DTYPES",
        "FLASHATTN_PTXAS_VERBOSE",
        "NVCC",
        "CUDA_HOME",
        "CUDA_PATH",
        "PATH",
    ] {
        println!("cargo:rerun-if-env-changed={var}");
    }
    // cuda-src/probes holds standalone nvcc programs outside the library (scripts/timeline.sh,
    // scripts/variant-ab.sh): editing them must not rebuild every kernel.
    rerun_if_dir_changed(&cuda_src, &cuda_src.join("probes"));

    let archs = targets::target_archs();
    let head_dims = targets::head_dims();
    let dtypes = targets::dtypes();
    println!("cargo:rustc-env=FLASHATTN_BUILD_ARCHS={}", archs.join(";"));

    if env::var_os("DOCS_RS").is_some() {
        // Documentation only: no toolkit there, and nothing is linked.
        bindings::generate_bindings(&cuda_src, &out_dir);
        return;
    }

    let toolkit = toolkit::find_toolkit();
    let gen_dir = out_dir.join("generated");
    fs::create_dir_all(&gen_dir).unwrap();
    let with_hopper = archs.iter().any(|a| a == HOPPER_ARCH);
    let min_cc = archs.iter().map(|a| arch_number(a)).min().unwrap();
    let kernel_files = generate_sources(&gen_dir, &head_dims, &dtypes, with_hopper, min_cc);

    let builds = nvcc::Builds::new(&cuda_src, &gen_dir, &archs);
    let mut sources = vec![
        (&builds.portable, cuda_src.join("api/flashattn_api.cu")),
        (&builds.portable, cuda_src.join("merge/merge_states.cu")),
        (&builds.portable, cuda_src.join("decode/decode_api.cu")),
    ];
    sources.extend(
        kernel_files
            .into_iter()
            .map(|(kernel, file)| (builds.of(kernel), file)),
    );
    builds.compile_and_archive(&sources);

    toolkit::link_runtime(&toolkit);
    bindings::generate_bindings(&cuda_src, &out_dir);
}

/// Stop the build with one sentence (cargo shows it without a backtrace).
fn fail(msg: &str) -> ! {
    eprintln!("\nerror: {msg}\n");
    std::process::exit(1);
}

/// Every entry of `dir` but `skip` (cargo scans a directory named this way whole, so `dir` itself
/// is not named: it would bring `skip` back).
fn rerun_if_dir_changed(dir: &Path, skip: &Path) {
    for entry in fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path != skip {
            println!("cargo:rerun-if-changed={}", path.display());
        }
    }
}
