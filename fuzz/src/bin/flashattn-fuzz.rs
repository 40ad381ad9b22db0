//! `flashattn-fuzz`: the property-based correctness fuzzer. Draws random cases from
//! [`flashattn_fuzz::strategies`] with an RNG seeded from `--seed`, runs each on the GPU against
//! the CPU reference ([`flashattn_fuzz::harness::run_case`]), shrinks failures to a minimal
//! reproducer, and prints (and optionally writes as JSON) what it covered.

use std::collections::{BTreeMap, HashMap};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use clap::Parser;
use cudarc::driver::CudaStream;
use flashattn::DType;
use flashattn_fuzz::harness::{Case, Outcome, gpu_stream, run_case};
use flashattn_fuzz::reproducer::parse_case;
use flashattn_fuzz::strategies::{
    CaseSpace, ConfigFilter, Features, all_labels, classify, seeded_runner, shrink, work,
};
use proptest::strategy::{Strategy, ValueTree};
use serde_json::{Value, json};

/// Draws random attention cases (shapes, masks, GQA, layouts, hostile inputs, every compiled
/// kernel configuration), runs each on GPU 0 and checks it against the CPU reference with the
/// project's tolerance rule. Failures are shrunk to a minimal case by re-running on the GPU.
#[derive(Parser)]
#[command(
    name = "flashattn-fuzz",
    after_help = "Exit status: 0 every case passed; 1 a case failed; 2 no usable GPU, or bad arguments."
)]
struct Args {
    /// Stop after N cases [default: 1000 unless --seconds is given]
    #[arg(long, value_name = "N")]
    cases: Option<u64>,
    /// Stop after T seconds; with --cases, whichever comes first
    #[arg(long, value_name = "T", value_parser = non_negative_seconds)]
    seconds: Option<f64>,
    /// RNG seed; the same seed draws the same cases [default: from the clock]
    #[arg(long, value_name = "S")]
    seed: Option<u64>,
    /// The compute-sanitizer preset: Sq, Sk <= 300, batch <= 2, heads_q <= 8; with --walks, the
    /// walk preset at Sq, Sk <= 300 (its many heads kept, so that launches walk under the
    /// sanitizers too)
    #[arg(long, conflicts_with = "splits")]
    small: bool,
    /// The persistent-walk preset: many query tiles (batch <= 8, heads_q <= 256, Sq, Sk <=
    /// 1100) at head dims 64, 96 and 128 on the warp-specialized configurations, so that many
    /// non-causal cases, and causal ones where the fold pays, run those tiles persistently (the
    /// summary counts the schedules)
    #[arg(long, conflicts_with = "splits")]
    walks: bool,
    /// The split-tail preset: head dims 96 and 128, non-causal, every case with a workspace,
    /// 2,048-5,120 keys over query sequences of 192-1,100 rows and up to 256 query heads, so that
    /// the warp-specialized walks split their last tiles' keys across the SMs (the summary counts
    /// the schedules that ran)
    #[arg(long)]
    splits: bool,
    /// Largest seqlen_q / seqlen_k [default: 4096, 300 with --small, 1100 with --walks; --splits
    /// draws its own ranges]
    #[arg(long, value_name = "L")]
    max_seqlen: Option<usize>,
    /// Element types, repeated or comma-separated [default: f16,bf16]
    #[arg(long = "dtype", value_name = "D", value_delimiter = ',', value_parser = parse_dtype)]
    dtypes: Vec<DType>,
    /// Only these head dims, repeated or comma-separated [default: every compiled one]
    #[arg(long = "head-dim", value_name = "D", value_delimiter = ',')]
    head_dims: Vec<usize>,
    /// Configuration names, repeated or comma-separated; or `all` (Auto and every
    /// configuration), `ws` (Auto and the warp-specialized ones) or `auto` (only the
    /// dispatcher's choice) [default: all, ws with --walks and --splits]
    #[arg(long = "config", value_name = "C", value_delimiter = ',')]
    configs: Vec<String>,
    /// A progress line every K cases; 0 = never
    #[arg(long, value_name = "K", default_value_t = 100)]
    progress_every: u64,
    /// GPU runs allowed per shrink
    #[arg(long, value_name = "N", default_value_t = 300)]
    shrink_steps: usize,
    /// Shrink at most the first N failures
    #[arg(long, value_name = "N", default_value_t = 3)]
    max_shrinks: usize,
    /// Also write a machine-readable summary to FILE
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
    /// Testing the fuzzer itself: also count every causal case with seqlen_q >= SQ as failed,
    /// to watch shrinking find seqlen_q = SQ
    #[arg(long, value_name = "SQ")]
    inject_failure: Option<usize>,
    /// Run one case, given as the line a failure printed (`dtype=f16 B=2 ... lse=false`),
    /// instead of drawing any: exit 0 if it passes, 1 if it fails. `kernel=Id(N)` is the
    /// printing build's configuration N (`flashattn::kernel_configs()`): replay on the same build
    /// or write `kernel=Named("sm80_f16_d256_m64n64w4s1")`
    #[arg(long, value_name = "LINE", conflicts_with_all = ["cases", "seconds", "seed", "small", "walks", "splits"])]
    replay: Option<String>,
    /// Masks and score modifiers (sliding windows, top-left alignment, softcap, ALiBi, sinks):
    /// `mixed` (each in a minority of cases), `always` (every case has one; softcap/ALiBi cases
    /// run the score-modifier configurations) or `off` (plain causal / non-causal only)
    #[arg(long, value_name = "F", default_value = "mixed", value_parser = parse_features)]
    features: Features,
}

