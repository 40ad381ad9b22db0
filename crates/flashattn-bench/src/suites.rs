//! The benchmark shape suites.
//!
//! This is the single source of truth for shapes: the Python baseline reads
//! them from `python/suites.json`, which `flashattn-report suites --json`
//! writes and a unit test keeps identical to [`suites_json`].
//!
//! * `seed` — small f16 problems (D=64, S=512) for fast iteration and the CI
//!   regression gate; each shape causal and not.
//! * `long` — bf16 long-context shapes across head dims 64/128/256, where the
//!   kernel is compute bound and tile choices matter.
//! * `sweep` — sequence length from 512 to 16384 at a constant 16384 tokens
//!   per call (batch = 16384 / seqlen), so the charts isolate the effect of
//!   sequence length from that of total work.
//! * `masks` — the windows and score modifiers on long shapes: a causal
//!   sliding window of 1024 keys beside full causal attention, and softcap,
//!   ALiBi and sinks each on the bf16 `long` shapes they are compared with.
//! * `decode` — generation through the decode path: bf16, head dim 128, 32
//!   query heads on 8 KV heads, one query row, batch 1/8/64 against 512, 4096
//!   and 32768 cached keys, contiguous and paged (16, 64, 256 keys a page),
//!   each sequence-major and heads-major (`Shape::heads_major`); memory bound,
//!   so read against the measured copy bandwidth.
//! * `varlen` — packed variable-length prefill (`flashattn::forward_varlen`): 16 causal
//!   self-attention sequences of [`VARLEN_LENS`] tokens, bf16, 16 heads, head dim 128, beside the
//!   dense causal shapes of similar length (B16 S2048, B8 S4096) in the same run; the
//!   baselines run the padded batch.
//! * `causal` — causal self-attention from 1024 to 16384 tokens a sequence at the `sweep`
//!   suite's constant 16384 tokens per call, head dims 64 and 128: the long causal prefill that
//!   the other suites sample at one point (S8192 D128), for the dispatcher's tile choice there.
//! * `short` — what the short-sequence tiles run besides the `seed` shapes: three packed batches
//!   of eight short prompts ([`SHORT_VARLEN_LENS`]: f16 H8 D64 causal and not, the latter an
//!   encoder's batch; bf16 32 query heads on 8 KV heads at D128, causal), and seed-size calls
//!   (f16 S512 D64) with a causal 128-key window, softcap, ALiBi and sinks. On Hopper these take
//!   the one-tile-per-CTA kernel's general and score-modifier variants, which no other suite
//!   reaches under the dispatcher.
//! * `d96` — head dim 96 (Phi-3's): bf16 32 heads at 4096 tokens (causal and not) and 1024, bf16
//!   B8 H16 S2048 (the `long` suite's D128 shape at D96), and f16 B4 H16 S512 (the seed size),
//!   causal and not.
//! * `decode-dims` — the decode path beyond the `decode` suite's head dim 128 and GQA group of
//!   four: head dim 256 (32 query heads on 8 KV heads, and 16 heads without GQA: one row a
//!   CTA), head dim 128 without GQA (32 heads), head dim 64 (32 on 8); each at batch 1 x 32768
//!   keys, batch 8 x 4096 and batch 64 x 4096, contiguous, and head dim 256 batch 8 x 4096 in
//!   pages of 16.

use crate::report::{ScoreMods, Shape};
use serde::{Deserialize, Serialize};

/// Names accepted by [`suite`], in the order `all` concatenates them.
pub const SUITE_NAMES: [&str; 10] = [
    "seed",
    "long",
    "sweep",
    "masks",
    "decode",
    "varlen",
    "causal",
    "short",
    "d96",
    "decode-dims",
];

/// The `varlen` suite's sequence lengths: drawn once from 64..=4096 with Python's
/// `random.Random(2026).randint(64, 4096)`, 16 draws, and kept literally so every run and every
/// producer measures the same batch (38571 tokens, the longest 3967).
pub const VARLEN_LENS: [usize; 16] = [
    551, 1372, 2122, 3960, 2160, 2714, 3586, 3967, 484, 3685, 978, 3729, 2525, 2609, 2343, 1786,
];

