//! The Rust side of `flashattn.h`, generated with bindgen into `OUT_DIR/bindings.rs`.

use std::path::Path;

use crate::fail;

pub fn generate_bindings(cuda_src: &Path, out_dir: &Path) {
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
