//! The generated C++: one instantiation file per (kernel, dtype, head dim), so that nvcc can
//! compile them concurrently, and the registry `flashattn_configs.inc` that
//! `cuda-src/api/flashattn_api.cu` includes, one entry per compiled configuration.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};

use crate::decode_units::decode_units;
use crate::tiles::{HopperTile, SM80_TILES, SM90_TILES, SM90_WS_TILES, Tile, WsTile};

/// An element type as the C++ side names it.
pub struct Dtype {
    pub name: &'static str,
    pub c_enum: &'static str,
    pub c_type: &'static str,
}

pub const DTYPES: &[Dtype] = &[
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

/// Which kernel an instantiation file holds (they compile for different archs).
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Kernel {
    Portable,
    Hopper,
    /// The warp-specialized Hopper kernel (compiled like `Hopper`, in files of its own).
    HopperWs,
}

impl Kernel {
    /// Its folder under `cuda-src/`, which is also its namespace under `flashattn::` and the
    /// prefix of its configuration names.
    fn dir(self) -> &'static str {
        match self {
            Kernel::Portable => "sm80",
            Kernel::Hopper | Kernel::HopperWs => "sm90",
        }
    }

    /// The header that defines its kernel and launcher.
    fn header(self) -> &'static str {
        match self {
            Kernel::Portable => "sm80/fwd_kernel.cuh",
            Kernel::Hopper => "sm90/fwd_kernel.cuh",
            Kernel::HopperWs => "sm90/ws_kernel.cuh",
        }
    }

    /// Its instantiation files' stem after `fwd_`.
    fn file_stem(self) -> &'static str {
        match self {
            Kernel::HopperWs => "sm90ws",
            other => other.dir(),
        }
    }

    /// Its traits template and launcher function.
    fn traits_and_launcher(self) -> (&'static str, &'static str) {
        match self {
            Kernel::HopperWs => ("WsTraits", "launch_ws"),
            _ => ("FwdTraits", "launch_fwd"),
        }
    }

    /// The macro of `flashattn_api.cu` that turns one configuration into a registry entry.
    fn registry_macro(self) -> &'static str {
        match self {
            Kernel::Portable => "FLASHATTN_SM80_CONFIG",
            Kernel::Hopper => "FLASHATTN_SM90_CONFIG",
            Kernel::HopperWs => "FLASHATTN_SM90_WS_CONFIG",
        }
    }
}

/// A tile of either kernel, as far as the generated C++ is concerned.
trait Config {
    const KERNEL: Kernel;
    fn head_dim(&self) -> u32;
    /// The traits type's template arguments after (element type, head dim), in declaration
    /// order; the registry macro takes the same arguments in the same order.
    fn template_args(&self) -> Vec<u32>;
    /// The part of the configuration's name after `{kernel}_{dtype}_d{head_dim}_`.
    fn name_suffix(&self) -> String;
    /// Registry macro arguments after the name.
    fn registry_tail(&self) -> String;
    /// Whether the tile's softcap/ALiBi kernel is instantiated too.
    fn score_mods(&self) -> bool;
    /// Whether the tile has a dense kernel of its own (else dense calls run its general one).
    fn dense_variant(&self) -> bool {
        true
    }
    /// The configuration whose kernels take the calls this one leaves.
    fn fallback(&self) -> Option<&'static HopperTile> {
        None
    }
}

impl Config for Tile {
    const KERNEL: Kernel = Kernel::Portable;

    fn head_dim(&self) -> u32 {
        self.head_dim
    }

    fn template_args(&self) -> Vec<u32> {
        let t = self;
        vec![t.block_m, t.block_n, t.warps, t.stages, t.kv_splits]
    }

    fn name_suffix(&self) -> String {
        let t = self;
        let split = if t.kv_splits > 1 {
            format!("kv{}", t.kv_splits)
        } else {
            String::new()
        };
        format!(
            "m{}n{}w{}s{}{split}",
            t.block_m, t.block_n, t.warps, t.stages
        )
    }

    fn registry_tail(&self) -> String {
        format!(", {}, {}", self.is_default, u8::from(self.score_mods))
    }

    fn score_mods(&self) -> bool {
        self.score_mods
    }
}

impl Config for HopperTile {
    const KERNEL: Kernel = Kernel::Hopper;

    fn head_dim(&self) -> u32 {
        self.head_dim
    }

    fn template_args(&self) -> Vec<u32> {
        vec![self.block_n, self.warpgroups, self.stages]
    }

