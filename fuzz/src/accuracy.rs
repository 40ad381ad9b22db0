//! Accuracy of each mask and score modifier against the f64 reference, next to what PyTorch SDPA
//! reaches on the same inputs (issue 14). The GPU host has PyTorch but no Rust, so the work is
//! split: [`run_all`] (the `flashattn-accuracy` binary) draws the inputs, runs our kernel, the
//! f64 reference and the naive same-precision baseline, judges ours with the project's rule
//! ([`reference::check`]) and writes everything to a directory; then
//! `crates/flashattn-bench/python/sdpa_accuracy.py` reads that directory, runs SDPA with the
//! equivalent explicit mask and judges it against the same reference and bound.
//!
//! Directory format (`cases.json` describes it under `"encoding"` too): per case `NAME.q.bin`,
//! `NAME.k.bin`, `NAME.v.bin` hold Q `[B, Sq, Hq, D]` and K, V `[B, Sk, Hkv, D]` as the raw
//! little-endian u16 bits of the case's dtype (f16 or bf16), contiguous BSHD; `NAME.ours.bin`
//! holds our O the same way (`[B, Sq, Hq, D]`, dtype bits); `NAME.ref.bin` holds the reference
//! O as little-endian f64, contiguous `[B, Sq, Hq, D]`. Bits rather than floats keep the inputs
//! exact whatever reads them.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use cudarc::driver::CudaStream;
use flashattn::{AttentionParams, DType, MaskAlignment, Strides, Window};
use flashattn_ref as reference;
use half::{bf16, f16};
use rand::SeedableRng;
use rand::rngs::StdRng;
use serde_json::{Value, json};

use crate::harness::{self, HeadVector, Inputs, Role, TestElement};

/// Bumped when the directory format changes; the Python side refuses other versions.
pub const SCHEMA: u64 = 1;

/// One accuracy case: a feature on one shape and dtype.
#[derive(Clone, Debug, PartialEq)]
pub struct AccCase {
    /// Unique, file-name safe: `{dtype}-{feature}`.
    pub name: String,
    /// What the case exercises (shared by its f16 and bf16 versions).
    pub feature: &'static str,
    /// Element type.
    pub dtype: DType,
    /// Sizes, mask and score modifiers.
    pub params: AttentionParams,
    /// ALiBi slopes, `[heads_q]`.
    pub slopes: Option<Vec<f32>>,
    /// Sink logits, `[heads_q]`.
    pub sinks: Option<Vec<f32>>,
    /// Seed of Q, K and V.
    pub seed: u64,
}

impl AccCase {
    /// The reference's statement of the problem (the harness's own mapping).
    pub fn problem(&self) -> reference::Problem {
        harness::reference_problem(&self.params)
    }

    /// Whether SDPA can be given the same problem: an additive mask expresses the causal and
    /// window masks, ALiBi and (with one extra zero key) sinks, but not a softcap, which acts
    /// on the scores before the mask is added.
    pub fn sdpa_expressible(&self) -> bool {
        self.params.softcap.is_none()
    }

    /// Query rows (per batch entry and head) that see no key. SDPA turns an all `-inf` mask row
    /// into NaN where FlashAttention gives 0, so the case list keeps these out of SDPA cases.
    pub fn empty_rows(&self) -> usize {
        let p = self.problem();
        (0..p.seqlen_q).filter(|&i| p.visible_keys(i) == 0).count()
    }

    fn file(&self, what: &str) -> String {
        format!("{}.{what}.bin", self.name)
    }
}

/// Sink logits that f16 and bf16 both hold exactly: SDPA gets the sink through a mask in the
/// input dtype, and a rounded sink would be an error of the emulation, not of SDPA.
fn exact_sinks(heads: usize) -> Vec<f32> {
    HeadVector::Spread { lo: -2.0, hi: 2.0 }
        .values(heads)
        .into_iter()
        .map(|x| bf16::from_f32(x).to_f32())
        .collect()
}

