//! Finding the CUDA toolkit: nvcc for the kernels, and the static runtime to link.

use std::env;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::fail;

/// Locate nvcc and the toolkit root, and put nvcc where `cc` looks for it.
pub fn find_toolkit() -> PathBuf {
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

/// Link the CUDA runtime statically (the driver is loaded at run time) and its C++ and
/// system dependencies.
pub fn link_runtime(toolkit: &Path) {
    for dir in ["lib", "lib64"] {
        println!(
            "cargo:rustc-link-search=native={}",
            toolkit.join(dir).display()
        );
    }
    println!("cargo:rustc-link-lib=static=cudart_static");
    println!("cargo:rustc-link-lib=dylib=stdc++");
    for lib in ["dl", "pthread", "rt"] {
        println!("cargo:rustc-link-lib=dylib={lib}");
    }
}
