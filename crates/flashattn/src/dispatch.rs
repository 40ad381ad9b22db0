//! Tuned kernel choice: tables written by `flashattn-bench tune` on a GPU model, embedded at
//! build time, consulted before the built-in rule.
//!
//! A table is tab-separated text, one measured shape per line (`#` starts a comment), each line
//! a [`DispatchRow`]:
//! `gpu  dtype  head_dim  causal  batch  heads  seqlen_q  seqlen_k  config  p50_ms  [modifier]`.
//! A call uses the entry of its GPU model, dtype, head dim and mask whose (seqlen_q, seqlen_k,
//! batch x heads) is nearest on a log2 scale, if that is within a factor of 4 overall and its
//! configuration can run on the device (built for it, fits its shared memory); otherwise the
//! built-in rule decides.
//!
//! Rows measured with a score modifier (the optional last field, `softcap` or `alibi`) serve
//! only calls with that modifier, and those calls look for their own rows first: a modifier
//! changes the work per score (softcap a tanh, ALiBi a bias), so its fastest tile need not be
//! the plain call's, nor the other modifier's. On the lent H200, bf16 B2 H8 S8192 D256 softcap
//! ran 6% faster on the 80-key warp-specialized tile than on the plain call's 64-key one, and
//! bf16 B8 H16 S2048 D128 ALiBi 1.6% faster on the 128-row tile, where softcap kept the plain
//! call's. A modifier call with no row of its own near enough uses the plain rows, where the
//! caller keeps only configurations compiled with score modifiers.
//!
//! `FLASHATTN_DISPATCH=/path/table.tsv` adds a table read once at first use (for example one
//! `flashattn-bench tune` just wrote); its entries are consulted before the embedded ones, so
//! a fresh tuning run takes effect without a rebuild. Because the user asked for that table, a
//! file that cannot be read, a malformed line (a size of 0 among them), or a row naming a
//! configuration this build does not have (or one of another dtype or head dim than the row's,
//! or, in a modifier row, one without a score-modifier kernel) is an error
//! ([`crate::Error::Environment`]) on every call that would consult it, never silently ignored.
//! The embedded tables are lenient instead: a trimmed build (`FLASHATTN_HEAD_DIMS`, an arch list
//! without `90a`) skips the rows it has no kernels for.

use std::fmt;
use std::str::FromStr;
use std::sync::OnceLock;

use crate::config::{KernelConfig, kernel_configs};
use crate::device::DeviceFacts;
use crate::error::{Error, Result};
use crate::{AttentionParams, DType};

/// The variable naming a run-time dispatch table.
pub const DISPATCH_VARIABLE: &str = "FLASHATTN_DISPATCH";

/// The embedded tables, one per tuned GPU model.
const TABLES: &[&str] = &[
    include_str!("../dispatch/nvidia-h100-80gb-hbm3.tsv"),
    include_str!("../dispatch/nvidia-h200.tsv"),
];

/// The score modifier a dispatch row was measured with. A call with both softcap and ALiBi
/// counts as softcap, the costlier of the two.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RowModifier {
    /// `logits = cap * tanh(scale * q.k / cap)`.
    Softcap,
    /// The ALiBi bias.
    Alibi,
}

impl RowModifier {
    /// The modifier of a call with softcap set or not, that does or does not need a
    /// score-modifier kernel (softcap or ALiBi slopes).
    pub fn of_call(softcap: bool, score_mods: bool) -> Option<RowModifier> {
        match (softcap, score_mods) {
            (true, _) => Some(RowModifier::Softcap),
            (false, true) => Some(RowModifier::Alibi),
            (false, false) => None,
        }
    }

    fn name(self) -> &'static str {
        match self {
            RowModifier::Softcap => "softcap",
            RowModifier::Alibi => "alibi",
        }
    }
}

