//! The benchmark report: one JSON schema shared by the Rust harness and the
//! PyTorch baseline script (`python/sdpa_baseline.py`).
//!
//! `SCHEMA.md` next to this crate's `Cargo.toml` documents the format for
//! readers who do not read Rust; keep the two in step. Compatibility rules:
//! readers ignore unknown fields, optional fields may be `null` or absent,
//! and any incompatible change bumps [`SCHEMA_VERSION`], which [`Report::read`]
//! checks before parsing the rest.

use crate::stats::Summary;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::path::{Path, PathBuf};

/// Version of the report format written and accepted by this crate.
pub const SCHEMA_VERSION: u32 = 1;

/// `tool` of reports written by the Rust harness and by the PyTorch baseline script.
pub const TOOL_RUST: &str = "flashattn-bench";
pub const TOOL_PYTHON: &str = "sdpa_baseline.py";

/// Per-call CUDA events around each call, inputs resident in L2 ("hot").
pub const MODE_EVENTS: &str = "events";
/// Per-call CUDA events, inputs rotated over more than twice the L2 size.
pub const MODE_COLD: &str = "cold";
/// Per-call time from a replayed CUDA graph of several calls (no launch gaps).
pub const MODE_GRAPH: &str = "graph";

/// `implementation` of our own kernels with the default configuration;
/// tuned variants are written `flashattn[cfg-name]`.
pub const IMPL_OURS: &str = "flashattn";

/// True for our own implementations (`flashattn` and `flashattn[...]`);
/// everything else is a baseline.
pub fn is_ours(implementation: &str) -> bool {
    implementation == IMPL_OURS
        || (implementation.starts_with("flashattn[") && implementation.ends_with(']'))
}

/// A whole benchmark run (field by field in `SCHEMA.md`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Report {
    pub schema_version: u32,
    /// [`TOOL_RUST`] or [`TOOL_PYTHON`] (merged reports join both with `+`).
    pub tool: String,
    /// `YYYY-MM-DDTHH:MM:SSZ`.
    pub created_utc: String,
    /// Git commit of the code measured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commit: Option<String>,
    pub device: Device,
    /// Measured hardware ceilings, used for the `frac_peak_*` fields.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ceilings: Option<Ceilings>,
    /// Command line that produced the report, for reproduction.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    /// One entry per (shape, implementation, mode).
    #[serde(default)]
    pub results: Vec<BenchResult>,
}

/// The GPU a report was measured on. Everything but the name is optional because not every producer
/// can query it; the clocks are what the producer observed during the run.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Device {
    pub name: String,
    /// `major.minor`, e.g. `9.0`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compute_capability: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sm_count: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub driver: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sm_clock_mhz: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mem_clock_mhz: Option<u32>,
}

impl Device {
    /// A device known by its name only.
    pub fn named(name: &str) -> Device {
        Device {
            name: name.to_string(),
            ..Device::default()
        }
    }
}

/// Measured (not datasheet) hardware ceilings, so that "fraction of peak"
/// compares against what the part actually sustains at its current clocks.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Ceilings {
    /// Dense bf16 matmul throughput (8192^3 GEMM), TFLOP/s. Also used for f16 shapes: the
    /// tensor-core peak is the same for both types on the parts we target.
    pub bf16_matmul_tflops: f64,
    /// Device-to-device copy bandwidth counting read plus write, TB/s.
    pub copy_tbps: f64,
}

