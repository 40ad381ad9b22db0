//! `flashattn-report`: GPU-free tooling over benchmark reports — the
//! regression gate (`compare`), side-by-side tables, charts, merging, and the
//! shape suites for the Python baseline.
//!
//! Exit status: 0 on success, 1 when `compare` finds a regression, 2 on
//! usage or I/O errors (so CI can tell "slower" from "broken").

use clap::{Args, Parser};
use flashattn_bench::compare::{CompareOptions, compare_reports};
use flashattn_bench::output::{self, ChartOptions};
use flashattn_bench::report::Report;
use flashattn_bench::suites;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Exit status for usage and I/O errors.
const EXIT_USAGE: i32 = 2;

#[derive(Parser)]
#[command(
    name = "flashattn-report",
    about = "Regression gate, tables, charts and merging for flashattn-bench reports (no GPU needed)",
    after_help = "Exit status: 0 success; 1 `compare` found a regression; 2 usage or I/O error.",
    arg_required_else_help = true
)]
enum Cli {
    /// Match results by (shape, implementation, mode) and judge each pair; exit 1 if any
    /// result regressed, 0 otherwise.
    Compare(Compare),
    /// Side-by-side table of ours against the baselines; Markdown to stdout unless --markdown
    /// or --csv is given.
    Table(Table),
    /// TFLOP/s against sequence length as an SVG chart.
    Chart(Chart),
    /// Combine reports; later files win on duplicate results.
    Merge(Merge),
    /// Print suite shapes.
    Suites(Suites),
}

#[derive(Args)]
struct Compare {
    /// The reference report.
    old: PathBuf,
    /// The report under test.
    new: PathBuf,
    #[command(flatten)]
    opts: CompareOptions,
}

#[derive(Args)]
struct Table {
    /// The report to render.
    report: PathBuf,
    /// Write the Markdown table to this file.
    #[arg(long, value_name = "OUT.md")]
    markdown: Option<PathBuf>,
    /// Write one CSV row per result to this file.
    #[arg(long, value_name = "OUT.csv")]
    csv: Option<PathBuf>,
}

#[derive(Args)]
struct Chart {
    /// The report to chart.
    report: PathBuf,
    #[command(flatten)]
    opts: ChartOptions,
    /// Where to write the SVG.
    #[arg(long, value_name = "FILE.svg")]
    out: PathBuf,
}

#[derive(Args)]
struct Merge {
    /// Reports, earliest first.
    #[arg(required = true)]
    reports: Vec<PathBuf>,
    /// Where to write the merged report.
    #[arg(long, value_name = "OUT.json")]
    out: PathBuf,
}

#[derive(Args)]
struct Suites {
    /// Which suite.
    #[arg(long, default_value = "all", value_parser = suites::parse_suite_name)]
    suite: String,
    /// Write the suite file that python/sdpa_baseline.py --shapes reads.
    #[arg(long)]
    json: bool,
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let code = run(&args, &mut std::io::stdout(), &mut std::io::stderr());
    std::process::exit(code);
}

/// Runs one command line (without the program name) and returns the exit
/// status; output goes to the given writers so tests can capture it.
fn run(args: &[String], out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    let argv = std::iter::once("flashattn-report").chain(args.iter().map(String::as_str));
    match Cli::try_parse_from(argv) {
        Ok(cli) => execute(cli, out, err).unwrap_or_else(|msg| {
            let _ = writeln!(err, "flashattn-report: {msg}");
            EXIT_USAGE
        }),
        Err(e) => {
            // --help goes to stdout with status 0; mistakes to stderr with status 2.
            let stream: &mut dyn Write = if e.use_stderr() { err } else { out };
            let _ = writeln!(stream, "{}", e.render().to_string().trim_end());
            e.exit_code()
        }
    }
}

fn read_report(path: &Path) -> Result<Report, String> {
    let mut r = Report::read(path).map_err(|e| e.to_string())?;
    r.fill_missing();
    Ok(r)
}

fn write_file(path: &Path, text: &str) -> Result<(), String> {
    std::fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()))
}