/// The `short` suite's prompt lengths: drawn once from 16..=512 with Python's
/// `random.Random(2027).randint(16, 512)`, 8 draws, kept literally (1845 tokens, the longest 490).
pub const SHORT_VARLEN_LENS: [usize; 8] = [71, 490, 253, 56, 22, 351, 181, 421];

/// Tokens per call held constant across the `sweep` suite.
pub const SWEEP_TOKENS: usize = 16384;

fn seed() -> Vec<Shape> {
    let mut v = Vec::new();
    for (b, h) in [(1, 8), (2, 8), (4, 8), (4, 16), (8, 16)] {
        for causal in [false, true] {
            v.push(Shape::self_attention("f16", b, h, 512, 64, causal));
        }
    }
    v
}

fn long() -> Vec<Shape> {
    let bf16 = |b, h, s, d, causal| Shape::self_attention("bf16", b, h, s, d, causal);
    vec![
        bf16(16, 32, 1024, 64, false),
        bf16(4, 32, 4096, 64, false),
        bf16(8, 16, 2048, 128, false),
        bf16(2, 16, 8192, 128, false),
        bf16(2, 16, 8192, 128, true),
        bf16(1, 16, 16384, 128, false),
        bf16(2, 8, 8192, 256, false),
        // fp16 beside bf16, and grouped-query attention (32 query heads on 8 KV heads).
        Shape::self_attention("f16", 4, 32, 4096, 64, false),
        Shape::self_attention("f16", 2, 16, 8192, 128, false),
        Shape {
            heads_kv: 8,
            ..bf16(2, 32, 8192, 128, true)
        },
    ]
}

/// The score modifiers the suites time, one at a time: softcap 30, ALiBi, sinks.
pub(crate) fn modifiers() -> [ScoreMods; 3] {
    [
        ScoreMods {
            softcap: Some(30),
            ..ScoreMods::default()
        },
        ScoreMods {
            alibi: true,
            ..ScoreMods::default()
        },
        ScoreMods {
            sinks: true,
            ..ScoreMods::default()
        },
    ]
}

fn masks() -> Vec<Shape> {
    let window = ScoreMods {
        window_left: Some(1024),
        ..ScoreMods::default()
    };
    let mut v = vec![Shape::self_attention("bf16", 2, 16, 8192, 128, true).with_mods(window)];
    for mods in modifiers() {
        for shape in long().into_iter().filter(|s| s.dtype == "bf16") {
            v.push(shape.with_mods(mods.clone()));
        }
    }
    v
}

fn decode() -> Vec<Shape> {
    let mut v = Vec::new();
    for batch in [1, 8, 64] {
        for seqlen_k in [512, 4096, 32768] {
            for heads_major in [false, true] {
                for page in [None, Some(16), Some(64), Some(256)] {
                    v.push(Shape {
                        heads_major,
                        ..Shape::decode("bf16", batch, (32, 8), seqlen_k, 128, page)
                    });
                }
            }
        }
    }
    v
}

fn varlen() -> Vec<Shape> {
    let longest = *VARLEN_LENS.iter().max().expect("16 lengths");
    let dense = |b, s| Shape::self_attention("bf16", b, 16, s, 128, true);
    vec![
        Shape {
            varlen: VARLEN_LENS.to_vec(),
            ..dense(VARLEN_LENS.len(), longest)
        },
        dense(16, 2048),
        dense(8, 4096),
    ]
}

fn short() -> Vec<Shape> {
    let (n, longest) = (
        SHORT_VARLEN_LENS.len(),
        *SHORT_VARLEN_LENS.iter().max().expect("8 lengths"),
    );
    let packed = |dtype, heads_q, heads_kv, head_dim, causal| Shape {
        heads_kv,
        varlen: SHORT_VARLEN_LENS.to_vec(),
        ..Shape::self_attention(dtype, n, heads_q, longest, head_dim, causal)
    };
    let seed_size = |batch, heads, causal, mods| {
        Shape::self_attention("f16", batch, heads, 512, 64, causal).with_mods(mods)
    };
    let window = ScoreMods {
        window_left: Some(128),
        ..ScoreMods::default()
    };
    let mut v = vec![
        packed("f16", 8, 8, 64, true),
        // Not causal: the H200 table's f16 B4 H16 S512 row gives it the two-warpgroup 128-key
        // tile, whose packed calls run the TMA kernel's general variant without the O store.
        packed("f16", 8, 8, 64, false),
        packed("bf16", 32, 8, 128, true),
        // B2 H8: no more CTAs than SMs on an H100 or H200; B4 H16: more.
        seed_size(2, 8, true, window.clone()),
        seed_size(4, 16, true, window),
    ];
    v.extend(
        modifiers()
            .into_iter()
            .map(|mods| seed_size(4, 16, false, mods)),
    );
    v
}