/// Problem size of one attention forward call.
///
/// Tensors are `[batch, heads, seqlen, head_dim]`; `heads_q` must be a
/// multiple of `heads_kv` (grouped-query attention when they differ).
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Shape {
    /// Element type of Q, K, V and O: `"f16"` or `"bf16"`.
    pub dtype: String,
    pub batch: usize,
    pub heads_q: usize,
    pub heads_kv: usize,
    pub seqlen_q: usize,
    pub seqlen_k: usize,
    pub head_dim: usize,
    /// Causal masking, bottom-right aligned: key `j` is visible to query `i`
    /// iff `j <= i + seqlen_k - seqlen_q`.
    pub causal: bool,
    /// Windows and score modifiers (absent from the JSON when all are off, so
    /// reports written before they existed read unchanged).
    #[serde(default, skip_serializing_if = "ScoreMods::is_plain")]
    pub mods: ScoreMods,
    /// Run through the decode path (`flashattn::decode`: split-KV over a KV cache) instead of
    /// the forward kernels.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub decode: bool,
    /// Decode over a paged cache of this many keys a page (`None`: contiguous). The baselines
    /// read the contiguous equivalent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page_size: Option<usize>,
    /// Decode over a heads-major cache: `[batch, heads_kv, seqlen_k, head_dim]` contiguous (the
    /// layout the SDPA baselines read), `[pages, heads_kv, page_size, head_dim]` paged. Off:
    /// sequence-major, `[batch, seqlen_k, heads_kv, head_dim]` and `[pages, page_size, heads_kv,
    /// head_dim]`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub heads_major: bool,
    /// A packed variable-length batch (`flashattn::forward_varlen`): these self-attention
    /// sequence lengths, `batch` of them; `seqlen_q` / `seqlen_k` are the longest. Empty: dense.
    /// The baselines run the padded dense equivalent.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub varlen: Vec<usize>,
}

/// The masks and score modifiers of a benchmark shape beyond `causal`. Values
/// are fixed by the suite so that every producer builds the same problem:
/// ALiBi slopes are the usual geometric ones (`2^(-8 (h + 1) / H)` for head
/// `h` of `H`), sinks are 0.5 for every head.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ScoreMods {
    /// Keys more than this far left of the diagonal are masked (`None`: unbounded).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window_left: Option<usize>,
    /// Keys more than this far right of the diagonal are masked (`None`: unbounded).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window_right: Option<usize>,
    /// `logits = softcap * tanh(scale * q.k / softcap)` (a whole number; `None`: off).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub softcap: Option<u32>,
    /// ALiBi bias with the geometric slopes.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub alibi: bool,
    /// An attention sink of logit 0.5 per head.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub sinks: bool,
}

impl ScoreMods {
    /// No window and no modifier.
    pub fn is_plain(&self) -> bool {
        *self == ScoreMods::default()
    }

    /// Whether the call needs a configuration's score-modifier kernel (softcap or ALiBi; windows
    /// and sinks run on every configuration).
    pub fn needs_score_mods(&self) -> bool {
        self.softcap.is_some() || self.alibi
    }

    /// The ALiBi slope of head `h` of `heads` (the geometric sequence of the
    /// ALiBi paper for a power-of-two head count).
    pub fn alibi_slope(h: usize, heads: usize) -> f32 {
        2f32.powf(-8.0 * (h + 1) as f32 / heads as f32)
    }

    /// The sink logit every head gets.
    pub const SINK: f32 = 0.5;
}

impl Shape {
    /// A self-attention shape (`heads_kv == heads_q`, `seqlen_k == seqlen_q`).
    pub fn self_attention(
        dtype: &str,
        batch: usize,
        heads: usize,
        seqlen: usize,
        head_dim: usize,
        causal: bool,
    ) -> Shape {
        Shape {
            dtype: dtype.to_string(),
            batch,
            heads_q: heads,
            heads_kv: heads,
            seqlen_q: seqlen,
            seqlen_k: seqlen,
            head_dim,
            causal,
            ..Shape::default()
        }
    }

    /// One query row of each of `batch` sequences against a cache of `seqlen_k` keys, through
    /// the decode path; `page_size` makes the cache paged.
    pub fn decode(
        dtype: &str,
        batch: usize,
        (heads_q, heads_kv): (usize, usize),
        seqlen_k: usize,
        head_dim: usize,
        page_size: Option<usize>,
    ) -> Shape {
        Shape {
            heads_kv,
            seqlen_q: 1,
            seqlen_k,
            decode: true,
            page_size,
            ..Shape::self_attention(dtype, batch, heads_q, 1, head_dim, false)
        }
    }

    pub fn with_mods(self, mods: ScoreMods) -> Shape {
        Shape { mods, ..self }
    }