/// The fixed case list: every feature of issue 14 in f16 and bf16. `small` divides the
/// sequence lengths by 8 (and the windows with them) for quick runs.
pub fn cases(small: bool) -> Vec<AccCase> {
    let s = |n: usize| if small { (n / 8).max(16) } else { n };
    struct Feature {
        name: &'static str,
        params: AttentionParams,
        alibi: bool,
        sinks: bool,
    }
    let base = |b, sq, sk, h, d| AttentionParams::new(b, s(sq), s(sk), h, d);
    let plain = |name, params| Feature {
        name,
        params,
        alibi: false,
        sinks: false,
    };
    let features = [
        plain("plain", base(2, 1024, 1024, 8, 64)),
        plain(
            "causal-bottom-right",
            AttentionParams {
                causal: true,
                ..base(1, 512, 2048, 8, 128)
            },
        ),
        plain(
            "causal-top-left",
            AttentionParams {
                causal: true,
                alignment: MaskAlignment::TopLeft,
                ..base(2, 1024, 512, 8, 64)
            },
        ),
        plain(
            "window-causal",
            AttentionParams {
                causal: true,
                window: Window::new(Some(s(2048) / 8 - 1), None),
                ..base(1, 2048, 2048, 8, 128)
            },
        ),
        plain(
            "window-two-sided",
            AttentionParams {
                window: Window::new(Some(s(1024) / 10), Some(s(1024) / 25)),
                ..base(2, 1024, 1024, 4, 64)
            },
        ),
        plain(
            "softcap",
            AttentionParams {
                causal: true,
                softcap: Some(50.0),
                ..base(1, 1024, 1024, 4, 256)
            },
        ),
        Feature {
            alibi: true,
            ..plain("alibi", base(1, 1024, 1024, 8, 128))
        },
        Feature {
            sinks: true,
            ..plain(
                "sinks",
                AttentionParams {
                    causal: true,
                    ..base(2, 1024, 1024, 8, 64)
                },
            )
        },
        // GQA, bottom-right causal with Sq < Sk, a window, ALiBi and sinks at once.
        Feature {
            alibi: true,
            sinks: true,
            ..plain(
                "combo-gqa",
                AttentionParams {
                    heads_kv: 2,
                    causal: true,
                    window: Window::new(Some(s(512)), None),
                    ..base(1, 768, 2048, 8, 128)
                },
            )
        },
    ];
    let mut out = Vec::new();
    for (di, dtype) in [DType::F16, DType::BF16].into_iter().enumerate() {
        for (fi, f) in features.iter().enumerate() {
            let h = f.params.heads_q;
            out.push(AccCase {
                name: format!("{dtype}-{}", f.name),
                feature: f.name,
                dtype,
                params: f.params.clone(),
                slopes: f.alibi.then(|| HeadVector::alibi(h).values(h)),
                sinks: f.sinks.then(|| exact_sinks(h)),
                seed: 7000 + 100 * di as u64 + fi as u64,
            });
        }
    }
    out
}

/// What running one case found.
#[derive(Clone, Debug)]
pub struct CaseResult {
    /// The case's `cases.json` entry.
    pub json: Value,
    /// The rule's verdict on our kernel; `None` when it did not run (reference only, or an
    /// error).
    pub pass: Option<bool>,
    /// A one-line report.
    pub line: String,
}

/// Run one case and write its files to `dir`. Without a `stream` only the inputs and the
/// reference are written (to test the pipeline on a machine without a GPU).
pub fn run_case(stream: Option<&Arc<CudaStream>>, case: &AccCase, dir: &Path) -> CaseResult {
    match case.dtype {
        DType::F16 => run_typed::<f16>(stream, case, dir),
        DType::BF16 => run_typed::<bf16>(stream, case, dir),
    }
}

