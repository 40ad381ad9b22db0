//! Builds the CUDA kernels in `cuda-src/` with nvcc (through `cc`, in parallel) and generates
//! the Rust side of `flashattn.h` with bindgen.
//!
//! The tables of compiled kernel configurations live here ([`SM80_TILES`], [`SM90_TILES`]);
//! from them this script writes one small instantiation file per (kernel, dtype, head dim) and
//! the registry the dispatcher includes, so adding a configuration is one line and nvcc
//! compiles the files concurrently. The sm90 files are compiled for sm_90a alone, and only
//! when `90a` is a target.
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

use std::env;
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

/// One tile configuration of the portable (sm_80+) kernel, compiled for every dtype.
struct Tile {
    head_dim: u32,
    block_m: u32,
    block_n: u32,
    warps: u32,
    stages: u32,
    /// Warp groups that split the key range inside the CTA (1: none).
    kv_splits: u32,
    /// The configuration used when the caller names none (one per head dim).
    is_default: bool,
}

const fn tile(
    head_dim: u32,
    block_m: u32,
    block_n: u32,
    warps: u32,
    stages: u32,
    is_default: bool,
) -> Tile {
    Tile {
        head_dim,
        block_m,
        block_n,
        warps,
        stages,
        kv_splits: 1,
        is_default,
    }
}

/// A tile whose `kv_splits` warp groups each take every `kv_splits`-th key tile.
const fn split_tile(
    head_dim: u32,
    block_m: u32,
    block_n: u32,
    warps: u32,
    stages: u32,
    kv_splits: u32,
) -> Tile {
    Tile {
        kv_splits,
        ..tile(head_dim, block_m, block_n, warps, stages, false)
    }
}

/// Every configuration that gets compiled. Why each one exists:
/// - 128-row tiles with 4 warps (two m16 slices per warp) are FlashAttention-2's shape: K/V
///   shared-memory reads are amortised over 32 rows per warp.
/// - 64-row tiles fill the GPU when batch x heads x seqlen is small (the S=512 family), and
///   keep head dim 256 inside the register file.
/// - 8-warp 128-row tiles trade shared-memory bandwidth for half the registers per thread.
/// - 2-stage K/V ring: the next tile's copy overlaps all of this tile's math; 1 stage is the
///   split schedule (V under Q.K^T, next K under softmax and P.V) for when smem is tight.
/// - Split-KV tiles (`kv` suffix) put 2-4 warp groups on one Q tile, each walking its share
///   of the keys: for short sequences (S=512 at small batch x heads) the plain tiles leave
///   most SMs or most warp slots idle, and these finish the key loop in 1/kv of the steps
///   with no second launch and no global workspace. One K/V buffer per group (stage 1) keeps
///   shared memory low enough for two or three CTAs per SM; two-stage split tiles measured
///   slower and spilled under the 128-register cap.
/// - The one-warp d64 tile is deliberately slow: the benchmark gate's negative control.
const SM80_TILES: &[Tile] = &[
    tile(32, 128, 64, 4, 2, true),
    tile(32, 64, 64, 4, 2, false),
    tile(64, 128, 64, 4, 2, true),
    tile(64, 128, 128, 4, 1, false),
    tile(64, 128, 128, 4, 2, false),
    tile(64, 128, 64, 8, 2, false),
    tile(64, 128, 128, 8, 2, false),
    tile(64, 64, 64, 4, 2, false),
    tile(64, 64, 64, 4, 1, false),
    tile(64, 64, 128, 4, 2, false),
    tile(64, 64, 128, 4, 1, false),
    tile(64, 16, 64, 1, 2, false),
    split_tile(64, 32, 64, 8, 1, 4),
    split_tile(64, 64, 64, 8, 1, 2),
    split_tile(64, 64, 64, 16, 1, 4),
    tile(96, 128, 64, 4, 2, true),
    tile(96, 64, 64, 4, 2, false),
    // 128-row 4-warp tiles sit at the 255-register edge for d128 (ptxas spills ~90 bytes);
    // the 8-warp tile of the same shape has no spills but twice the smem reads per FLOP.
    tile(128, 128, 64, 4, 2, true),
    tile(128, 128, 64, 4, 1, false),
    tile(128, 128, 64, 8, 2, false),
    tile(128, 128, 32, 4, 1, false),
    tile(128, 64, 64, 4, 2, false),
    tile(128, 64, 128, 4, 2, false),
    split_tile(128, 32, 64, 8, 1, 4),
    tile(256, 64, 64, 4, 1, true),
    tile(256, 64, 64, 4, 2, false),
    tile(256, 64, 32, 4, 2, false),
    tile(256, 128, 64, 8, 1, false),
];