    /// Stable, human-readable identity used to match results across reports,
    /// e.g. `f16 B4 H16/16 S512x512 D64 causal` (no suffix when not causal).
    pub fn key(&self) -> String {
        let (s, m) = (self, &self.mods);
        let side = |w: Option<usize>| w.map_or("inf".to_string(), |w| w.to_string());
        let (left, right) = (m.window_left, m.window_right);
        let window = format!("window{}/{}", side(left), side(right));
        let parts = [
            Some(format!(
                "{} B{} H{}/{}",
                s.dtype, s.batch, s.heads_q, s.heads_kv
            )),
            Some(format!("S{}x{} D{}", s.seqlen_q, s.seqlen_k, s.head_dim)),
            s.causal.then(|| "causal".to_string()),
            (left.is_some() || right.is_some()).then_some(window),
            m.softcap.map(|c| format!("softcap{c}")),
            m.alibi.then(|| "alibi".to_string()),
            m.sinks.then(|| "sinks".to_string()),
            s.decode.then(|| "decode".to_string()),
            s.page_size.map(|ps| format!("page{ps}")),
            s.heads_major.then(|| "heads-major".to_string()),
            (!s.varlen.is_empty()).then(|| format!("varlen{}", s.varlen.iter().sum::<usize>())),
        ];
        parts.into_iter().flatten().collect::<Vec<_>>().join(" ")
    }

    /// Number of (query, key) pairs that take part in attention, per batch element and head:
    /// `Sq * Sk` without masking; with the bottom-right causal mask, exactly the pairs with
    /// `j <= i + Sk - Sq`; with a window, the pairs inside it (useful work: masked tiles are not
    /// counted). A varlen shape: the sum over its sequences, each with its own length.
    pub fn allowed_pairs(&self) -> u64 {
        if !self.varlen.is_empty() {
            return self.varlen.iter().map(|&l| self.pairs_of(l, l)).sum();
        }
        self.pairs_of(self.seqlen_q, self.seqlen_k)
    }

    fn pairs_of(&self, sq: usize, sk: usize) -> u64 {
        let (sq, sk) = (sq as i64, sk as i64);
        let (diag, left) = (sk - sq, self.mods.window_left);
        let right = self.causal.then_some(0).or(self.mods.window_right);
        // Row i sees keys i + diag - left ..= i + diag + right, clipped to the sequence: one row
        // at a time, as windows break the closed form (and rows are few: one add each).
        (0..sq)
            .map(|i| {
                let lo = left.map_or(0, |l| (i + diag - l as i64).max(0));
                let hi = right.map_or(sk - 1, |r| (i + diag + r as i64).min(sk - 1));
                (hi - lo + 1).max(0) as u64
            })
            .sum()
    }

    /// What [`Shape::allowed_pairs`] is multiplied by: the batch, or 1 for a varlen shape
    /// (whose pairs already sum over its sequences).
    fn batches(&self) -> u64 {
        if self.varlen.is_empty() {
            self.batch as u64
        } else {
            1
        }
    }

    /// Floating-point operations of the forward pass: two matmuls (`QK^T` and
    /// `PV`) of `2 * D` flops per allowed pair, i.e. `4 * B * Hq * D * pairs` (a varlen shape:
    /// `4 * Hq * D` times the pairs of every sequence).
    /// Softmax work is not counted, following the usual convention for
    /// attention TFLOP/s. Exact as long as the count is below 2^53.
    pub fn flops(&self) -> f64 {
        let per_pair = 4 * self.batches() * self.heads_q as u64 * self.head_dim as u64;
        (per_pair as f64) * self.allowed_pairs() as f64
    }

    /// Minimum DRAM traffic of one call: read Q, K and V once, write O, and
    /// write the f32 log-sum-exp (one per query row and head); `None` for an unknown dtype.
    pub fn min_bytes(&self) -> Option<f64> {
        let e = match self.dtype.as_str() {
            "f16" | "bf16" => 2,
            "f32" => 4,
            _ => return None,
        };
        let total = self.varlen.iter().sum::<usize>() as u64;
        let (tokens_q, tokens_k) = match self.varlen.is_empty() {
            true => (
                (self.batch * self.seqlen_q) as u64,
                (self.batch * self.seqlen_k) as u64,
            ),
            false => (total, total),
        };
        let (q_rows, kv_rows) = (
            self.heads_q as u64 * tokens_q,
            self.heads_kv as u64 * tokens_k,
        );
        let d = self.head_dim as u64;
        Some((2 * q_rows * d * e + 2 * kv_rows * d * e + q_rows * 4) as f64)
    }
}