fn decode_dims() -> Vec<Shape> {
    let mut v = Vec::new();
    for (heads, head_dim) in [
        ((32, 8), 256),
        ((16, 16), 256),
        ((32, 32), 128),
        ((32, 8), 64),
    ] {
        for (batch, seqlen_k) in [(1, 32768), (8, 4096), (64, 4096)] {
            v.push(Shape::decode(
                "bf16", batch, heads, seqlen_k, head_dim, None,
            ));
        }
    }
    v.push(Shape::decode("bf16", 8, (32, 8), 4096, 256, Some(16)));
    v
}

fn d96() -> Vec<Shape> {
    let bf16 = |b, h, s, causal| Shape::self_attention("bf16", b, h, s, 96, causal);
    let f16 = |causal| Shape::self_attention("f16", 4, 16, 512, 96, causal);
    vec![
        bf16(4, 32, 4096, false),
        bf16(4, 32, 4096, true),
        bf16(16, 32, 1024, false),
        bf16(8, 16, 2048, false),
        f16(false),
        f16(true),
    ]
}

/// bf16 self-attention, 16 heads, head dims 64 then 128, at each of `lengths` with the batch
/// that keeps [`SWEEP_TOKENS`] tokens per call.
fn constant_tokens(lengths: &[usize], causal: bool) -> Vec<Shape> {
    [64, 128]
        .into_iter()
        .flat_map(|d| {
            lengths
                .iter()
                .map(move |&s| Shape::self_attention("bf16", SWEEP_TOKENS / s, 16, s, d, causal))
        })
        .collect()
}

fn sweep() -> Vec<Shape> {
    constant_tokens(&[512, 1024, 2048, 4096, 8192, 16384], false)
}

fn causal() -> Vec<Shape> {
    constant_tokens(&[1024, 2048, 4096, 8192, 16384], true)
}

/// Shapes of the named suite (`seed`, `long`, `sweep`, or `all` for their
/// concatenation in [`SUITE_NAMES`] order without repeats); `None` for an
/// unknown name.
///
/// Suites overlap (three D=128 `long` shapes are also `sweep` points); `all`
/// lists each shape once, under the first suite that has it, so a full run
/// measures nothing twice. Consumers that need "the sweep shapes" should
/// therefore test membership in `suite("sweep")` rather than trust a
/// result's suite tag, as [`crate::output::svg_chart`] does.
pub fn suite(name: &str) -> Option<Vec<Shape>> {
    match name {
        "all" => Some(suite_entries("all")?.into_iter().map(|e| e.shape).collect()),
        n => named(n),
    }
}

/// The shapes of one suite of [`SUITE_NAMES`].
fn named(name: &str) -> Option<Vec<Shape>> {
    match name {
        "seed" => Some(seed()),
        "long" => Some(long()),
        "sweep" => Some(sweep()),
        "masks" => Some(masks()),
        "decode" => Some(decode()),
        "causal" => Some(causal()),
        "varlen" => Some(varlen()),
        "short" => Some(short()),
        "d96" => Some(d96()),
        "decode-dims" => Some(decode_dims()),
        _ => None,
    }
}

/// A command-line suite name checked against [`SUITE_NAMES`] and `all`, as clap's value parser.
pub fn parse_suite_name(text: &str) -> Result<String, String> {
    if text == "all" || SUITE_NAMES.contains(&text) {
        Ok(text.to_string())
    } else {
        Err(format!("expected one of {}, all", SUITE_NAMES.join(", ")))
    }
}