/// One line of a dispatch table: the configuration the tuner measured fastest for a shape.
/// The tuner writes rows with `Display`, the launch layer reads them with `FromStr`.
#[derive(Clone, Debug, PartialEq)]
pub struct DispatchRow {
    /// GPU model, as the driver names it (e.g. `NVIDIA H100 80GB HBM3`).
    pub gpu: String,
    /// Element type.
    pub dtype: DType,
    /// Head dim.
    pub head_dim: usize,
    /// Causal mask.
    pub causal: bool,
    /// Batch size of the measured shape.
    pub batch: usize,
    /// Query heads of the measured shape.
    pub heads: usize,
    /// Query length of the measured shape.
    pub seqlen_q: usize,
    /// Key length of the measured shape.
    pub seqlen_k: usize,
    /// The winning configuration's name.
    pub config: String,
    /// Its median time (milliseconds), for the reader's information.
    pub p50_ms: f64,
    /// The score modifier of the measured call (`None`: a plain call; the field is then left
    /// out of the line).
    pub modifier: Option<RowModifier>,
}

impl DispatchRow {
    /// The header line a table starts with (a comment).
    pub const HEADER: &'static str = "# gpu\tdtype\thead_dim\tcausal\tbatch\theads\tseqlen_q\tseqlen_k\tconfig\tp50_ms\t[modifier]";
}

impl fmt::Display for DispatchRow {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{:.5}",
            self.gpu,
            self.dtype,
            self.head_dim,
            self.causal,
            self.batch,
            self.heads,
            self.seqlen_q,
            self.seqlen_k,
            self.config,
            self.p50_ms
        )?;
        match self.modifier {
            Some(m) => write!(f, "\t{}", m.name()),
            None => Ok(()),
        }
    }
}

impl FromStr for DispatchRow {
    type Err = String;

    /// Parse one table line; the error says which field is wrong.
    fn from_str(line: &str) -> std::result::Result<Self, String> {
        let f: Vec<&str> = line.split('\t').map(str::trim).collect();
        if f.len() != 10 && f.len() != 11 {
            return Err(format!(
                "{} tab-separated fields, expected 10 (11 with a modifier)",
                f.len()
            ));
        }
        fn field<T: FromStr>(f: &[&str], i: usize, name: &str) -> std::result::Result<T, String> {
            f[i].parse()
                .map_err(|_| format!("{name} `{}` is not valid", f[i]))
        }
        let dtype = match f[1] {
            "f16" => DType::F16,
            "bf16" => DType::BF16,
            other => return Err(format!("dtype `{other}` is not f16 or bf16")),
        };
        let modifier = match f.get(10) {
            None => None,
            Some(&"softcap") => Some(RowModifier::Softcap),
            Some(&"alibi") => Some(RowModifier::Alibi),
            Some(other) => return Err(format!("modifier `{other}` is not softcap or alibi")),
        };
        let row = DispatchRow {
            gpu: f[0].to_string(),
            dtype,
            head_dim: field(&f, 2, "head_dim")?,
            causal: field(&f, 3, "causal")?,
            batch: field(&f, 4, "batch")?,
            heads: field(&f, 5, "heads")?,
            seqlen_q: field(&f, 6, "seqlen_q")?,
            seqlen_k: field(&f, 7, "seqlen_k")?,
            config: f[8].to_string(),
            p50_ms: field(&f, 9, "p50_ms")?,
            modifier,
        };
        // A zero size is no measured shape, and at an infinite log2 distance from every call it
        // would never be chosen: refused, so that a user's table cannot hold a row that silently
        // does nothing.
        for (name, v) in [
            ("batch", row.batch),
            ("heads", row.heads),
            ("seqlen_q", row.seqlen_q),
            ("seqlen_k", row.seqlen_k),
        ] {
            if v == 0 {
                return Err(format!("{name} `0` is not valid (sizes are at least 1)"));
            }
        }
        Ok(row)
    }
}

/// The lines of a table that carry rows, with their 1-based line numbers.
fn row_lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l))
        .filter(|(_, l)| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
}