impl fmt::Display for Shape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.key())
    }
}

/// Measurements of one implementation on one shape in one timing mode.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct BenchResult {
    /// Suite the shape came from (`seed`, `long`, `sweep`, ...).
    pub suite: String,
    pub shape: Shape,
    /// `flashattn`, `flashattn[cfg-name]`, `sdpa-flash`, `sdpa-cudnn`,
    /// `sdpa-efficient`, ...
    pub implementation: String,
    /// [`MODE_EVENTS`], [`MODE_COLD`] or [`MODE_GRAPH`].
    pub mode: String,
    /// Per-call latencies in milliseconds, in measurement order.
    #[serde(default)]
    pub samples_ms: Vec<f64>,
    /// Derived by [`BenchResult::finish`], as are the next four.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<Summary>,
    /// At the median latency.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tflops: Option<f64>,
    /// Effective bandwidth of [`Shape::min_bytes`] at the median.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gbps: Option<f64>,
    /// `tflops / ceilings.bf16_matmul_tflops`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frac_peak_flops: Option<f64>,
    /// `gbps / (1000 * ceilings.copy_tbps)`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frac_peak_bw: Option<f64>,
    /// Why there are no samples (for example an unsupported shape).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Our kernels only: the compiled configuration that ran (what `auto` resolved to).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub config: Option<String>,
    /// Our forward calls only: how the launch dealt its tiles (`flashattn::Schedule::name`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schedule: Option<String>,
}

impl BenchResult {
    /// A successful measurement; call [`BenchResult::finish`] to fill the derived fields.
    pub fn new(
        suite: &str,
        shape: Shape,
        implementation: &str,
        mode: &str,
        samples_ms: Vec<f64>,
    ) -> Self {
        BenchResult {
            suite: suite.to_string(),
            shape,
            implementation: implementation.to_string(),
            mode: mode.to_string(),
            samples_ms,
            ..BenchResult::default()
        }
    }

    /// A measurement that could not be taken, with the reason.
    pub fn failed(
        suite: &str,
        shape: Shape,
        implementation: &str,
        mode: &str,
        error: impl Into<String>,
    ) -> Self {
        let mut r = Self::new(suite, shape, implementation, mode, Vec::new());
        r.error = Some(error.into());
        r
    }

    /// Fills `summary`, `tflops`, `gbps` and (given ceilings) the peak
    /// fractions from `samples_ms`, overwriting previous values.
    ///
    /// Throughput is taken at the median latency, which is robust to the
    /// occasional slow outlier. Non-finite and non-positive samples are
    /// ignored. Without usable samples every derived field becomes `None`;
    /// `gbps` is also `None` for an unknown dtype.
    pub fn finish(&mut self, ceilings: Option<&Ceilings>) {
        self.summary = Summary::try_from_samples(&self.usable_samples());
        let seconds = self.summary.map(|s| s.p50 * 1e-3);
        self.tflops = seconds.map(|s| self.shape.flops() / s / 1e12);
        self.gbps = seconds.and_then(|s| Some(self.shape.min_bytes()? / s / 1e9));
        let fraction = |x: Option<f64>, peak: Option<f64>| Some(x? / peak.filter(|p| *p > 0.0)?);
        self.frac_peak_flops = fraction(self.tflops, ceilings.map(|c| c.bf16_matmul_tflops));
        self.frac_peak_bw = fraction(self.gbps, ceilings.map(|c| c.copy_tbps * 1000.0));
    }

    /// The samples that count: timer glitches (non-finite or non-positive values) dropped.
    pub fn usable_samples(&self) -> Vec<f64> {
        let usable = |x: &f64| x.is_finite() && *x > 0.0;
        self.samples_ms.iter().copied().filter(usable).collect()
    }

    /// The stored summary, or one computed from the samples if absent.
    pub fn effective_summary(&self) -> Option<Summary> {
        self.summary.or_else(|| self.finished().summary)
    }

    /// The stored TFLOP/s, or the value computed from the samples if absent.
    pub fn effective_tflops(&self) -> Option<f64> {
        self.tflops.or_else(|| self.finished().tflops)
    }

    /// The stored bandwidth (GB/s of [`Shape::min_bytes`]), or the value computed from the
    /// samples if absent.
    pub fn effective_gbps(&self) -> Option<f64> {
        self.gbps.or_else(|| self.finished().gbps)
    }