/// One tile configuration of the Hopper (sm_90a) kernel: `warpgroups` x 64 query rows.
struct HopperTile {
    head_dim: u32,
    block_n: u32,
    warpgroups: u32,
    stages: u32,
}

const fn hopper_tile(head_dim: u32, block_n: u32, warpgroups: u32, stages: u32) -> HopperTile {
    HopperTile {
        head_dim,
        block_n,
        warpgroups,
        stages,
    }
}

/// Every Hopper configuration, compiled only when `90a` is among the target archs. Why each:
/// - one-warpgroup CTAs (64 rows) fill the GPU at short sequences and put two or three CTAs on
///   an SM, so one CTA's softmax runs under another's MMAs;
/// - two-warpgroup CTAs (128 rows) share each K/V tile between two warpgroups, halving the K/V
///   copies per query row for long sequences;
/// - 128-key tiles halve the loop trips and barriers, 64-key tiles halve shared memory (more
///   CTAs per SM);
/// - three buffers select the overlapped schedule (the next tile's Q.K^T under this tile's
///   softmax).
///
/// Split-KV tiles like the portable kernel's were tried (two warpgroups on one 64-row block,
/// alternate key tiles, merged through shared memory) and were slower on every seed shape, so
/// the short shapes' time is not the chain of key iterations; they are not compiled.
const SM90_TILES: &[HopperTile] = &[
    hopper_tile(64, 64, 1, 2),
    hopper_tile(64, 64, 1, 3),
    hopper_tile(64, 128, 1, 2),
    hopper_tile(64, 128, 1, 3),
    hopper_tile(64, 64, 2, 2),
    hopper_tile(64, 128, 2, 2),
    hopper_tile(128, 64, 1, 2),
    hopper_tile(128, 64, 2, 2),
    hopper_tile(128, 128, 2, 2),
    // Head dim 256: 128 O accumulators per thread leave room for 64 keys of S only (one CTA
    // per SM, no spills); P.V runs as two N = 128 halves.
    hopper_tile(256, 64, 1, 2),
    hopper_tile(256, 64, 1, 3),
    hopper_tile(256, 64, 2, 2),
];

/// The arch whose machine code the Hopper kernel needs (wgmma).
const HOPPER_ARCH: &str = "90a";

const ALL_HEAD_DIMS: &[u32] = &[32, 64, 96, 128, 256];

struct Dtype {
    name: &'static str,
    c_enum: &'static str,
    c_type: &'static str,
}