fn parse_features(text: &str) -> Result<Features, String> {
    match text {
        "off" => Ok(Features::Off),
        "mixed" => Ok(Features::Mixed),
        "always" => Ok(Features::Always),
        _ => Err("not one of off, mixed, always".into()),
    }
}

fn parse_dtype(text: &str) -> Result<DType, String> {
    match text {
        "f16" => Ok(DType::F16),
        "bf16" => Ok(DType::BF16),
        _ => Err("neither f16 nor bf16".into()),
    }
}

fn non_negative_seconds(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(t) if t.is_finite() && t >= 0.0 => Ok(t),
        _ => Err("not a non-negative number".into()),
    }
}

impl Args {
    fn space(&self) -> Result<CaseSpace, String> {
        let mut space = if self.small && self.walks {
            CaseSpace::small_walks()
        } else if self.small {
            CaseSpace::small()
        } else if self.walks {
            CaseSpace::walks()
        } else if self.splits {
            CaseSpace::splits()
        } else {
            CaseSpace::default()
        };
        if let Some(l) = self.max_seqlen {
            space.max_seqlen = l;
        }
        space.features = self.features;
        if !self.dtypes.is_empty() {
            space.dtypes = self.dtypes.clone();
        }
        if !self.head_dims.is_empty() {
            space.head_dims = Some(self.head_dims.clone());
        }
        let keywords = self
            .configs
            .iter()
            .filter(|c| ["all", "ws", "auto"].contains(&c.as_str()))
            .count();
        space.configs = match self.configs.as_slice() {
            [] => space.configs,
            [one] if one == "all" => ConfigFilter::All,
            [one] if one == "ws" => ConfigFilter::WarpSpecialized,
            [one] if one == "auto" => ConfigFilter::Auto,
            _ if keywords > 0 => {
                return Err(
                    "--config: `all`, `ws` and `auto` cannot be combined with other values".into(),
                );
            }
            names => ConfigFilter::Named(names.to_vec()),
        };
        Ok(space)
    }
}

/// What one GPU run said about a case.
enum Verdict {
    Pass(Outcome),
    Fail(Outcome),
    /// Passed the check but failed by `--inject-failure`.
    Injected(Outcome),
    /// A launch error or a panic. `fatal` when the CUDA context is unusable afterwards (a
    /// sticky error such as an illegal address): nothing after it can be trusted.
    Error {
        message: String,
        fatal: bool,
    },
}

impl Verdict {
    fn failed(&self) -> bool {
        !matches!(self, Verdict::Pass(_))
    }

    fn config(&self) -> String {
        match self {
            Verdict::Pass(o) | Verdict::Fail(o) | Verdict::Injected(o) => o.config.name.to_string(),
            Verdict::Error { .. } => "(no result)".to_string(),
        }
    }