    fn name_suffix(&self) -> String {
        let t = self;
        let (rows, warps) = (64 * t.warpgroups, 4 * t.warpgroups);
        format!("m{rows}n{}w{warps}s{}", t.block_n, t.stages)
    }

    fn registry_tail(&self) -> String {
        format!(
            ", {}, {}",
            u8::from(self.score_mods),
            u8::from(self.dense_variant)
        )
    }

    fn score_mods(&self) -> bool {
        self.score_mods
    }

    fn dense_variant(&self) -> bool {
        self.dense_variant
    }
}

impl Config for WsTile {
    const KERNEL: Kernel = Kernel::HopperWs;

    fn head_dim(&self) -> u32 {
        self.head_dim
    }

    fn template_args(&self) -> Vec<u32> {
        vec![self.block_n, self.consumers, self.stages]
    }

    fn name_suffix(&self) -> String {
        let t = self;
        let (rows, warps) = (64 * t.consumers, 4 * (t.consumers + 1));
        format!("m{rows}n{}w{warps}s{}ws", t.block_n, t.stages)
    }

    fn registry_tail(&self) -> String {
        String::new()
    }

    fn score_mods(&self) -> bool {
        true
    }

    /// The two-warpgroup tile of the same head dim and key width with two stages
    /// (cuda-src/sm90/traits.cuh, `WsTraits::Fallback`), which must be compiled with its
    /// score-modifier kernel.
    fn fallback(&self) -> Option<&'static HopperTile> {
        let hd = self.head_dim;
        // An 80- or 176-key tile falls back to the 64-key one (fwd_kernel.cuh's tiles have no such width).
        let n = if self.block_n % 64 == 0 {
            self.block_n
        } else {
            64
        };
        let found = SM90_TILES.iter().find(|t| {
            (t.head_dim, t.block_n, t.warpgroups, t.stages) == (hd, n, 2, 2) && t.score_mods
        });
        Some(found.unwrap_or_else(|| {
            panic!(
                "cuda-src/tiles.rs: the warp-specialized tile d{hd} n{n} needs hopper_tile({hd}, {n}, 2, 2) \
                 with its score-modifier kernel in SM90_TILES (its fallback)"
            )
        }))
    }
}

/// A configuration's registry name.
fn config_name<C: Config>(tile: &C, dtype: &Dtype) -> String {
    let (dir, suffix) = (C::KERNEL.dir(), tile.name_suffix());
    format!("{dir}_{}_d{}_{suffix}", dtype.name, tile.head_dim())
}

/// A configuration's name and its two appearances in the generated C++: its traits type
/// (instantiated in its file) and its registry entry, whose macro rebuilds that type from the
/// entry's arguments. Both come from one argument list, so their parameter order cannot drift
/// apart. `fallback`: the registry id of the configuration that takes the calls this one
/// leaves, the entry's last argument.
fn traits_and_entry<C: Config>(
    tile: &C,
    dtype: &Dtype,
    id: usize,
    fallback: Option<usize>,
) -> (String, String, String) {
    let hd = tile.head_dim();
    let args: Vec<String> = tile.template_args().iter().map(u32::to_string).collect();
    let args = args.join(", ");
    let name = config_name(tile, dtype);
    let traits = format!(
        "{}<{}, {hd}, {args}>",
        C::KERNEL.traits_and_launcher().0,
        dtype.c_type
    );
    let fallback = fallback.map(|f| format!(", {f}")).unwrap_or_default();
    let entry = format!(
        "{}({id}, {}, {}, {hd}, {args}, \"{name}\"{}{fallback})",
        C::KERNEL.registry_macro(),
        dtype.c_enum,
        dtype.c_type,
        tile.registry_tail()
    );
    (name, traits, entry)
}

/// Collects the registry while the instantiation files are written.
struct Generator<'a> {
    gen_dir: &'a Path,
    registry: String,
    /// The registry id of the next entry: its index in the registry.
    next_id: usize,
    /// Every entry written so far, by name.
    ids: HashMap<String, usize>,
    files: Vec<(Kernel, PathBuf)>,
}