const DTYPES: &[Dtype] = &[
    Dtype {
        name: "f16",
        c_enum: "FLASHATTN_DTYPE_F16",
        c_type: "__half",
    },
    Dtype {
        name: "bf16",
        c_enum: "FLASHATTN_DTYPE_BF16",
        c_type: "__nv_bfloat16",
    },
];

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
    rerun_if_dir_changed(&cuda_src);

    let archs = target_archs();
    let head_dims = parse_head_dims(env::var("FLASHATTN_HEAD_DIMS").ok().as_deref());
    let dtypes = parse_dtypes(env::var("FLASHATTN_DTYPES").ok().as_deref());
    println!("cargo:rustc-env=FLASHATTN_BUILD_ARCHS={}", archs.join(";"));

    if env::var_os("DOCS_RS").is_some() {
        // Documentation only: no toolkit there, and nothing is linked.
        generate_bindings(&cuda_src, &out_dir);
        return;
    }

    let toolkit = find_toolkit();
    let gen_dir = out_dir.join("generated");
    fs::create_dir_all(&gen_dir).unwrap();
    let with_hopper = archs.iter().any(|a| a == HOPPER_ARCH);
    let min_cc = archs.iter().map(|a| arch_number(a)).min().unwrap();
    let kernel_files = generate_sources(&gen_dir, &head_dims, &dtypes, with_hopper, min_cc);

    let mut build = cc::Build::new();
    build
        .cuda(true)
        .cudart("static")
        // cc would add -G (device debug) in debug profiles: kernels 10x slower, other SASS.
        .debug(false)
        .opt_level(3)
        .include(cuda_src.join("include"))
        .include(&cuda_src)
        .include(&gen_dir)
        .flag("-std=c++17")
        .flag("-O3")
        // Source lines in SASS for compute-sanitizer and ncu reports; no effect on the code.
        .flag("-lineinfo")
        .flag("-Xcompiler=-fPIC")
        .warnings(false);
    if env::var("FLASHATTN_PTXAS_VERBOSE").is_ok_and(|v| v == "1") {
        build.flag("-Xptxas=-v");
    }
    build.flag("-Xptxas=-warn-spills");
    // The portable kernels and the dispatcher for every target; the Hopper kernels for sm_90a
    // alone (their wgmma does not exist elsewhere).
    let mut hopper_build = build.clone();
    hopper_build.flag(format!(
        "-gencode=arch=compute_{HOPPER_ARCH},code=sm_{HOPPER_ARCH}"
    ));
    for arch in &archs {
        build.flag(format!("-gencode=arch=compute_{arch},code=sm_{arch}"));
    }
    // PTX of the newest plain virtual arch: GPUs newer than every SASS target JIT-compile it at
    // module load instead of failing with "no kernel image". Arch-specific targets (`90a`) have
    // no forward-compatible PTX, so their plain counterpart is used.
    let newest_virtual = archs.iter().map(|a| arch_number(a)).max().unwrap();
    build.flag(format!(
        "-gencode=arch=compute_{newest_virtual},code=compute_{newest_virtual}"
    ));

    // One nvcc invocation per source file, each its own single-file `cc::Build`: cc compiles a
    // build with several .cu files as relocatable device code (`--device-c` + device link),
    // which cost registers and spills (docs/build.md). Whole-program objects need no device
    // link, so the archive is made from the objects alone.
    let mut sources = vec![
        (&build, cuda_src.join("api/flashattn_api.cu")),
        (&build, cuda_src.join("merge/merge_states.cu")),
    ];
    for (kernel, file) in kernel_files {
        sources.push((
            if kernel == Kernel::Hopper {
                &hopper_build
            } else {
                &build
            },
            file,
        ));
    }
    let objects = compile_concurrently(&sources);
    let mut archive = build.clone();
    archive.objects(&objects);
    if let Err(e) = archive.try_compile("flashattn_kernels") {
        fail(&format!("could not archive the kernels: {e}"));
    }

    println!(
        "cargo:rustc-link-search=native={}",
        toolkit.join("lib").display()
    );
    println!(
        "cargo:rustc-link-search=native={}",
        toolkit.join("lib64").display()
    );
    println!("cargo:rustc-link-lib=static=cudart_static");
    println!("cargo:rustc-link-lib=dylib=stdc++");
    for lib in ["dl", "pthread", "rt"] {
        println!("cargo:rustc-link-lib=dylib={lib}");
    }
    generate_bindings(&cuda_src, &out_dir);
}

fn generate_bindings(cuda_src: &Path, out_dir: &Path) {
    let bindings = bindgen::Builder::default()
        .header(cuda_src.join("include/flashattn.h").to_string_lossy())
        .allowlist_function("flashattn_.*")
        .allowlist_type("FlashAttn.*")
        .allowlist_var("FLASHATTN_.*")
        // C enums crossing FFI as Rust enums would be UB for unknown values: use newtypes.
        .default_enum_style(bindgen::EnumVariation::NewType { is_bitfield: false, is_global: false })
        .derive_default(true)
        .derive_debug(true)
        .layout_tests(true)
        .generate()
        .unwrap_or_else(|e| fail(&format!("bindgen could not parse flashattn.h ({e}); it needs libclang (Debian: apt-get install libclang-dev)")));
    bindings.write_to_file(out_dir.join("bindings.rs")).unwrap();
}