/// Q, K and V of a case: contiguous BSHD, unit normal (the harness's generator, so the
/// accuracy cases draw inputs exactly as the grid and the fuzzer do).
pub fn inputs<T: TestElement>(case: &AccCase) -> [Vec<T>; 3] {
    let p = &case.params;
    let mut rng = StdRng::seed_from_u64(case.seed);
    let normal = Inputs::Normal { std: 1.0 };
    let mut draw = |n, h, role| {
        let dims = [p.batch, n, h, p.head_dim];
        harness::make_input::<T>(&mut rng, bshd(n, h, p.head_dim), dims, normal, role)
    };
    let q = draw(p.seqlen_q, p.heads_q, Role::Query);
    let k = draw(p.seqlen_k, p.heads_kv, Role::Key);
    let v = draw(p.seqlen_k, p.heads_kv, Role::Value);
    [q, k, v]
}

fn bshd(n: usize, h: usize, d: usize) -> Strides {
    Strides::bshd(n, h, d)
}

fn run_typed<T: TestElement>(
    stream: Option<&Arc<CudaStream>>,
    case: &AccCase,
    dir: &Path,
) -> CaseResult {
    let start = Instant::now();
    let p = &case.params;
    let d = p.head_dim;
    let [q, k, v] = inputs::<T>(case);
    let (qs, ks) = (
        bshd(p.seqlen_q, p.heads_q, d),
        bshd(p.seqlen_k, p.heads_kv, d),
    );
    let launched = stream.map(|s| launch(s, case, [&q, &k, &v]));

    let problem = case.problem();
    let heads = reference::HeadParams {
        alibi_slopes: case.slopes.as_deref(),
        sinks: case.sinks.as_deref(),
    };
    let r = harness::r;
    let want = reference::reference_with(&problem, r(&q, qs), r(&k, ks), r(&v, ks), heads);
    let naive =
        reference::naive_same_precision_with(&problem, r(&q, qs), r(&k, ks), r(&v, ks), heads);

    let mut files = vec![
        ("q", bits_bytes(&q)),
        ("k", bits_bytes(&k)),
        ("v", bits_bytes(&v)),
        ("ref", f64_bytes(&want.o)),
    ];
    let mut doc = describe(case);
    let (pass, verdict) = match launched {
        None => {
            // Still the naive error: the SDPA verdict's bound needs it, GPU or not.
            let naive_only = reference::check(&problem, &want.o, None, &want, &naive);
            doc["naive_o_err"] = num(naive_only.o_naive_err);
            doc["o_bound"] = num(naive_only.o_bound);
            doc["ours"] = Value::Null;
            (None, "reference only".to_string())
        }
        Some(Err(e)) => {
            let naive_only = reference::check(&problem, &want.o, None, &want, &naive);
            doc["naive_o_err"] = num(naive_only.o_naive_err);
            doc["o_bound"] = num(naive_only.o_bound);
            doc["ours"] = json!({ "error": e.to_string() });
            (None, format!("launch error: {e}"))
        }
        Some(Ok((o, lse, config, repeats))) => {
            let got = reference::gather_bshd(r(&o, qs), p.batch, p.seqlen_q, p.heads_q, d);
            let mut c = reference::check(&problem, &got, Some(&lse), &want, &naive);
            harness::fail_unless_repeated(&mut c, repeats);
            files.push(("ours", bits_bytes(&o)));
            doc["naive_o_err"] = num(c.o_naive_err);
            doc["o_bound"] = num(c.o_bound);
            doc["ours"] = json!({
                "kernel": config,
                "o_err": num(c.o_max_err),
                "lse_err": num(c.lse_max_err),
                "lse_naive_err": num(c.lse_naive_err),
                "lse_bound": num(c.lse_bound),
                "ratio": num(c.ratio),
                "non_finite": c.non_finite,
                "pass": c.pass,
                "summary": c.summary(),
            });
            (Some(c.pass), c.summary())
        }
    };
    let mut names = serde_json::Map::new();
    for (what, bytes) in &files {
        let name = case.file(what);
        if let Err(e) = std::fs::write(dir.join(&name), bytes) {
            doc["write_error"] = json!(format!("{name}: {e}"));
        }
        names.insert(what.to_string(), json!(name));
    }
    doc["files"] = Value::Object(names);
    doc["seconds"] = num(start.elapsed().as_secs_f64());
    CaseResult {
        line: format!("{:<28} {verdict}", case.name),
        json: doc,
        pass,
    }
}