/// Parse a table the user supplied: every row must parse and name a configuration this build
/// compiled, of the row's own dtype and head dim.
fn parse_strict(text: &str) -> std::result::Result<Vec<DispatchRow>, String> {
    row_lines(text)
        .map(|(n, line)| {
            let row: DispatchRow = line.parse().map_err(|e| format!("line {n}: {e}"))?;
            match kernel_configs().iter().find(|c| c.name == row.config) {
                None => Err(format!(
                    "line {n}: {} is not a configuration of this build (see flashattn::kernel_configs)",
                    row.config
                )),
                Some(c) if c.dtype != row.dtype || c.head_dim != row.head_dim => Err(format!(
                    "line {n}: {} is a {} d{} configuration, the row is for {} d{}",
                    row.config, c.dtype, c.head_dim, row.dtype, row.head_dim
                )),
                Some(c) if row.modifier.is_some() && !c.score_mods => Err(format!(
                    "line {n}: {} has no score-modifier kernel, the row is for {} calls",
                    row.config,
                    row.modifier.map_or("", RowModifier::name)
                )),
                Some(_) => Ok(row),
            }
        })
        .collect()
}

/// The user's table from [`DISPATCH_VARIABLE`], read once: none, its rows, or why it cannot be
/// used.
fn user_table() -> &'static std::result::Result<Vec<DispatchRow>, String> {
    static TABLE: OnceLock<std::result::Result<Vec<DispatchRow>, String>> = OnceLock::new();
    TABLE.get_or_init(|| {
        let Some(path) = std::env::var_os(DISPATCH_VARIABLE) else {
            return Ok(Vec::new());
        };
        let text = std::fs::read_to_string(&path)
            .map_err(|e| format!("cannot read {}: {e}", path.to_string_lossy()))?;
        parse_strict(&text).map_err(|e| format!("{}: {e}", path.to_string_lossy()))
    })
}

/// The embedded tables' rows (unparsable lines are caught by a unit test, not at run time).
fn embedded_table() -> &'static [DispatchRow] {
    static ROWS: OnceLock<Vec<DispatchRow>> = OnceLock::new();
    ROWS.get_or_init(|| {
        TABLES
            .iter()
            .flat_map(|t| row_lines(t))
            .filter_map(|(_, l)| l.parse().ok())
            .collect()
    })
}

/// The tuned configuration for this call on `device`, if a close enough entry exists and its
/// configuration is compiled and can run there; an error if the user's table is unusable.
/// `modifier`: the call's ([`RowModifier::of_call`]); its own rows first, then the plain ones.
pub(crate) fn tuned(
    device: &DeviceFacts,
    p: &AttentionParams,
    dtype: DType,
    modifier: Option<RowModifier>,
) -> Result<Option<&'static KernelConfig>> {
    let user = user_table().as_ref().map_err(|detail| Error::Environment {
        variable: DISPATCH_VARIABLE,
        detail: detail.clone(),
    })?;
    let config_of = |r: &DispatchRow| {
        kernel_configs()
            .iter()
            .find(|c| c.name == r.config && c.dtype == dtype && device.can_run(c))
    };
    let in_tables = |modifier| {
        nearest_row(user, &device.name, p, dtype, modifier)
            .and_then(config_of)
            .or_else(|| {
                nearest_row(embedded_table(), &device.name, p, dtype, modifier).and_then(config_of)
            })
    };
    Ok(modifier
        .and_then(|m| in_tables(Some(m)))
        .or_else(|| in_tables(None)))
}