    /// A copy with the derived fields computed by [`BenchResult::finish`] (without ceilings).
    fn finished(&self) -> BenchResult {
        let mut copy = self.clone();
        copy.finish(None);
        copy
    }

    /// Identity used to match results across reports.
    pub fn key(&self) -> ResultKey {
        ResultKey {
            shape_key: self.shape.key(),
            implementation: self.implementation.clone(),
            mode: self.mode.clone(),
        }
    }
}

/// ([`Shape::key`], implementation, mode): what makes two results comparable.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ResultKey {
    pub shape_key: String,
    pub implementation: String,
    pub mode: String,
}

impl fmt::Display for ResultKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (s, i, m) = (&self.shape_key, &self.implementation, &self.mode);
        write!(f, "{s} | {i} | {m}")
    }
}

/// Failure to read or write a report file, with the file's path.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    #[error("{}: {}", .0.display(), .1)]
    Io(PathBuf, #[source] std::io::Error),
    #[error("{}: invalid report JSON: {}", .0.display(), .1)]
    Json(PathBuf, #[source] serde_json::Error),
    /// The report declares a schema version this crate does not understand (or none).
    #[error("{}: {} (expected {SCHEMA_VERSION})", path.display(), match found {
        Some(v) => format!("schema_version {v} is not supported"),
        None => "missing schema_version".to_string(),
    })]
    UnsupportedSchema { path: PathBuf, found: Option<u64> },
}

fn io_error(path: &Path, source: std::io::Error) -> ReportError {
    ReportError::Io(path.to_path_buf(), source)
}

impl Report {
    /// An empty report stamped with the current time and [`SCHEMA_VERSION`].
    pub fn new(tool: &str, device: Device) -> Report {
        Report {
            schema_version: SCHEMA_VERSION,
            tool: tool.to_string(),
            created_utc: now_utc(),
            device,
            ..Report::default()
        }
    }

    /// Pretty-printed JSON with a trailing newline.
    pub fn to_json_string(&self) -> String {
        serde_json::to_string_pretty(self).expect("a report always serialises") + "\n"
    }

    /// Reads a report file, checking the schema version first so that a file from a newer
    /// producer fails with a clear message rather than a confusing field error.
    pub fn read(path: impl AsRef<Path>) -> Result<Report, ReportError> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path).map_err(|e| io_error(path, e))?;
        let json = |source| ReportError::Json(path.to_path_buf(), source);
        let value: serde_json::Value = serde_json::from_str(&text).map_err(json)?;
        let found = value.get("schema_version").and_then(|v| v.as_u64());
        if found != Some(u64::from(SCHEMA_VERSION)) {
            let path = path.to_path_buf();
            return Err(ReportError::UnsupportedSchema { path, found });
        }
        serde_json::from_value(value).map_err(json)
    }

    /// Writes the report as pretty JSON.
    pub fn write(&self, path: impl AsRef<Path>) -> Result<(), ReportError> {
        let path = path.as_ref();
        std::fs::write(path, self.to_json_string()).map_err(|e| io_error(path, e))
    }

    /// Runs [`BenchResult::finish`] on every result that has samples but no summary, so that
    /// hand-written or truncated reports still render. Results that already carry derived values
    /// are left as their producer wrote them.
    pub fn fill_missing(&mut self) {
        let ceilings = self.ceilings;
        for r in &mut self.results {
            if r.summary.is_none() && !r.samples_ms.is_empty() {
                r.finish(ceilings.as_ref());
            }
        }
    }

    /// Folds `other` into `self` and returns notes worth showing the user.
    ///
    /// Results are appended; a result whose [`ResultKey`] already exists
    /// replaces the earlier one (the later file wins), so a re-run of a few
    /// shapes can be merged over a full run. Missing metadata (`commit`,
    /// `ceilings`, `command`, device details) is taken from `other`; when
    /// both sides have it, `self` wins and a differing device name is
    /// reported, since numbers from two GPUs should not share a table.
    /// Different tools are recorded as `a+b`.
    pub fn merge(&mut self, other: Report) -> Vec<String> {
        let mut notes = Vec::new();
        if self.device.name != other.device.name && !other.device.name.is_empty() {
            if self.device.name.is_empty() {
                self.device.name = other.device.name.clone();
            } else {
                notes.push(format!(
                    "device differs: keeping '{}', merging results measured on '{}'",
                    self.device.name, other.device.name
                ));
            }
        }
        let d = &mut self.device;
        let od = other.device;
        d.compute_capability = d.compute_capability.take().or(od.compute_capability);
        d.sm_count = d.sm_count.or(od.sm_count);
        d.driver = d.driver.take().or(od.driver);
        d.sm_clock_mhz = d.sm_clock_mhz.or(od.sm_clock_mhz);
        d.mem_clock_mhz = d.mem_clock_mhz.or(od.mem_clock_mhz);
        self.commit = self.commit.take().or(other.commit);
        self.ceilings = self.ceilings.or(other.ceilings);
        self.command = self.command.take().or(other.command);
        if !self.tool.split('+').any(|t| t == other.tool) {
            self.tool = format!("{}+{}", self.tool, other.tool);
        }
        for r in other.results {
            let key = r.key();
            if let Some(pos) = self.results.iter().position(|e| e.key() == key) {
                notes.push(format!("replaced duplicate result: {key}"));
                self.results[pos] = r;
            } else {
                self.results.push(r);
            }
        }
        notes
    }
}