/// O, LSE, the configuration that ran, and whether a second call repeated O and LSE bit for bit.
type Launched<T> = (Vec<T>, Vec<f32>, &'static str, bool);

fn launch<T: TestElement>(
    stream: &Arc<CudaStream>,
    case: &AccCase,
    [q, k, v]: [&[T]; 3],
) -> Result<Launched<T>, flashattn::Error> {
    let p = &case.params;
    let d = p.head_dim;
    let (qs, ks) = (
        bshd(p.seqlen_q, p.heads_q, d),
        bshd(p.seqlen_k, p.heads_kv, d),
    );
    // NaN-poisoned: an element the kernel never writes fails the rule instead of reading as 0.
    let o_init = vec![T::from_bits(harness::POISON_BITS); q.len()];
    let (o, lse, info, repeats) = harness::launch_host(
        stream,
        p,
        [qs, ks, ks, qs],
        [q, k, v],
        &o_init,
        true,
        [case.slopes.as_deref(), case.sinks.as_deref()],
        false,
    )?;
    Ok((o, lse, info.config.name, repeats))
}

/// JSON cannot hold infinities or NaN; they become strings that Python's `float()` reads.
fn num(x: f64) -> Value {
    if x.is_finite() {
        json!(x)
    } else {
        json!(x.to_string())
    }
}

/// Everything about a case except its results.
pub fn describe(case: &AccCase) -> Value {
    let p = &case.params;
    let problem = case.problem();
    json!({
        "name": case.name,
        "feature": case.feature,
        "dtype": case.dtype.name(),
        "batch": p.batch,
        "seqlen_q": p.seqlen_q,
        "seqlen_k": p.seqlen_k,
        "heads_q": p.heads_q,
        "heads_kv": p.heads_kv,
        "head_dim": p.head_dim,
        "causal": p.causal,
        "alignment": match p.alignment {
            MaskAlignment::BottomRight => "bottom-right",
            MaskAlignment::TopLeft => "top-left",
        },
        "diagonal": problem.diagonal(),
        "window_left": p.window.left,
        "window_right": p.window.right,
        "softcap": p.softcap,
        "alibi_slopes": case.slopes,
        "sinks": case.sinks,
        "scale": problem.softmax_scale as f64,
        "seed": case.seed,
        "sdpa_expressible": case.sdpa_expressible(),
        "empty_rows": case.empty_rows(),
    })
}

/// The whole `cases.json` document.
pub fn document(device: &str, small: bool, results: &[CaseResult]) -> Value {
    json!({
        "schema": SCHEMA,
        "tool": "flashattn-accuracy",
        "device": device,
        "small": small,
        "atol": reference::ATOL,
        "rule": "pass iff no NaN (nor an infinity the reference lacks) and max |O - ref| <= \
                 2 * max |naive O - ref| + atol (flashattn_ref::check)",
        "encoding": {
            "q": "u16 LE bits of dtype, contiguous [B, Sq, Hq, D]",
            "k": "u16 LE bits of dtype, contiguous [B, Sk, Hkv, D]",
            "v": "u16 LE bits of dtype, contiguous [B, Sk, Hkv, D]",
            "ours": "u16 LE bits of dtype, contiguous [B, Sq, Hq, D]",
            "ref": "f64 LE, contiguous [B, Sq, Hq, D]",
            "masks": "key j of query i is visible iff j - (i + diagonal) lies in \
                      [-window_left, right], right = 0 if causal else window_right \
                      (null: unbounded); ALiBi adds -slope[h] * |i + diagonal - j|; a sink adds \
                      exp(sinks[h]) to the softmax denominator only",
        },
        "cases": results.iter().map(|r| r.json.clone()).collect::<Vec<_>>(),
    })
}

/// Run every case into `dir` (created) and write `dir/cases.json`. Returns the per-case
/// results; `progress` sees each line as it is done.
pub fn run_all(
    stream: Option<&Arc<CudaStream>>,
    device: &str,
    list: &[AccCase],
    small: bool,
    dir: &Path,
    mut progress: impl FnMut(&CaseResult),
) -> std::io::Result<Vec<CaseResult>> {
    std::fs::create_dir_all(dir)?;
    let mut results = Vec::new();
    for case in list {
        let r = run_case(stream, case, dir);
        progress(&r);
        results.push(r);
    }
    let text = serde_json::to_string_pretty(&document(device, small, &results))
        .expect("JSON values always serialize");
    let mut f = std::fs::File::create(cases_json(dir))?;
    f.write_all(text.as_bytes())?;
    f.write_all(b"\n")?;
    Ok(results)
}

/// Where [`run_all`] writes the description.
pub fn cases_json(dir: &Path) -> PathBuf {
    dir.join("cases.json")
}

/// Little-endian u16 bits.
pub fn bits_bytes<T: TestElement>(x: &[T]) -> Vec<u8> {
    x.iter().flat_map(|v| v.bits().to_le_bytes()).collect()
}

/// Little-endian f64.
pub fn f64_bytes(x: &[f64]) -> Vec<u8> {
    x.iter().flat_map(|v| v.to_le_bytes()).collect()
}

/// Inverse of [`bits_bytes`].
pub fn read_bits<T: TestElement>(bytes: &[u8]) -> Vec<T> {
    bytes
        .chunks_exact(2)
        .map(|c| T::from_bits(u16::from_le_bytes([c[0], c[1]])))
        .collect()
}

/// Inverse of [`f64_bytes`].
pub fn read_f64(bytes: &[u8]) -> Vec<f64> {
    bytes
        .chunks_exact(8)
        .map(|c| f64::from_le_bytes(c.try_into().expect("chunks of 8")))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    #[test]
    fn case_list_is_well_formed() {
        for small in [false, true] {
            let list = cases(small);
            let names: BTreeSet<_> = list.iter().map(|c| c.name.clone()).collect();
            assert_eq!(names.len(), list.len(), "names are unique");
            for c in &list {
                let p = c.problem();
                p.validate().unwrap_or_else(|e| panic!("{}: {e}", c.name));
                assert!(
                    c.name
                        .chars()
                        .all(|x| x.is_ascii_alphanumeric() || x == '-')
                );
                for v in [&c.slopes, &c.sinks].into_iter().flatten() {
                    assert_eq!(v.len(), p.heads_q, "{}", c.name);
                }
                if c.sdpa_expressible() {
                    assert_eq!(c.empty_rows(), 0, "{}: SDPA would give NaN rows", c.name);
                }
                for s in c.sinks.iter().flatten() {
                    // The Python side's mask in the input dtype must hold the sink exactly.
                    assert_eq!(f16::from_f32(*s).to_f32(), *s, "{}", c.name);
                    assert_eq!(bf16::from_f32(*s).to_f32(), *s, "{}", c.name);
                }
                // The f64 CPU reference and naive baseline must stay quick.
                let pairs = p.batch as u64 * p.heads_q as u64 * p.allowed_pairs();
                assert!(pairs * p.head_dim as u64 <= 1 << 32, "{} too large", c.name);
            }
            // Every feature in both dtypes.
            let features: BTreeSet<_> = list.iter().map(|c| c.feature).collect();
            assert_eq!(list.len(), 2 * features.len());
            for f in [
                "plain",
                "causal-bottom-right",
                "causal-top-left",
                "window-causal",
                "window-two-sided",
                "softcap",
                "alibi",
                "sinks",
                "combo-gqa",
            ] {
                assert!(features.contains(f), "{f}");
            }
            assert!(list.iter().any(|c| c.params.heads_kv < c.params.heads_q));
            assert!(list.iter().any(|c| c.params.seqlen_q != c.params.seqlen_k
                && c.params.alignment == MaskAlignment::TopLeft));
        }
    }

    #[test]
    fn binary_encodings_round_trip() {
        let h: Vec<f16> = [0.0f32, -1.5, 65504.0, f32::NAN, 1e-7]
            .iter()
            .map(|&x| f16::from_f32(x))
            .collect();
        let back: Vec<f16> = read_bits(&bits_bytes(&h));
        assert_eq!(
            back.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
            h.iter().map(|x| x.to_bits()).collect::<Vec<_>>()
        );
        let b: Vec<bf16> = [3.0f32, -2.5e30]
            .iter()
            .map(|&x| bf16::from_f32(x))
            .collect();
        assert_eq!(bits_bytes(&b)[..2], b[0].to_bits().to_le_bytes());
        let x = [1.0f64, -0.1, f64::MIN_POSITIVE, 1e300];
        assert_eq!(read_f64(&f64_bytes(&x)), x);
    }

    /// The whole pipeline without a GPU, on a few small cases: files of the right sizes that
    /// read back to the inputs and reference, and a `cases.json` that says so.
    #[test]
    fn reference_only_run_writes_a_readable_directory() {
        let dir = std::env::temp_dir().join(format!("flashattn-acc-test-{}", std::process::id()));
        let list: Vec<AccCase> = cases(true)
            .into_iter()
            .filter(|c| matches!(c.feature, "combo-gqa" | "softcap"))
            .map(|c| AccCase {
                params: AttentionParams {
                    batch: 1,
                    seqlen_q: c.params.seqlen_q.min(64),
                    seqlen_k: c.params.seqlen_k.min(96),
                    ..c.params
                },
                ..c
            })
            .collect();
        assert_eq!(list.len(), 4);
        let results = run_all(None, "none", &list, true, &dir, |_| {}).expect("writes");
        assert!(results.iter().all(|r| r.pass.is_none()));
        let doc: Value =
            serde_json::from_str(&std::fs::read_to_string(cases_json(&dir)).unwrap()).unwrap();
        assert_eq!(doc["schema"], SCHEMA);
        let entries = doc["cases"].as_array().unwrap();
        assert_eq!(entries.len(), list.len());
        for (c, e) in list.iter().zip(entries) {
            let p = &c.params;
            assert_eq!(e["name"], c.name.as_str());
            assert!(e["ours"].is_null());
            assert!(e["o_bound"].as_f64().unwrap() >= reference::ATOL);
            assert_eq!(
                e["sinks"].as_array().map(|s| s.len()),
                c.sinks.as_ref().map(|s| s.len())
            );
            let read =
                |what: &str| std::fs::read(dir.join(e["files"][what].as_str().unwrap())).unwrap();
            let q_len = p.batch * p.seqlen_q * p.heads_q * p.head_dim;
            let want = match c.dtype {
                DType::F16 => bits_bytes(&inputs::<f16>(c)[0]),
                DType::BF16 => bits_bytes(&inputs::<bf16>(c)[0]),
            };
            assert_eq!(read("q"), want);
            assert_eq!(
                read("k").len(),
                2 * p.batch * p.seqlen_k * p.heads_kv * p.head_dim
            );
            let o = read_f64(&read("ref"));
            assert_eq!(o.len(), q_len);
            assert!(o.iter().all(|x| x.is_finite()));
            assert!(e["files"].get("ours").is_none());
        }
        std::fs::remove_dir_all(&dir).ok();
    }
}