    fn schedule(&self) -> &'static str {
        match self {
            Verdict::Pass(o) | Verdict::Fail(o) | Verdict::Injected(o) => o.schedule.name(),
            Verdict::Error { .. } => "(no result)",
        }
    }

    fn feed(&self) -> &'static str {
        match self {
            Verdict::Pass(o) | Verdict::Fail(o) | Verdict::Injected(o) => o.feed.name(),
            Verdict::Error { .. } => "(no result)",
        }
    }

    fn detail(&self) -> String {
        match self {
            Verdict::Pass(o) | Verdict::Fail(o) => o.check.summary(),
            Verdict::Injected(o) => {
                format!("injected failure (--inject-failure); {}", o.check.summary())
            }
            Verdict::Error { message, fatal } => {
                format!(
                    "{message}{}",
                    if *fatal { " (CUDA context lost)" } else { "" }
                )
            }
        }
    }
}

fn evaluate(stream: &Arc<CudaStream>, case: &Case, inject: Option<usize>) -> Verdict {
    match run(stream, case) {
        Verdict::Pass(o)
            if inject.is_some_and(|sq| case.params.causal && case.params.seqlen_q >= sq) =>
        {
            Verdict::Injected(o)
        }
        v => v,
    }
}

fn run(stream: &Arc<CudaStream>, case: &Case) -> Verdict {
    // Every drawn case is valid, so a refused launch is a bug like a wrong answer; a panic in
    // the harness is reported with its case instead of ending the run without a reproducer.
    match catch_unwind(AssertUnwindSafe(|| run_case(stream, case))) {
        Ok(Ok(out)) if out.check.pass => Verdict::Pass(out),
        Ok(Ok(out)) => Verdict::Fail(out),
        Ok(Err(e)) => Verdict::Error {
            fatal: !e.is_validation() && stream.synchronize().is_err(),
            message: format!("launch error: {e}"),
        },
        Err(panic) => {
            let what = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()));
            Verdict::Error {
                message: format!("panicked: {}", what.unwrap_or_default()),
                fatal: stream.synchronize().is_err(),
            }
        }
    }
}

/// Cases, failures and the worst error ratio of one bucket.
#[derive(Default)]
struct Tally {
    cases: u64,
    failures: u64,
    worst_ratio: f64,
}

impl Tally {
    fn add(&mut self, failed: bool, ratio: Option<f64>) {
        self.cases += 1;
        self.failures += u64::from(failed);
        if let Some(r) = ratio {
            self.worst_ratio = self.worst_ratio.max(r);
        }
    }

    fn json(&self) -> Value {
        json!({ "cases": self.cases, "failures": self.failures, "worst_ratio": finite(self.worst_ratio) })
    }
}

/// The case where some quantity peaked.
struct Extreme {
    value: f64,
    reproducer: String,
    config: String,
    detail: String,
}

impl Extreme {
    fn json(&self) -> Value {
        json!({ "value": finite(self.value), "reproducer": self.reproducer, "config": self.config, "detail": self.detail })
    }
}

struct Minimal {
    reproducer: String,
    config: String,
    detail: String,
    steps: usize,
    out_of_steps: bool,
    context_lost: bool,
}

struct Failure {
    index: u64,
    reproducer: String,
    config: String,
    detail: String,
    minimal: Option<Minimal>,
}

#[derive(Default)]
struct Stats {
    cases: u64,
    by_dtype: BTreeMap<String, Tally>,
    by_head_dim: BTreeMap<usize, Tally>,
    by_mask: BTreeMap<&'static str, Tally>,
    by_config: BTreeMap<String, Tally>,
    by_schedule: BTreeMap<&'static str, Tally>,
    by_feed: BTreeMap<&'static str, Tally>,
    edges: HashMap<&'static str, u64>,
    worst: Option<Extreme>,
    slowest: Option<Extreme>,
    failures: Vec<Failure>,
    /// Largest `strategies::work` of any case, to see the budget at work.
    largest_work: u64,
}

impl Stats {
    fn record(&mut self, case: &Case, v: &Verdict) {
        self.cases += 1;
        self.largest_work = self.largest_work.max(work(case));
        let failed = v.failed();
        let ratio = match v {
            Verdict::Pass(o) | Verdict::Fail(o) | Verdict::Injected(o) => Some(o.check.ratio),
            Verdict::Error { .. } => None,
        };
        let p = &case.params;
        self.by_dtype
            .entry(case.dtype.to_string())
            .or_default()
            .add(failed, ratio);
        self.by_head_dim
            .entry(p.head_dim)
            .or_default()
            .add(failed, ratio);
        self.by_mask
            .entry(if p.causal { "causal" } else { "non-causal" })
            .or_default()
            .add(failed, ratio);
        self.by_config
            .entry(v.config())
            .or_default()
            .add(failed, ratio);
        self.by_schedule
            .entry(v.schedule())
            .or_default()
            .add(failed, ratio);
        self.by_feed.entry(v.feed()).or_default().add(failed, ratio);
        for label in classify(case) {
            *self.edges.entry(label).or_default() += 1;
        }
        let extreme = |value: f64| Extreme {
            value,
            reproducer: case.reproducer(),
            config: v.config(),
            detail: v.detail(),
        };
        if let Verdict::Pass(o) | Verdict::Fail(o) | Verdict::Injected(o) = v {
            if self.worst.as_ref().is_none_or(|w| o.check.ratio > w.value) {
                self.worst = Some(extreme(o.check.ratio));
            }
            if self.slowest.as_ref().is_none_or(|s| o.seconds > s.value) {
                self.slowest = Some(extreme(o.seconds));
            }
        }
    }
}

