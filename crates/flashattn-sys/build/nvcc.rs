//! nvcc through `cc`: the flags every kernel file gets, one whole-program nvcc process per
//! source file (at most `NUM_JOBS` at a time), and the archive of their objects.

use std::env;
use std::path::{Path, PathBuf};

use crate::codegen::Kernel;
use crate::fail;
use crate::targets::{HOPPER_ARCH, arch_number};

/// The builds the sources compile with: the portable kernels and the dispatcher for every
/// target arch, the Hopper kernels for sm_90a alone (their wgmma exists nowhere else).
pub struct Builds {
    pub portable: cc::Build,
    pub hopper: cc::Build,
}

impl Builds {
    pub fn new(cuda_src: &Path, gen_dir: &Path, archs: &[String]) -> Builds {
        let mut build = cc::Build::new();
        build
            .cuda(true)
            .cudart("static")
            // cc would add -G (device debug) in debug profiles: kernels 10x slower, other SASS.
            .debug(false)
            .opt_level(3)
            .include(cuda_src.join("include"))
            .include(cuda_src)
            .include(gen_dir)
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
        let mut hopper = build.clone();
        hopper.flag(format!(
            "-gencode=arch=compute_{HOPPER_ARCH},code=sm_{HOPPER_ARCH}"
        ));
        for arch in archs {
            build.flag(format!("-gencode=arch=compute_{arch},code=sm_{arch}"));
        }
        // PTX of the newest plain virtual arch: GPUs newer than every SASS target JIT-compile it
        // at module load instead of failing with "no kernel image". Arch-specific targets
        // (`90a`) have no forward-compatible PTX, so their plain counterpart is used.
        let newest_virtual = archs.iter().map(|a| arch_number(a)).max().unwrap();
        build.flag(format!(
            "-gencode=arch=compute_{newest_virtual},code=compute_{newest_virtual}"
        ));
        Builds {
            portable: build,
            hopper,
        }
    }

    /// The build a kernel family's files compile with.
    pub fn of(&self, kernel: Kernel) -> &cc::Build {
        match kernel {
            Kernel::Portable => &self.portable,
            Kernel::Hopper | Kernel::HopperWs => &self.hopper,
        }
    }

    /// Compile every source and archive the objects as `libflashattn_kernels.a`.
    ///
    /// One nvcc invocation per source file, each its own single-file `cc::Build`: cc compiles a
    /// build with several .cu files as relocatable device code (`--device-c` + device link),
    /// which cost registers and spills (docs/build.md). Whole-program objects need no device
    /// link, so the archive is made from the objects alone.
    pub fn compile_and_archive(&self, sources: &[(&cc::Build, PathBuf)]) {
        let objects = compile_concurrently(sources);
        let mut archive = self.portable.clone();
        archive.objects(&objects);
        if let Err(e) = archive.try_compile("flashattn_kernels") {
            fail(&format!("could not archive the kernels: {e}"));
        }
    }
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