/// Current UTC time as `YYYY-MM-DDTHH:MM:SSZ`.
pub fn now_utc() -> String {
    utc_string(chrono::Utc::now())
}

/// The schema's one timestamp format (`created_utc`): RFC 3339 in UTC, whole seconds.
fn utc_string(t: chrono::DateTime<chrono::Utc>) -> String {
    t.format("%Y-%m-%dT%H:%M:%SZ").to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shape_key_format() {
        let s = Shape::self_attention("f16", 4, 16, 512, 64, true);
        assert_eq!(s.key(), "f16 B4 H16/16 S512x512 D64 causal");
        let mut g = Shape::self_attention("bf16", 1, 32, 128, 128, false);
        (g.heads_kv, g.seqlen_k) = (8, 256);
        assert_eq!(g.key(), "bf16 B1 H32/8 S128x256 D128");
        assert_eq!(g.to_string(), g.key());
        let mods = ScoreMods {
            window_right: Some(8),
            softcap: Some(30),
            alibi: true,
            sinks: true,
            ..ScoreMods::default()
        };
        let d = Shape::decode("bf16", 2, (32, 8), 4096, 128, Some(64)).with_mods(mods);
        let key = "bf16 B2 H32/8 S1x4096 D128 windowinf/8 softcap30 alibi sinks decode page64";
        assert_eq!(d.key(), key);
    }

    #[test]
    fn varlen_shapes_count_each_sequence() {
        let v = Shape {
            varlen: vec![3, 1, 7],
            ..Shape::self_attention("bf16", 3, 2, 7, 64, true)
        };
        assert_eq!(v.key(), "bf16 B3 H2/2 S7x7 D64 causal varlen11");
        // Causal pairs per sequence: l (l + 1) / 2.
        assert_eq!(v.allowed_pairs(), 6 + 1 + 28);
        assert_eq!(v.flops(), 4.0 * 2.0 * 64.0 * 35.0);
        assert_eq!(
            v.min_bytes(),
            Some((4 * 11 * 2 * 64 * 2 + 11 * 2 * 4) as f64)
        );
    }

    #[test]
    fn allowed_pairs_match_brute_force() {
        for sq in [0, 1, 2, 3, 7, 16] {
            for sk in [0, 1, 2, 5, 7, 16, 19] {
                for causal in [false, true] {
                    let mut s = Shape::self_attention("f16", 1, 1, sq, 8, causal);
                    s.seqlen_k = sk;
                    // Brute force: key j is visible to query i iff j <= i + sk - sq (causal).
                    let brute: usize = (0..sq)
                        .map(|i| (0..sk).filter(|&j| !causal || j + sq <= i + sk).count())
                        .sum();
                    assert_eq!(s.allowed_pairs(), brute as u64, "{s}");
                }
            }
        }
    }

    #[test]
    fn flops_and_min_bytes_known_values() {
        // Square causal: S (S + 1) / 2 pairs.
        for (causal, pairs) in [(false, 8192.0 * 8192.0), (true, 8192.0 * 8193.0 / 2.0)] {
            let s = Shape::self_attention("bf16", 2, 16, 8192, 128, causal);
            assert_eq!(s.flops(), 4.0 * 2.0 * 16.0 * 128.0 * pairs);
        }
        // Q and O, K and V, and one f32 log-sum-exp a query row.
        let mut s = Shape::self_attention("f16", 2, 8, 100, 64, false);
        (s.heads_kv, s.seqlen_k) = (2, 300);
        let (q, kv, lse) = (2 * 8 * 100 * 64 * 2, 2 * 2 * 300 * 64 * 2, 2 * 8 * 100 * 4);
        assert_eq!(s.min_bytes(), Some((2 * q + 2 * kv + lse) as f64));
        s.dtype = "fp8".into();
        assert_eq!(s.min_bytes(), None);
    }

    fn sample_report() -> Report {
        let mut r = Report::new(TOOL_RUST, Device::named("Test GPU"));
        r.ceilings = Some(Ceilings {
            bf16_matmul_tflops: 800.0,
            copy_tbps: 3.0,
        });
        let shape = Shape::self_attention("bf16", 1, 1, 1024, 64, false);
        let samples = vec![2.0, 1.0, 3.0];
        let mut ok = BenchResult::new("seed", shape.clone(), IMPL_OURS, MODE_EVENTS, samples);
        ok.finish(r.ceilings.as_ref());
        let failed = BenchResult::failed("seed", shape, "sdpa-flash", MODE_EVENTS, "unsupported");
        r.results.extend([ok, failed]);
        r
    }

    #[test]
    fn finish_fills_derived_fields() {
        let r = sample_report();
        let ok = &r.results[0];
        let s = ok.summary.unwrap();
        assert_eq!(s.p50, 2.0);
        let flops = 4.0 * 1024.0 * 1024.0 * 64.0;
        let t = ok.tflops.unwrap();
        assert!((t - flops / 2e-3 / 1e12).abs() < 1e-12);
        assert!((ok.frac_peak_flops.unwrap() - t / 800.0).abs() < 1e-15);
        let bytes = (4 * 1024 * 64 * 2 + 1024 * 4) as f64;
        assert!((ok.gbps.unwrap() - bytes / 2e-3 / 1e9).abs() < 1e-9);
        assert!((ok.frac_peak_bw.unwrap() - ok.gbps.unwrap() / 3000.0).abs() < 1e-15);

        let mut empty = r.results[1].clone();
        empty.finish(r.ceilings.as_ref());
        assert!(empty.summary.is_none() && empty.tflops.is_none() && empty.frac_peak_bw.is_none());
    }

    #[test]
    fn json_files_round_trip_and_check_the_schema() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.json");
        let r = sample_report();
        r.write(&path).unwrap();
        assert_eq!(Report::read(&path).unwrap(), r);
        // Optional fields without a value are left out...
        assert!(
            !std::fs::read_to_string(&path)
                .unwrap()
                .contains("\"commit\"")
        );
        // ...and null and absent are both accepted.
        let minimal = r#"{"schema_version":1,"tool":"sdpa_baseline.py","created_utc":"x",
            "commit":null,"device":{"name":"G","sm_count":null},"ceilings":null,
            "results":[{"suite":"s","shape":{"dtype":"f16","batch":1,"heads_q":1,"heads_kv":1,
            "seqlen_q":4,"seqlen_k":4,"head_dim":8,"causal":false},"implementation":"sdpa-flash",
            "mode":"events","samples_ms":[1.0],"error":null,"future_field":3}]}"#;
        let m: Report = serde_json::from_str(minimal).unwrap();
        assert_eq!(m.results[0].samples_ms, vec![1.0]);
        assert!(m.commit.is_none() && m.device.sm_count.is_none());
        let missing = Report::read(dir.path().join("missing.json")).unwrap_err();
        assert!(matches!(missing, ReportError::Io(..)));
        for (text, message) in [
            (
                r#"{"schema_version":2}"#,
                "schema_version 2 is not supported (expected 1)",
            ),
            (r#"{"tool":"x"}"#, "missing schema_version"),
            ("nope", "invalid report JSON"),
            (
                r#"{"schema_version":1}"#,
                "invalid report JSON: missing field",
            ),
        ] {
            std::fs::write(&path, text).unwrap();
            let err = Report::read(&path).unwrap_err().to_string();
            let want = format!("{}: {message}", path.display());
            assert!(err.starts_with(&want), "{err}");
        }
    }

    #[test]
    fn merge_appends_replaces_and_notes() {
        let mut a = sample_report();
        let mut b = sample_report();
        b.tool = TOOL_PYTHON.into();
        b.commit = Some("abc".into());
        b.device.name = "Other GPU".into();
        b.results[0].samples_ms = vec![9.0];
        b.results[0].finish(None);
        let extra = Shape::self_attention("bf16", 1, 1, 2048, 64, true);
        let extra = BenchResult::new("long", extra, "sdpa-cudnn", MODE_GRAPH, vec![1.0]);
        b.results.push(extra);
        let notes = a.merge(b);
        assert_eq!(a.results.len(), 3);
        assert_eq!(a.results[0].samples_ms, vec![9.0]);
        assert_eq!(a.tool, "flashattn-bench+sdpa_baseline.py");
        assert_eq!(a.commit.as_deref(), Some("abc"));
        assert_eq!(a.device.name, "Test GPU");
        assert_eq!(notes.len(), 3, "{notes:?}");
        assert!(notes[0].contains("device differs"));
        // Merging the same tool again does not grow the name.
        let c = Report::new(TOOL_PYTHON, Device::default());
        a.merge(c);
        assert_eq!(a.tool, "flashattn-bench+sdpa_baseline.py");
    }

    #[test]
    fn fill_missing_only_touches_unsummarised() {
        let mut r = sample_report();
        r.results[0].tflops = Some(123.0);
        let shape = Shape::self_attention("f16", 1, 1, 64, 64, false);
        let unsummarised = BenchResult::new("seed", shape, "x", MODE_EVENTS, vec![1.0, 3.0]);
        r.results.push(unsummarised);
        r.fill_missing();
        assert_eq!(r.results[0].tflops, Some(123.0));
        assert_eq!(r.results[2].summary.unwrap().p50, 2.0);
        assert!(r.results[1].summary.is_none());
    }

    #[test]
    fn utc_formatting() {
        let format_utc = |secs| utc_string(chrono::DateTime::from_timestamp(secs, 0).unwrap());
        assert_eq!(format_utc(0), "1970-01-01T00:00:00Z");
        // 2000-02-29 12:34:56 UTC (leap day in a century leap year).
        assert_eq!(format_utc(951_827_696), "2000-02-29T12:34:56Z");
        assert_eq!(format_utc(1_735_689_599), "2024-12-31T23:59:59Z");
        assert_eq!(now_utc().len(), 20);
    }

    #[test]
    fn schema_md_example_matches_finish() {
        // Keeps the documented example honest: it must parse, and its derived
        // numbers must be what `finish` computes (to the digits shown).
        let doc = include_str!("../SCHEMA.md");
        let start = doc.rfind("```json").unwrap() + "```json".len();
        let end = start + doc[start..].find("```").unwrap();
        let example: BenchResult = serde_json::from_str(&doc[start..end]).unwrap();
        let mut mine = example.clone();
        mine.finish(Some(&Ceilings {
            bf16_matmul_tflops: 794.3,
            copy_tbps: 2.989,
        }));
        let derived = |r: &BenchResult| [r.tflops, r.gbps, r.frac_peak_flops, r.frac_peak_bw];
        for (shown, computed) in derived(&example).into_iter().zip(derived(&mine)) {
            let (a, b) = (shown.unwrap(), computed.unwrap());
            assert!((a - b).abs() <= 5e-4 * b.abs().max(1e-3), "{a} vs {b}");
        }
        let (e, m) = (example.summary.unwrap(), mine.summary.unwrap());
        assert_eq!((e.n, e.p50, e.min, e.max), (m.n, m.p50, m.min, m.max));
        assert!((e.p90 - m.p90).abs() < 1e-12 && (e.stdev - m.stdev).abs() < 1e-12);
    }

    #[test]
    fn ours_vs_baselines() {
        assert!(is_ours("flashattn") && is_ours("flashattn[bm128-bn64]"));
        assert!(!is_ours("flashattn-ref") && !is_ours("sdpa-flash"));
    }
}