/// JSON has no infinities: a hard failure's infinite ratio is written as null.
fn finite(x: f64) -> Value {
    if x.is_finite() { json!(x) } else { Value::Null }
}

/// `--replay`: the one case, judged and printed as the fuzzer prints a case.
fn replay(stream: &Arc<CudaStream>, case: &Case) -> ExitCode {
    let verdict = evaluate(stream, case, None);
    // As the fuzzing loop prints a failed case.
    println!(
        "{} {} [{}]: {}",
        if verdict.failed() { "FAIL" } else { "PASS" },
        case.reproducer(),
        verdict.config(),
        verdict.detail()
    );
    if verdict.failed() {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

fn main() -> ExitCode {
    let args = Args::parse();
    // A line that does not read back is reported as such on any machine, before the GPU.
    let replayed = match args.replay.as_deref().map(parse_case).transpose() {
        Ok(case) => case,
        Err(e) => {
            eprintln!("flashattn-fuzz: --replay: {e}");
            return ExitCode::from(2);
        }
    };
    let mut space = match args.space() {
        Ok(s) => s,
        Err(e) => {
            eprintln!("flashattn-fuzz: {e}");
            return ExitCode::from(2);
        }
    };
    // The space is checked before the GPU so that a typo in --config is reported as such
    // on any machine.
    if let Err(e) = space.targets().and_then(|_| space.strategy()) {
        eprintln!("flashattn-fuzz: {e}");
        return ExitCode::from(2);
    }
    let stream = match gpu_stream() {
        Ok(s) => s,
        Err(e) => {
            println!("flashattn-fuzz: no usable GPU ({e}); nothing fuzzed");
            return ExitCode::from(2);
        }
    };
    if let Some(case) = replayed {
        return replay(&stream, &case);
    }
    // Draw only configurations this GPU runs (sm_90a code runs on compute capability 9.0 only)
    // and that fit its shared memory (lowered by FLASHATTN_MAX_SMEM_PER_BLOCK when set).
    space.device = match flashattn::device_facts(stream.context()) {
        Ok(facts) => Some((*facts).clone()),
        Err(e) => {
            eprintln!("flashattn-fuzz: {e}");
            return ExitCode::from(2);
        }
    };
    let (targets, strategy) = match space.targets().and_then(|t| Ok((t, space.strategy()?))) {
        Ok(x) => x,
        Err(e) => {
            eprintln!("flashattn-fuzz: {e}");
            return ExitCode::from(2);
        }
    };

    let seed = args.seed.unwrap_or_else(|| {
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64)
    });
    let max_cases = match (args.cases, args.seconds) {
        (None, None) => Some(1000),
        (n, _) => n,
    };
    let deadline = args.seconds.map(Duration::from_secs_f64);
    let ctx = stream.context();
    println!(
        "flashattn-fuzz: seed {seed}, device {}, {} cases{}, max seqlen {}, max work {:.1e}",
        ctx.name().unwrap_or_else(|_| "?".into()),
        max_cases.map_or("unlimited".to_string(), |n| n.to_string()),
        deadline.map_or(String::new(), |d| format!(" or {:.0} s", d.as_secs_f64())),
        space.max_seqlen,
        space.max_work as f64,
    );
    for t in &targets {
        let names: Vec<&str> = t.configs.iter().map(|c| c.name).collect();
        println!(
            "  {} d{}: {}{}",
            t.dtype,
            t.head_dim,
            if t.auto { "auto, " } else { "" },
            names.join(", ")
        );
    }

    let mut runner = seeded_runner(seed);
    let mut stats = Stats::default();
    let mut shrinks_done = 0;
    let mut context_lost = false;
    let start = Instant::now();
    let stopped_by = loop {
        if max_cases.is_some_and(|n| stats.cases >= n) {
            break "cases";
        }
        if deadline.is_some_and(|d| start.elapsed() >= d) {
            break "seconds";
        }
        // The drawn sequence depends only on the seed: shrinking never touches the runner's
        // RNG (no dependent draws), so later cases are the same whether or not earlier ones failed.
        let mut tree = strategy
            .new_tree(&mut runner)
            .expect("the case strategies never reject");
        let case = tree.current();
        let index = stats.cases;
        let verdict = evaluate(&stream, &case, args.inject_failure);
        stats.record(&case, &verdict);
        if verdict.failed() {
            println!(
                "FAIL case #{index}: {} [{}]: {}",
                case.reproducer(),
                verdict.config(),
                verdict.detail()
            );
            let fatal = matches!(verdict, Verdict::Error { fatal: true, .. });
            let mut failure = Failure {
                index,
                reproducer: case.reproducer(),
                config: verdict.config(),
                detail: verdict.detail(),
                minimal: None,
            };
            if fatal {
                context_lost = true;
                println!(
                    "  the CUDA context is unusable after this error: stopping without shrinking"
                );
            } else if shrinks_done < args.max_shrinks {
                shrinks_done += 1;
                let minimal = shrink_failure(&stream, &mut *tree, &verdict, &args);
                context_lost = minimal.context_lost;
                println!(
                    "  minimal after {} GPU runs{}: {} [{}]: {}",
                    minimal.steps,
                    if minimal.out_of_steps {
                        " (step budget spent)"
                    } else {
                        ""
                    },
                    minimal.reproducer,
                    minimal.config,
                    minimal.detail
                );
                failure.minimal = Some(minimal);
            }
            stats.failures.push(failure);
            if context_lost {
                break "cuda context lost";
            }
        }
        if args.progress_every > 0 && stats.cases % args.progress_every == 0 {
            progress(&stats, start.elapsed());
        }
    };
    let elapsed = start.elapsed();
    if args.progress_every > 0 && stats.cases % args.progress_every != 0 {
        progress(&stats, elapsed);
    }
    print_summary(&stats, elapsed);
    if let Some(path) = &args.json {
        let doc = summary_json(&stats, &space, seed, elapsed, stopped_by);
        let text = serde_json::to_string_pretty(&doc).expect("JSON values always serialize");
        if let Err(e) = std::fs::write(path, text + "\n") {
            eprintln!("flashattn-fuzz: cannot write {}: {e}", path.display());
            return ExitCode::from(2);
        }
    }
    if stats.failures.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

/// Shrink the failing case at `tree` by re-running candidates on the GPU.
fn shrink_failure(
    stream: &Arc<CudaStream>,
    tree: &mut dyn ValueTree<Value = Case>,
    first: &Verdict,
    args: &Args,
) -> Minimal {
    let mut details: HashMap<String, (String, String)> = HashMap::new();
    details.insert(
        tree.current().reproducer(),
        (first.config(), first.detail()),
    );
    let mut lost = false;
    let found = shrink(tree, args.shrink_steps, |c| {
        // After a sticky CUDA error every run fails for that reason alone; calling those
        // passes keeps the search from "shrinking" toward cases that never failed.
        if lost {
            return false;
        }
        let v = evaluate(stream, c, args.inject_failure);
        lost = matches!(v, Verdict::Error { fatal: true, .. });
        if v.failed() {
            details.insert(c.reproducer(), (v.config(), v.detail()));
        }
        v.failed()
    });
    let reproducer = found.case.reproducer();
    // Every failing case, the first included, left its details behind.
    let (config, detail) = details.remove(&reproducer).unwrap_or_default();
    Minimal {
        reproducer,
        config,
        detail,
        steps: found.steps,
        out_of_steps: found.out_of_steps,
        context_lost: lost,
    }
}

fn progress(stats: &Stats, elapsed: Duration) {
    let secs = elapsed.as_secs_f64();
    println!(
        "[{secs:>8.1} s] {} cases, {} failed, {:.2} cases/s",
        stats.cases,
        stats.failures.len(),
        stats.cases as f64 / secs.max(1e-9)
    );
}

fn print_summary(stats: &Stats, elapsed: Duration) {
    let secs = elapsed.as_secs_f64();
    println!("==== flashattn-fuzz summary ====");
    println!(
        "{} cases, {} failed, {:.1} s, {:.2} cases/s",
        stats.cases,
        stats.failures.len(),
        secs,
        stats.cases as f64 / secs.max(1e-9)
    );
    let table = |title: &str, rows: Vec<(String, &Tally)>| {
        println!("{title}:");
        for (name, t) in rows {
            println!(
                "  {name:<36} {:>7} cases {:>5} failed  worst ratio {:.3}",
                t.cases, t.failures, t.worst_ratio
            );
        }
    };
    table(
        "by dtype",
        stats.by_dtype.iter().map(|(k, t)| (k.clone(), t)).collect(),
    );
    table(
        "by head dim",
        stats
            .by_head_dim
            .iter()
            .map(|(k, t)| (format!("d{k}"), t))
            .collect(),
    );
    table(
        "by mask",
        stats
            .by_mask
            .iter()
            .map(|(k, t)| (k.to_string(), t))
            .collect(),
    );
    table(
        "by kernel configuration (the one that ran)",
        stats
            .by_config
            .iter()
            .map(|(k, t)| (k.clone(), t))
            .collect(),
    );
    table(
        "by schedule (how the launch dealt its tiles)",
        stats
            .by_schedule
            .iter()
            .map(|(k, t)| (k.to_string(), t))
            .collect(),
    );
    table(
        "by feed (how Q, K and V reached shared memory)",
        stats
            .by_feed
            .iter()
            .map(|(k, t)| (k.to_string(), t))
            .collect(),
    );
    println!("edges hit:");
    for label in all_labels() {
        let n = stats.edges.get(label).copied().unwrap_or(0);
        println!(
            "  {label:<36} {n:>7}  ({:.1}%)",
            100.0 * n as f64 / (stats.cases.max(1) as f64)
        );
    }
    if let Some(w) = &stats.worst {
        println!(
            "worst error ratio {:.3} [{}]: {}\n  {}",
            w.value, w.config, w.reproducer, w.detail
        );
    }
    println!(
        "largest case: {:.2e} multiply-adds per reference matmul",
        stats.largest_work as f64
    );
    if let Some(s) = &stats.slowest {
        println!(
            "slowest case {:.2} s [{}]: {}",
            s.value, s.config, s.reproducer
        );
    }
    if stats.failures.is_empty() {
        println!("all {} cases passed", stats.cases);
    } else {
        println!("{} failures:", stats.failures.len());
        for f in &stats.failures {
            println!("  #{} [{}] {}", f.index, f.config, f.reproducer);
            if let Some(m) = &f.minimal {
                println!("     minimal [{}] {}", m.config, m.reproducer);
            }
        }
    }
}

fn summary_json(
    stats: &Stats,
    space: &CaseSpace,
    seed: u64,
    elapsed: Duration,
    stopped_by: &str,
) -> Value {
    let tallies = |rows: Vec<(String, &Tally)>| {
        Value::Object(rows.into_iter().map(|(k, t)| (k, t.json())).collect())
    };
    let failures: Vec<Value> = stats
        .failures
        .iter()
        .map(|f| {
            json!({
                "index": f.index,
                "reproducer": f.reproducer,
                "config": f.config,
                "detail": f.detail,
                "minimal": f.minimal.as_ref().map(|m| json!({
                    "reproducer": m.reproducer,
                    "config": m.config,
                    "detail": m.detail,
                    "gpu_runs": m.steps,
                    "out_of_steps": m.out_of_steps,
                    "context_lost": m.context_lost,
                })),
            })
        })
        .collect();
    let secs = elapsed.as_secs_f64();
    json!({
        "seed": seed,
        "cases": stats.cases,
        "failures": stats.failures.len(),
        "seconds": secs,
        "cases_per_second": stats.cases as f64 / secs.max(1e-9),
        "stopped_by": stopped_by,
        "space": {
            "max_seqlen": space.max_seqlen,
            "max_work": space.max_work,
            "max_batch": space.max_batch,
            "max_heads_kv": space.max_heads_kv,
            "max_group": space.max_group,
            "max_heads_q": space.max_heads_q,
            "dtypes": space.dtypes.iter().map(|d| d.to_string()).collect::<Vec<_>>(),
            "head_dims": space.head_dims,
            "configs": format!("{:?}", space.configs),
            "features": format!("{:?}", space.features),
            "causal": space.causal,
            "workspace": space.workspace,
            "seqlen_q": space.seqlen_q,
            "seqlen_k": space.seqlen_k,
        },
        "by_dtype": tallies(stats.by_dtype.iter().map(|(k, t)| (k.clone(), t)).collect()),
        "by_head_dim": tallies(stats.by_head_dim.iter().map(|(k, t)| (k.to_string(), t)).collect()),
        "by_mask": tallies(stats.by_mask.iter().map(|(k, t)| (k.to_string(), t)).collect()),
        "by_config": tallies(stats.by_config.iter().map(|(k, t)| (k.clone(), t)).collect()),
        "by_schedule": tallies(stats.by_schedule.iter().map(|(k, t)| (k.to_string(), t)).collect()),
        "by_feed": tallies(stats.by_feed.iter().map(|(k, t)| (k.to_string(), t)).collect()),
        "edges": all_labels().into_iter().map(|l| (l.to_string(), json!(stats.edges.get(l).copied().unwrap_or(0)))).collect::<serde_json::Map<_, _>>(),
        "worst": stats.worst.as_ref().map(Extreme::json),
        "slowest": stats.slowest.as_ref().map(Extreme::json),
        "failure_list": failures,
        "largest_work": stats.largest_work,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    fn parse(args: &[&str]) -> Result<Args, clap::Error> {
        Args::try_parse_from(std::iter::once("flashattn-fuzz").chain(args.iter().copied()))
    }

    #[test]
    fn mistakes_are_usage_errors_naming_the_flag() {
        let mistakes: [&[&str]; 5] = [
            &["--cases", "abc"],
            &["--bogus"],
            &["--dtype", "f32"],
            &["--seconds=-1"],
            &["--head-dim", "64,x"],
        ];
        for args in mistakes {
            let e = parse(args).err().expect("rejected");
            assert_eq!(e.exit_code(), 2, "{args:?}");
            let flag = args[0].split('=').next().unwrap();
            assert!(e.to_string().contains(flag), "{e}");
        }
        let mixed = parse(&["--config", "all,sm80_x"]).unwrap().space();
        assert!(mixed.unwrap_err().contains("cannot be combined"));
        for presets in [["--splits", "--walks"], ["--small", "--splits"]] {
            assert_eq!(parse(&presets).err().expect("rejected").exit_code(), 2);
        }
        let small_walks = parse(&["--small", "--walks"]).unwrap().space().unwrap();
        assert_eq!(small_walks, CaseSpace::small_walks());
    }

    #[test]
    fn splits_preset_passes_a_workspace_to_non_causal_d96_and_d128_cases() {
        let space = parse(&["--splits"]).unwrap().space().unwrap();
        assert_eq!(
            (space.workspace, space.causal, space.head_dims),
            (1.0, 0.0, Some(vec![96, 128]))
        );
        assert_eq!(
            (space.seqlen_q, space.seqlen_k),
            (Some((192, 1100)), Some((2048, 5120)))
        );
        assert!(matches!(space.configs, ConfigFilter::WarpSpecialized));
        let all = parse(&["--splits", "--config", "all"])
            .unwrap()
            .space()
            .unwrap();
        assert!(matches!(all.configs, ConfigFilter::All));
        assert_eq!(parse(&[]).unwrap().space().unwrap().workspace, 0.25);
    }

    #[test]
    fn lists_repeat_or_split_and_defaults_hold() {
        let a = parse(&["--dtype", "bf16", "--dtype", "f16", "--head-dim", "64,128"]).unwrap();
        assert_eq!(a.dtypes, [DType::BF16, DType::F16]);
        assert_eq!(a.head_dims, [64, 128]);
        assert_eq!(
            (a.progress_every, a.shrink_steps, a.max_shrinks),
            (100, 300, 3)
        );
        assert!(a.cases.is_none() && a.seconds.is_none() && !a.small);
        assert!(matches!(a.space().unwrap().configs, ConfigFilter::All));
        let auto = parse(&["--config", "auto", "--seconds", "2.5"]).unwrap();
        assert_eq!(auto.seconds, Some(2.5));
        assert!(matches!(auto.space().unwrap().configs, ConfigFilter::Auto));
        let help = Args::command().render_long_help().to_string();
        for default in [
            "[default: 100]",
            "[default: 300]",
            "[default: 3]",
            "[default: all, ws with --walks and --splits]",
        ] {
            assert!(help.contains(default), "{help}");
        }
    }
}