impl Generator<'_> {
    /// Instantiation files and registry entries for `tiles`, per dtype and head dim; ids
    /// continue from the entries already written.
    fn kernel<C: Config>(&mut self, tiles: &[C], dtypes: &[&Dtype], head_dims: &[u32]) {
        for dtype in dtypes {
            for &hd in head_dims {
                let mut traits = Vec::new();
                for tile in tiles.iter().filter(|t| t.head_dim() == hd) {
                    let fallback = tile.fallback().map(|f| {
                        let name = config_name(f, dtype);
                        *self.ids.get(&name).unwrap_or_else(|| {
                            panic!("fallback configuration {name} is not compiled")
                        })
                    });
                    let (name, t, entry) = traits_and_entry(tile, dtype, self.next_id, fallback);
                    self.ids.insert(name, self.next_id);
                    self.next_id += 1;
                    traits.push(Variants {
                        traits: t,
                        launcher_tail: fallback.map(|f| format!(", {f}")).unwrap_or_default(),
                        dense: tile.dense_variant(),
                        score_mods: tile.score_mods(),
                    });
                    writeln!(self.registry, "{entry}").unwrap();
                }
                if !traits.is_empty() {
                    let file = write_unit(self.gen_dir, C::KERNEL, dtype, hd, &traits);
                    self.files.push((C::KERNEL, file));
                }
            }
        }
    }
}

/// Write one instantiation file per (kernel, dtype, head dim) and the registry include; return
/// the files to compile. Files are rewritten only when their text changes, so nvcc's outputs
/// stay fresh for cargo's change tracking.
pub fn generate_sources(
    gen_dir: &Path,
    head_dims: &[u32],
    dtypes: &[&Dtype],
    with_hopper: bool,
    portable_min_cc: u32,
) -> Vec<(Kernel, PathBuf)> {
    // The portable kernels run from the oldest SASS target up (SASS runs on later minor
    // versions of its major) and, through the embedded PTX, on anything newer.
    let registry = format!(
        "// Generated by crates/flashattn-sys/build/codegen.rs: one compiled configuration per line.\n\
         #define FLASHATTN_PORTABLE_MIN_CC {portable_min_cc}\n"
    );
    let mut generator = Generator {
        gen_dir,
        registry,
        next_id: 0,
        ids: HashMap::new(),
        files: Vec::new(),
    };
    generator.kernel(SM80_TILES, dtypes, head_dims);
    if with_hopper {
        generator.kernel(SM90_TILES, dtypes, head_dims);
        generator.kernel(SM90_WS_TILES, dtypes, head_dims);
    }
    write_if_changed(&gen_dir.join("flashattn_configs.inc"), &generator.registry);
    let mut files = generator.files;
    files.extend(decode_units(gen_dir, dtypes, head_dims));
    files
}

/// One configuration's traits type and which of its variants (cuda-src/common/features.cuh) get
/// instantiated.
struct Variants {
    traits: String,
    /// Launcher template arguments after the variant (the fallback's id, for the
    /// warp-specialized kernel).
    launcher_tail: String,
    dense: bool,
    score_mods: bool,
}

/// Write the instantiation file of `kernel` for (dtype, head dim): per traits type, explicit
/// instantiations of the launchers of its compiled variants.
fn write_unit(
    gen_dir: &Path,
    kernel: Kernel,
    dtype: &Dtype,
    hd: u32,
    configs: &[Variants],
) -> PathBuf {
    let (dir, header) = (kernel.dir(), kernel.header());
    let launcher = kernel.traits_and_launcher().1;
    let mut unit = format!(
        "// Generated by crates/flashattn-sys/build/codegen.rs: {} kernels for {} head_dim {hd}.\n\
         #include \"{header}\"\n\nnamespace flashattn::{dir} {{\n",
        kernel.file_stem(),
        dtype.name
    );
    for c in configs {
        let variants = [
            ("kDense", c.dense),
            ("kGeneral", true),
            ("kScoreMod", c.score_mods),
        ];
        for (variant, _) in variants.iter().filter(|(_, compiled)| *compiled) {
            writeln!(
                unit,
                "template FlashAttnStatus {launcher}<{}, Variant::{variant}{}>(FlashAttnFwdParams *, cudaStream_t);",
                c.traits, c.launcher_tail
            )
            .unwrap();
        }
    }
    writeln!(unit, "}}  // namespace flashattn::{dir}").unwrap();
    let path = gen_dir.join(format!(
        "fwd_{}_{}_d{hd}.cu",
        kernel.file_stem(),
        dtype.name
    ));
    write_if_changed(&path, &unit);
    path
}

pub fn write_if_changed(path: &Path, text: &str) {
    if fs::read_to_string(path).ok().as_deref() != Some(text) {
        fs::write(path, text).unwrap();
    }
}