/// Compile each source with its own copy of its build, at most `NUM_JOBS` (cargo's -j) nvcc
/// processes at a time: a kernel file takes 1-2 GB of memory in nvcc.
fn compile_concurrently(sources: &[(&cc::Build, PathBuf)]) -> Vec<PathBuf> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let jobs = env::var("NUM_JOBS")
        .ok()
        .and_then(|j| j.parse::<usize>().ok())
        .unwrap_or(1)
        .clamp(1, sources.len().max(1));
    let next = AtomicUsize::new(0);
    // (index into `sources`, that source's objects or nvcc's error)
    type Compiled = (usize, Result<Vec<PathBuf>, cc::Error>);
    let mut by_source: Vec<Compiled> = std::thread::scope(|s| {
        let workers: Vec<_> = (0..jobs)
            .map(|_| {
                s.spawn(|| {
                    let mut done = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some((base, src)) = sources.get(i) else {
                            break;
                        };
                        let mut one = (*base).clone();
                        one.file(src);
                        done.push((i, one.try_compile_intermediates()));
                    }
                    done
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().unwrap())
            .collect()
    });
    by_source.sort_by_key(|(i, _)| *i);
    let mut objects = Vec::new();
    for (i, result) in by_source {
        match result {
            Ok(objs) => objects.extend(objs),
            Err(e) => fail(&format!(
                "nvcc failed to compile {}: {e}",
                sources[i].1.display()
            )),
        }
    }
    objects
}

/// Stop the build with one sentence (cargo shows it without a backtrace).
fn fail(msg: &str) -> ! {
    eprintln!("\nerror: {msg}\n");
    std::process::exit(1);
}

fn rerun_if_dir_changed(dir: &Path) {
    println!("cargo:rerun-if-changed={}", dir.display());
    for entry in fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            rerun_if_dir_changed(&path);
        } else {
            println!("cargo:rerun-if-changed={}", path.display());
        }
    }
}

/// Locate nvcc and the toolkit root, and put nvcc where `cc` looks for it.
fn find_toolkit() -> PathBuf {
    let from_env = env::var_os("NVCC").map(PathBuf::from);
    let from_home = ["CUDA_HOME", "CUDA_PATH"]
        .iter()
        .filter_map(env::var_os)
        .map(|root| PathBuf::from(root).join("bin/nvcc"))
        .find(|p| p.is_file());
    let from_path = env::var_os("PATH").and_then(|paths| {
        env::split_paths(&paths)
            .map(|d| d.join("nvcc"))
            .find(|p| p.is_file())
    });
    let Some(nvcc) = from_env.or(from_home).or(from_path) else {
        fail(
            "nvcc was not found (set CUDA_HOME or NVCC, or put nvcc on PATH); \
             `source scripts/setup.sh` installs CUDA 13.0 from PyPI without a GPU",
        )
    };
    match Command::new(&nvcc).arg("--version").output() {
        Ok(out) if out.status.success() => {}
        _ => fail(&format!(
            "{} does not run; `source scripts/setup.sh` installs a working CUDA 13.0 toolkit",
            nvcc.display()
        )),
    }
    // cc finds nvcc through the NVCC variable it reads itself.
    // SAFETY: build scripts are single-threaded at this point.
    unsafe { env::set_var("NVCC", &nvcc) };
    let root = nvcc.parent().and_then(Path::parent).unwrap().to_path_buf();
    if !root.join("lib/libcudart_static.a").is_file()
        && !root.join("lib64/libcudart_static.a").is_file()
    {
        fail(&format!(
            "libcudart_static.a is missing under {} (install nvidia-cuda-runtime; `source scripts/setup.sh` does)",
            root.display()
        ));
    }
    root
}