/// A shape tagged with the suite it belongs to, as recorded in
/// [`crate::report::BenchResult::suite`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SuiteShape {
    /// Suite name (never `all`).
    pub suite: String,
    /// The shape.
    pub shape: Shape,
}

/// The shapes of `name` tagged with their own suite, so that `all` keeps
/// track of where each shape came from (the first suite listing it, see
/// [`suite`]); `None` for an unknown name.
pub fn suite_entries(name: &str) -> Option<Vec<SuiteShape>> {
    suites_entries(&[name])
}

/// The shapes of several suites (`all` among them standing for every suite), each shape once,
/// tagged with the first suite that lists it; `None` if a name is unknown.
pub fn suites_entries(names: &[impl AsRef<str>]) -> Option<Vec<SuiteShape>> {
    let mut out: Vec<SuiteShape> = Vec::new();
    for name in names {
        let expanded = match name.as_ref() {
            "all" => SUITE_NAMES.to_vec(),
            n => vec![*SUITE_NAMES.iter().find(|known| **known == n)?],
        };
        for n in expanded {
            for shape in named(n)? {
                if !out.iter().any(|e| e.shape == shape) {
                    let suite = n.to_string();
                    out.push(SuiteShape { suite, shape });
                }
            }
        }
    }
    Some(out)
}

/// The file format read by `python/sdpa_baseline.py --shapes`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SuiteFile {
    /// Same versioning as the report ([`crate::report::SCHEMA_VERSION`]).
    pub schema_version: u32,
    /// Tagged shapes, in benchmark order.
    pub shapes: Vec<SuiteShape>,
}