/// Runs a parsed command: its exit status, or the message of a usage or I/O error.
fn execute(cli: Cli, out: &mut dyn Write, err: &mut dyn Write) -> Result<i32, String> {
    let mut print = |text: &str| write!(out, "{text}").map_err(|e| e.to_string());
    match cli {
        Cli::Compare(c) => {
            let (old, new) = (read_report(&c.old)?, read_report(&c.new)?);
            if old.device.name != new.device.name {
                let (a, b) = (&old.device.name, &new.device.name);
                let _ = writeln!(err, "warning: comparing different devices: '{a}' vs '{b}'");
            }
            let comparison = compare_reports(&old, &new, &c.opts);
            print(&comparison.render_text())?;
            Ok(comparison.exit_code())
        }
        Cli::Table(t) => {
            let report = read_report(&t.report)?;
            let md = output::to_markdown(&report);
            if let Some(path) = &t.markdown {
                write_file(path, &md)?;
            }
            if let Some(path) = &t.csv {
                write_file(path, &output::to_csv(&report))?;
            }
            if t.markdown.is_none() && t.csv.is_none() {
                print(&md)?;
            }
            Ok(0)
        }
        Cli::Chart(c) => {
            write_file(
                &c.out,
                &output::svg_chart(&read_report(&c.report)?, &c.opts)?,
            )?;
            print(&format!("wrote {}\n", c.out.display()))?;
            Ok(0)
        }
        Cli::Merge(m) => {
            // Not fill_missing: merging must not invent fields the producers left out.
            let read = |path: &PathBuf| Report::read(path).map_err(|e| e.to_string());
            let mut merged = read(&m.reports[0])?;
            for path in &m.reports[1..] {
                for note in merged.merge(read(path)?) {
                    let _ = writeln!(err, "note ({}): {note}", path.display());
                }
            }
            merged.write(&m.out).map_err(|e| e.to_string())?;
            let (path, n) = (m.out.display(), merged.results.len());
            print(&format!("wrote {path} ({n} results)\n"))?;
            Ok(0)
        }
        Cli::Suites(s) if s.json => {
            // The parser admits only known names.
            print(&suites::suites_json(&s.suite).unwrap_or_default())?;
            Ok(0)
        }
        Cli::Suites(s) => {
            for e in suites::suite_entries(&s.suite).unwrap_or_default() {
                print(&format!("{:<6} {}\n", e.suite, e.shape.key()))?;
            }
            Ok(0)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use flashattn_bench::report::{BenchResult, Device, MODE_EVENTS, MODE_GRAPH};
    use rand::rngs::StdRng;
    use rand::{Rng, SeedableRng};

    fn path(dir: &tempfile::TempDir, name: &str) -> String {
        dir.path().join(name).to_string_lossy().into_owned()
    }

    /// A synthetic report over the seed suite with ~4% uniform noise; 40
    /// samples keep the debug-build bootstrap quick.
    fn synthetic(scale: f64, seed: u64) -> Report {
        let mut rng = StdRng::seed_from_u64(seed);
        let mut r = Report::new("flashattn-bench", Device::named("Test GPU"));
        for s in suites::suite("seed").unwrap() {
            let base = 0.05 * s.batch as f64 * s.heads_q as f64 / 8.0;
            for mode in [MODE_EVENTS, MODE_GRAPH] {
                let mut noise = || 1.0 + 0.04 * (rng.random::<f64>() - 0.5);
                let samples = (0..40).map(|_| scale * base * noise()).collect();
                let mut res = BenchResult::new("seed", s.clone(), "flashattn", mode, samples);
                res.finish(None);
                r.results.push(res);
            }
        }
        r
    }

    fn run_capture(args: &[&str]) -> (i32, String, String) {
        let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let code = run(&args, &mut out, &mut err);
        let text = |bytes| String::from_utf8(bytes).unwrap();
        (code, text(out), text(err))
    }

    #[test]
    fn compare_gates_on_regressions() {
        let dir = tempfile::tempdir().unwrap();
        let paths = ["a", "b", "c", "d"].map(|n| path(&dir, &format!("{n}.json")));
        let [a, b, c, d] = paths.each_ref().map(String::as_str);
        synthetic(1.0, 1).write(a).unwrap();
        synthetic(1.1, 2).write(b).unwrap();
        synthetic(0.9, 3).write(c).unwrap();
        let mut partial = synthetic(1.0, 4);
        partial.results.truncate(15);
        partial.write(d).unwrap();
        for (args, code, text) in [
            (
                vec![a, a],
                0,
                "20 compared: 0 regressed, 0 improved, 20 unchanged",
            ),
            (vec![a, b], 1, "20 compared: 20 regressed"),
            (
                vec![a, b, "--mode", "graph", "--seed=7"],
                1,
                "10 compared: 10 regressed",
            ),
            // A threshold above the change silences the gate.
            (
                vec![a, b, "--threshold", "0.2"],
                0,
                "20 compared: 0 regressed",
            ),
            (vec![a, c], 0, "0 regressed, 20 improved"),
            (vec![a, d], 0, "only in old (5):"),
        ] {
            let args: Vec<&str> = std::iter::once("compare").chain(args).collect();
            let (got, out, _) = run_capture(&args);
            assert_eq!(got, code, "{args:?}: {out}");
            assert!(out.contains(text), "{args:?}: {out}");
        }
    }

    #[test]
    fn usage_errors_exit_2() {
        let nonexistent = ["compare", "/nonexistent/a.json", "/nonexistent/b.json"];
        for (args, message) in [
            (&[][..], "Usage:"),
            (&["frobnicate"], "unrecognized subcommand 'frobnicate'"),
            (
                &["compare", "only-one.json"],
                "required arguments were not provided",
            ),
            (&["compare", "only-one.json"], "<NEW>"),
            (
                &["compare", "a", "b", "--bogus"],
                "unexpected argument '--bogus'",
            ),
            (
                &["compare", "a", "b", "--alpha", "1.5"],
                "'1.5' for '--alpha",
            ),
            (&["compare", "a", "b", "--mode", "grpah"], "'grpah'"),
            (&nonexistent, "/nonexistent/a.json"),
            (&["suites", "--suite", "nope"], "'nope'"),
        ] {
            let (code, _, err) = run_capture(args);
            assert_eq!(code, EXIT_USAGE, "{args:?}");
            assert!(err.contains(message), "{args:?}: {err}");
        }
        let (code, help, _) = run_capture(&["--help"]);
        assert_eq!(code, 0);
        assert!(
            help.contains("compare") && help.contains("suites"),
            "{help}"
        );
        // Every option's help names its default.
        let (code, help, _) = run_capture(&["compare", "--help"]);
        assert_eq!(code, 0);
        for default in ["[default: 0.03]", "[default: 0.05]", "[default: 24301]"] {
            assert!(help.contains(default), "{help}");
        }
    }

    #[test]
    fn table_merge_chart_and_suites() {
        let dir = tempfile::tempdir().unwrap();
        let [a, b, m, md, csv, svg] =
            ["a.json", "b.json", "m.json", "t.md", "t.csv", "c.svg"].map(|n| path(&dir, n));
        synthetic(1.0, 1).write(&a).unwrap();
        let mut base = synthetic(1.2, 5);
        base.tool = "sdpa_baseline.py".into();
        for r in &mut base.results {
            r.implementation = "sdpa-flash".into();
        }
        base.write(&b).unwrap();

        let (code, out, err) = run_capture(&["merge", &a, &b, "--out", &m]);
        assert_eq!(code, 0, "{err}");
        assert!(out.contains("(40 results)"), "{out}");
        let merged = Report::read(&m).unwrap();
        assert_eq!(merged.tool, "flashattn-bench+sdpa_baseline.py");

        let (code, out, _) = run_capture(&["table", &m]);
        assert_eq!(code, 0);
        assert!(
            out.contains("speedup flashattn") && out.contains("1.20x"),
            "{out}"
        );
        let (code, out, _) = run_capture(&["table", &m, "--markdown", &md, "--csv", &csv]);
        assert_eq!((code, out.as_str()), (0, ""));
        let read = |path| std::fs::read_to_string(path).unwrap();
        assert!(read(&md).starts_with("# Attention"));
        assert_eq!(read(&csv).lines().count(), 41);

        // The seed suite has no sweep results: a clear error, exit 2.
        let chart = ["chart", &m, "--head-dim", "64", "--out", &svg];
        let (code, _, err) = run_capture(&chart);
        assert_eq!(code, EXIT_USAGE);
        assert!(err.contains("no results to chart"), "{err}");
        let (code, _, err) = run_capture(&[&chart[..], &["--suite", "any"]].concat());
        assert_eq!(code, 0, "{err}");
        assert!(read(&svg).contains("<polyline"));

        let (code, out, _) = run_capture(&["suites", "--suite", "seed"]);
        assert_eq!((code, out.lines().count()), (0, 10));
        let (code, out, _) = run_capture(&["suites", "--json"]);
        assert_eq!((code, out), (0, suites::suites_json("all").unwrap()));
    }
}