/// The SM targets: `FLASHATTN_CUDA_ARCHS`, else candle's `CUDA_COMPUTE_CAP`, else `80;90a`.
fn target_archs() -> Vec<String> {
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
fn arch_number(arch: &str) -> u32 {
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

fn parse_head_dims(spec: Option<&str>) -> Vec<u32> {
    let Some(spec) = spec else {
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

fn parse_dtypes(spec: Option<&str>) -> Vec<&'static Dtype> {
    let Some(spec) = spec else {
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

/// Which kernel family an instantiation file holds (they compile for different archs).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kernel {
    Portable,
    Hopper,
}

impl Kernel {
    /// Its folder under `cuda-src/`, which is also its namespace under `flashattn::`.
    fn dir(self) -> &'static str {
        match self {
            Kernel::Portable => "sm80",
            Kernel::Hopper => "sm90",
        }
    }
}

/// Write the instantiation file of `kernel` for (dtype, head dim): one explicit instantiation of
/// its launcher per traits type.
fn write_unit(
    gen_dir: &Path,
    kernel: Kernel,
    dtype: &Dtype,
    hd: u32,
    traits: &[String],
) -> (Kernel, PathBuf) {
    let dir = kernel.dir();
    let mut unit = format!(
        "// Generated by crates/flashattn-sys/build.rs: {dir} kernels for {} head_dim {hd}.\n\
         #include \"{dir}/fwd_kernel.cuh\"\n\nnamespace flashattn::{dir} {{\n",
        dtype.name
    );
    for t in traits {
        writeln!(
            unit,
            "template FlashAttnStatus launch_fwd<{t}>(FlashAttnFwdParams *, cudaStream_t);"
        )
        .unwrap();
    }
    writeln!(unit, "}}  // namespace flashattn::{dir}").unwrap();
    let path = gen_dir.join(format!("fwd_{dir}_{}_d{hd}.cu", dtype.name));
    write_if_changed(&path, &unit);
    (kernel, path)
}

/// Write one instantiation file per (kernel, dtype, head dim) and the registry include; return
/// the files to compile. Files are rewritten only when their text changes, so nvcc's outputs
/// stay fresh for cargo's change tracking.
fn generate_sources(
    gen_dir: &Path,
    head_dims: &[u32],
    dtypes: &[&Dtype],
    with_hopper: bool,
    portable_min_cc: u32,
) -> Vec<(Kernel, PathBuf)> {
    // The portable kernels run from the oldest SASS target up (SASS runs on later minor
    // versions of its major) and, through the embedded PTX, on anything newer.
    let mut registry = format!(
        "// Generated by crates/flashattn-sys/build.rs: one compiled configuration per line.\n\
         #define FLASHATTN_PORTABLE_MIN_CC {portable_min_cc}\n"
    );
    let mut files = Vec::new();
    let mut id = 0;
    for dtype in dtypes {
        for &hd in head_dims {
            let mut traits = Vec::new();
            for t in SM80_TILES.iter().filter(|t| t.head_dim == hd) {
                traits.push(format!(
                    "FwdTraits<{}, {hd}, {}, {}, {}, {}, {}>",
                    dtype.c_type, t.block_m, t.block_n, t.warps, t.stages, t.kv_splits
                ));
                let split = if t.kv_splits > 1 {
                    format!("kv{}", t.kv_splits)
                } else {
                    String::new()
                };
                let name = format!(
                    "sm80_{}_d{hd}_m{}n{}w{}s{}{split}",
                    dtype.name, t.block_m, t.block_n, t.warps, t.stages
                );
                writeln!(
                    registry,
                    "FLASHATTN_SM80_CONFIG({id}, {}, {}, {hd}, {}, {}, {}, {}, {}, \"{name}\", {})",
                    dtype.c_enum,
                    dtype.c_type,
                    t.block_m,
                    t.block_n,
                    t.warps,
                    t.stages,
                    t.kv_splits,
                    t.is_default
                )
                .unwrap();
                id += 1;
            }
            files.push(write_unit(gen_dir, Kernel::Portable, dtype, hd, &traits));
        }
    }
    for dtype in dtypes.iter().filter(|_| with_hopper) {
        for &hd in head_dims {
            let tiles: Vec<&HopperTile> = SM90_TILES.iter().filter(|t| t.head_dim == hd).collect();
            if tiles.is_empty() {
                continue;
            }
            let mut traits = Vec::new();
            for t in tiles {
                traits.push(format!(
                    "FwdTraits<{}, {hd}, {}, {}, {}>",
                    dtype.c_type, t.block_n, t.warpgroups, t.stages
                ));
                let name = format!(
                    "sm90_{}_d{hd}_m{}n{}w{}s{}",
                    dtype.name,
                    64 * t.warpgroups,
                    t.block_n,
                    4 * t.warpgroups,
                    t.stages
                );
                writeln!(
                    registry,
                    "FLASHATTN_SM90_CONFIG({id}, {}, {}, {hd}, {}, {}, {}, \"{name}\")",
                    dtype.c_enum, dtype.c_type, t.block_n, t.warpgroups, t.stages
                )
                .unwrap();
                id += 1;
            }
            files.push(write_unit(gen_dir, Kernel::Hopper, dtype, hd, &traits));
        }
    }
    write_if_changed(&gen_dir.join("flashattn_configs.inc"), &registry);
    files
}

fn write_if_changed(path: &Path, text: &str) {
    if fs::read_to_string(path).ok().as_deref() != Some(text) {
        fs::write(path, text).unwrap();
    }
}