/// The row of `rows` for this GPU model, dtype, head dim, mask and modifier whose (seqlen_q,
/// seqlen_k, batch x heads) is nearest the call's on a log2 scale, if within a factor of 4
/// overall.
fn nearest_row<'a>(
    rows: &'a [DispatchRow],
    gpu: &str,
    p: &AttentionParams,
    dtype: DType,
    modifier: Option<RowModifier>,
) -> Option<&'a DispatchRow> {
    let l2 = |a: f64, b: f64| (a / b).log2().abs();
    // In f64: choose_config takes unvalidated sizes, whose product may not fit a usize.
    let bh = p.batch as f64 * p.heads_q as f64;
    rows.iter()
        .filter(|r| {
            r.gpu == gpu
                && r.dtype == dtype
                && r.head_dim == p.head_dim
                && r.causal == p.causal
                && r.modifier == modifier
        })
        .map(|r| {
            (
                l2(p.seqlen_q as f64, r.seqlen_q as f64)
                    + l2(p.seqlen_k as f64, r.seqlen_k as f64)
                    + l2(bh, r.batch as f64 * r.heads as f64),
                r,
            )
        })
        .filter(|(d, _)| *d <= 2.0)
        .min_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, r)| r)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn embedded_tables_parse_and_name_compiled_configs() {
        for t in TABLES {
            for (n, line) in row_lines(t) {
                let row: DispatchRow = line
                    .parse()
                    .unwrap_or_else(|e| panic!("embedded dispatch line {n}: {e}: {line}"));
                // A table may name configurations a trimmed build (FLASHATTN_HEAD_DIMS, or
                // FLASHATTN_CUDA_ARCHS without 90a for the sm90_ kernel) left out; those lines
                // are skipped at run time, so only check the ones compiled here.
                let kernel = row.config.split('_').next().unwrap_or_default();
                let kernel_built = kernel_configs()
                    .iter()
                    .any(|c| c.name.split('_').next() == Some(kernel));
                if kernel_built && crate::compiled_head_dims(row.dtype).contains(&row.head_dim) {
                    let config = kernel_configs().iter().find(|c| c.name == row.config);
                    assert!(
                        config.is_some(),
                        "{} is not a compiled configuration",
                        row.config
                    );
                    assert!(
                        row.modifier.is_none() || config.is_some_and(|c| c.score_mods),
                        "line {n}: {} has no score-modifier kernel",
                        row.config
                    );
                }
            }
        }
    }

    #[test]
    fn rows_round_trip_through_display() {
        let line = "GPU X\tbf16\t128\tfalse\t2\t16\t8192\t8192\tsm80_bf16_d128_m64n64w4s2\t1.25000";
        let row: DispatchRow = line.parse().unwrap();
        assert_eq!(row.batch * row.heads, 32);
        assert_eq!(row.modifier, None);
        assert_eq!(row.to_string(), line);
        for (name, modifier) in [
            ("softcap", RowModifier::Softcap),
            ("alibi", RowModifier::Alibi),
        ] {
            let with = format!("{line}\t{name}");
            let row: DispatchRow = with.parse().unwrap();
            assert_eq!(row.modifier, Some(modifier));
            assert_eq!(row.to_string(), with);
        }
        let err = format!("{line}\tsinks").parse::<DispatchRow>().unwrap_err();
        assert!(err.contains("modifier `sinks`"), "{err}");
        assert!("too\tshort".parse::<DispatchRow>().is_err());
        let bad = line.replace("\t16\t", "\tsixteen\t");
        let err = bad.parse::<DispatchRow>().unwrap_err();
        assert!(err.contains("heads `sixteen`"), "{err}");
    }

    #[test]
    fn modifier_rows_serve_only_calls_with_that_modifier() {
        let row = |config: &str, seqlen: usize, modifier| DispatchRow {
            gpu: "GPU X".into(),
            dtype: DType::BF16,
            head_dim: 256,
            causal: false,
            batch: 2,
            heads: 8,
            seqlen_q: seqlen,
            seqlen_k: seqlen,
            config: config.into(),
            p50_ms: 1.0,
            modifier,
        };
        let rows = [
            row("plain", 8192, None),
            row("capped", 8192, Some(RowModifier::Softcap)),
            // Nearer in length, but a plain call never takes a modifier's row.
            row("capped-4k", 4096, Some(RowModifier::Softcap)),
        ];
        let pick = |seqlen, modifier| {
            nearest_row(
                &rows,
                "GPU X",
                &AttentionParams::new(2, seqlen, seqlen, 8, 256),
                DType::BF16,
                modifier,
            )
            .map(|r| r.config.as_str())
        };
        assert_eq!(pick(8192, None), Some("plain"));
        assert_eq!(pick(4096, None), Some("plain"));
        assert_eq!(pick(8192, Some(RowModifier::Softcap)), Some("capped"));
        assert_eq!(pick(4096, Some(RowModifier::Softcap)), Some("capped-4k"));
        // ALiBi has no row here: `tuned` then falls back to the plain rows.
        assert_eq!(pick(8192, Some(RowModifier::Alibi)), None);
        // Too far from every row (a factor of 16 in each length).
        assert_eq!(pick(512, None), None);
        assert_eq!(RowModifier::of_call(true, true), Some(RowModifier::Softcap));
        assert_eq!(RowModifier::of_call(false, true), Some(RowModifier::Alibi));
        assert_eq!(RowModifier::of_call(false, false), None);
    }

    #[test]
    fn user_tables_are_checked_strictly() {
        // A configuration of the wrong head dim for its row.
        let c = &kernel_configs()[0];
        let other_dim = if c.head_dim == 64 { 128 } else { 64 };
        let wrong_dim = format!(
            "GPU X\t{}\t{other_dim}\tfalse\t1\t8\t512\t512\t{}\t0.01",
            c.dtype, c.name
        );
        let err = parse_strict(&wrong_dim).unwrap_err();
        assert!(err.contains("line 1") && err.contains(c.name), "{err}");
        // A configuration that does not exist.
        let unknown = format!(
            "# header\nGPU X\t{}\t{}\tfalse\t1\t8\t512\t512\tsm80_nope\t0.01",
            c.dtype, c.head_dim
        );
        let err = parse_strict(&unknown).unwrap_err();
        assert!(err.contains("line 2") && err.contains("sm80_nope"), "{err}");
        // A malformed line.
        let err = parse_strict("GPU X\tf16\t64").unwrap_err();
        assert!(err.contains("line 1"), "{err}");
        // A modifier row naming a configuration without a score-modifier kernel.
        if let Some(plain) = kernel_configs().iter().find(|c| !c.score_mods) {
            let line = format!(
                "GPU X\t{}\t{}\tfalse\t1\t8\t512\t512\t{}\t0.01\tsoftcap",
                plain.dtype, plain.head_dim, plain.name
            );
            let err = parse_strict(&line).unwrap_err();
            assert!(err.contains("no score-modifier kernel"), "{err}");
        }
        // A size of 0, which no call is near: the row would never serve, so it is refused.
        for field in 4..8 {
            let mut f: Vec<String> = format!(
                "GPU X\t{}\t{}\tfalse\t1\t8\t512\t512\t{}\t0.01",
                c.dtype, c.head_dim, c.name
            )
            .split('\t')
            .map(str::to_string)
            .collect();
            f[field] = "0".into();
            let err = parse_strict(&f.join("\t")).unwrap_err();
            assert!(err.contains("line 1") && err.contains("`0`"), "{err}");
        }
        // Rows and calls whose batch x heads pass usize::MAX are compared in f64.
        let huge = DispatchRow {
            batch: usize::MAX,
            heads: usize::MAX,
            ..parse_strict(&format!(
                "GPU X\t{}\t{}\tfalse\t1\t8\t512\t512\t{}\t0.01",
                c.dtype, c.head_dim, c.name
            ))
            .unwrap()
            .remove(0)
        };
        let call = AttentionParams::new(usize::MAX, 512, 512, usize::MAX, c.head_dim);
        let rows = [huge];
        let picked = nearest_row(&rows, "GPU X", &call, c.dtype, None);
        assert_eq!(picked.map(|r| r.batch), Some(usize::MAX));
        // A good one.
        let good = format!(
            "{}\nGPU X\t{}\t{}\ttrue\t1\t8\t512\t512\t{}\t0.01\n",
            DispatchRow::HEADER,
            c.dtype,
            c.head_dim,
            c.name
        );
        assert_eq!(parse_strict(&good).unwrap().len(), 1);
    }
}