/// Pretty JSON of [`SuiteFile`] for the named suite; `None` for an unknown
/// name.
pub fn suites_json(name: &str) -> Option<String> {
    let file = SuiteFile {
        schema_version: crate::report::SCHEMA_VERSION,
        shapes: suite_entries(name)?,
    };
    let mut s = serde_json::to_string_pretty(&file).expect("suite file serialises");
    s.push('\n');
    Some(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suite_sizes() {
        assert_eq!(suite("seed").unwrap().len(), 10);
        assert_eq!(suite("long").unwrap().len(), 10);
        assert_eq!(suite("sweep").unwrap().len(), 12);
        // The window beside 3 modifiers x 8 bf16 long shapes.
        assert_eq!(suite("masks").unwrap().len(), 25);
        // Batch 1/8/64 x 3 cache lengths x contiguous and 3 page sizes x 2 layouts.
        assert_eq!(suite("decode").unwrap().len(), 72);
        // The packed batch beside two dense causal shapes.
        assert_eq!(suite("varlen").unwrap().len(), 3);
        // Head dims 64 and 128 x 5 lengths.
        assert_eq!(suite("causal").unwrap().len(), 10);
        // Three packed batches beside five seed-size calls with a window or a modifier.
        assert_eq!(suite("short").unwrap().len(), 8);
        // Three D=128 shapes are in both `long` and `sweep`, one (S8192 D128 causal) in both
        // `long` and `causal`.
        // Head dim 96: six shapes no other suite has.
        assert_eq!(suite("d96").unwrap().len(), 6);
        // Head dims 256/128/64 x three sizes, and head dim 256 in pages of 16.
        assert_eq!(suite("decode-dims").unwrap().len(), 13);
        assert_eq!(suite("all").unwrap().len(), 165);
        assert!(suite("nope").is_none());
        let entries = suite_entries("all").unwrap();
        assert_eq!(entries.len(), 165);
        assert_eq!(entries.iter().filter(|e| e.suite == "sweep").count(), 9);
        assert_eq!(suite_entries("sweep").unwrap().len(), 12);
        // A shape shared by two named suites runs once, under the first.
        let long_then_sweep = suites_entries(&["long", "sweep"]).unwrap();
        assert_eq!(long_then_sweep.len(), 19);
        assert_eq!(suites_entries(&["sweep", "all"]).unwrap()[0].suite, "sweep");
        assert!(suites_entries(&["seed", "nope"]).is_none());
    }

    #[test]
    fn seed_suite_contents() {
        let s = suite("seed").unwrap();
        assert!(
            s.iter()
                .all(|x| x.dtype == "f16" && x.head_dim == 64 && x.seqlen_q == 512)
        );
        assert!(
            s.iter()
                .all(|x| x.heads_kv == x.heads_q && x.seqlen_k == x.seqlen_q)
        );
        assert_eq!(s.iter().filter(|x| x.causal).count(), 5);
        assert_eq!(s[9].key(), "f16 B8 H16/16 S512x512 D64 causal");
    }

    #[test]
    fn masks_suite_names_its_modifiers() {
        let m = suite("masks").unwrap();
        assert_eq!(
            m[0].key(),
            "bf16 B2 H16/16 S8192x8192 D128 causal window1024/inf"
        );
        // A causal 1024-key window: every row sees min(i + 1, 1025) keys.
        let expected: u64 = (0..8192u64).map(|i| (i + 1).min(1025)).sum();
        assert_eq!(m[0].allowed_pairs(), expected);
        assert!(m.iter().any(|s| s.key().ends_with(" softcap30")));
        assert!(
            m.iter()
                .any(|s| s.key() == "bf16 B2 H32/8 S8192x8192 D128 causal alibi")
        );
        // Plain shapes serialise without the field, so old reports and new agree.
        let plain = serde_json::to_string(&suite("seed").unwrap()[0]).unwrap();
        assert!(!plain.contains("mods"));
    }

    #[test]
    fn varlen_suite_is_the_documented_batch() {
        let v = &suite("varlen").unwrap()[0];
        assert_eq!(
            v.key(),
            "bf16 B16 H16/16 S3967x3967 D128 causal varlen38571"
        );
        assert!(VARLEN_LENS.iter().all(|l| (64..=4096).contains(l)));
        // Useful work is each sequence's causal pairs, l (l + 1) / 2, never the padded batch's.
        let pairs: u64 = VARLEN_LENS.iter().map(|&l| (l * (l + 1) / 2) as u64).sum();
        assert_eq!(v.flops(), 4.0 * 16.0 * 128.0 * pairs as f64);
    }

    #[test]
    fn short_suite_is_the_documented_batches_and_calls() {
        let s = suite("short").unwrap();
        assert_eq!(s[0].key(), "f16 B8 H8/8 S490x490 D64 causal varlen1845");
        assert_eq!(s[1].key(), "f16 B8 H8/8 S490x490 D64 varlen1845");
        assert_eq!(s[2].key(), "bf16 B8 H32/8 S490x490 D128 causal varlen1845");
        assert!(SHORT_VARLEN_LENS.iter().all(|l| (16..=512).contains(l)));
        assert_eq!(s[3].key(), "f16 B2 H8/8 S512x512 D64 causal window128/inf");
        // The rest: seed-size, plain but for one window or modifier each, so none is a seed shape.
        assert!(
            s[3..]
                .iter()
                .all(|x| x.seqlen_q == 512 && x.head_dim == 64 && !x.mods.is_plain())
        );
        let seed = suite("seed").unwrap();
        assert!(s.iter().all(|x| !seed.contains(x)));
    }

    #[test]
    fn sweep_keeps_tokens_constant() {
        for s in suite("sweep").unwrap() {
            assert_eq!(s.batch * s.seqlen_q, SWEEP_TOKENS);
            assert!(!s.causal && s.heads_q == 16 && s.dtype == "bf16");
        }
        for s in suite("causal").unwrap() {
            assert_eq!(s.batch * s.seqlen_q, SWEEP_TOKENS);
            assert!(s.causal && s.heads_q == 16 && s.dtype == "bf16");
        }
    }

    #[test]
    fn keys_are_unique() {
        let all = suite("all").unwrap();
        let mut keys: Vec<String> = all.iter().map(Shape::key).collect();
        keys.sort();
        keys.dedup();
        assert_eq!(keys.len(), all.len());
    }

    #[test]
    fn committed_python_suite_file_is_current() {
        // The baseline script defaults to this file; if this fails, run
        // `flashattn-report suites --json > crates/flashattn-bench/python/suites.json`.
        let committed = include_str!("../python/suites.json");
        assert_eq!(committed, suites_json("all").unwrap());
    }
}
