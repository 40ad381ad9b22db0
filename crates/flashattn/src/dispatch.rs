//! Tuned kernel choice: tables written by `flashattn-bench tune` on a GPU model, embedded at
//! build time, consulted before the built-in rule.
//!
//! A table is tab-separated text, one measured shape per line (`#` starts a comment):
//! `gpu  dtype  head_dim  causal  batch  heads  seqlen_q  seqlen_k  config  p50_ms`.
//! A call uses the entry of its GPU model, dtype, head dim and mask whose (seqlen_q, seqlen_k,
//! batch x heads) is nearest on a log2 scale, if that is within a factor of 4 overall;
//! otherwise the built-in rule decides.
//!
//! `FLASHATTN_DISPATCH=/path/table.tsv` adds a table read once at first use (for example one
//! `flashattn-bench tune` just wrote); its entries are consulted before the embedded ones, so
//! a fresh tuning run takes effect without a rebuild. An unreadable file adds nothing.

use std::sync::OnceLock;

use crate::config::{KernelConfig, kernel_configs};
use crate::{AttentionParams, DType};

/// The embedded tables, one per tuned GPU model.
const TABLES: &[&str] = &[include_str!("../dispatch/nvidia-h100-80gb-hbm3.tsv")];

#[derive(Debug)]
struct Entry {
    gpu: String,
    dtype: DType,
    head_dim: usize,
    causal: bool,
    batch_heads: f64,
    seqlen_q: f64,
    seqlen_k: f64,
    config: String,
}

fn parse(line: &str) -> Option<Entry> {
    let f: Vec<&str> = line.split('\t').collect();
    if f.len() < 9 || line.starts_with('#') {
        return None;
    }
    let num = |i: usize| f[i].trim().parse::<f64>().ok();
    Some(Entry {
        gpu: f[0].trim().to_string(),
        dtype: match f[1].trim() {
            "f16" => DType::F16,
            "bf16" => DType::BF16,
            _ => return None,
        },
        head_dim: f[2].trim().parse().ok()?,
        causal: f[3].trim().parse().ok()?,
        batch_heads: num(4)? * num(5)?,
        seqlen_q: num(6)?,
        seqlen_k: num(7)?,
        config: f[8].trim().to_string(),
    })
}

/// The tables in lookup order: the `FLASHATTN_DISPATCH` file's entries, then the embedded ones.
fn tables() -> &'static [Vec<Entry>; 2] {
    static ENTRIES: OnceLock<[Vec<Entry>; 2]> = OnceLock::new();
    ENTRIES.get_or_init(|| {
        let from_env = std::env::var_os("FLASHATTN_DISPATCH")
            .and_then(|path| std::fs::read_to_string(path).ok())
            .map(|text| text.lines().filter_map(parse).collect())
            .unwrap_or_default();
        let embedded = TABLES
            .iter()
            .flat_map(|t| t.lines())
            .filter_map(parse)
            .collect();
        [from_env, embedded]
    })
}

/// The tuned configuration for this call on `gpu`, if a close enough entry exists and its
/// configuration is compiled and runnable.
pub(crate) fn tuned(
    gpu: &str,
    p: &AttentionParams,
    dtype: DType,
    cc: u32,
) -> Option<&'static KernelConfig> {
    let l2 = |a: f64, b: f64| (a / b).log2().abs();
    let bh = (p.batch * p.heads_q) as f64;
    let nearest = |entries: &'static [Entry]| {
        entries
            .iter()
            .filter(|e| {
                e.gpu == gpu && e.dtype == dtype && e.head_dim == p.head_dim && e.causal == p.causal
            })
            .map(|e| {
                (
                    l2(p.seqlen_q as f64, e.seqlen_q)
                        + l2(p.seqlen_k as f64, e.seqlen_k)
                        + l2(bh, e.batch_heads),
                    e,
                )
            })
            .filter(|(d, _)| *d <= 2.0)
            .min_by(|a, b| a.0.total_cmp(&b.0))
            .and_then(|(_, e)| {
                kernel_configs()
                    .iter()
                    .find(|c| c.name == e.config && c.dtype == dtype && c.runs_on(cc))
            })
    };
    tables().iter().find_map(|t| nearest(t))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn embedded_tables_parse_and_name_compiled_configs() {
        for t in TABLES {
            for line in t
                .lines()
                .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
            {
                let e = parse(line).unwrap_or_else(|| panic!("unparsable dispatch line: {line}"));
                // A table may name configurations a trimmed build (FLASHATTN_HEAD_DIMS, or
                // FLASHATTN_CUDA_ARCHS without 90a for the sm90_ kernel) left out; those lines
                // are skipped at run time, so only check the ones compiled here.
                let kernel = e.config.split('_').next().unwrap_or_default();
                let kernel_built = kernel_configs()
                    .iter()
                    .any(|c| c.name.split('_').next() == Some(kernel));
                if kernel_built && crate::compiled_head_dims(e.dtype).contains(&e.head_dim) {
                    assert!(
                        kernel_configs().iter().any(|c| c.name == e.config),
                        "{} is not a compiled configuration",
                        e.config
                    );
                }
            }
        }
    }

    #[test]
    fn nearest_entry_within_range_wins() {
        let line = "GPU X\tbf16\t128\tfalse\t2\t16\t8192\t8192\tsm80_bf16_d128_m64n64w4s2\t1.0";
        let e = parse(line).unwrap();
        assert_eq!(e.batch_heads, 32.0);
        assert!(parse("# comment").is_none());
        assert!(parse("too\tshort").is_none());
    }
}
