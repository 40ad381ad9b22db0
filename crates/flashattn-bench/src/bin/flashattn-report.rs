//! `flashattn-report`: GPU-free tooling over benchmark reports — the
//! regression gate (`compare`), the A/B verdict over alternating runs (`ab`),
//! side-by-side tables, charts, merging, and the shape suites for the Python
//! baseline.
//!
//! Exit status: 0 on success, 1 when `compare` finds a regression, 2 on
//! usage or I/O errors (so CI can tell "slower" from "broken").

use clap::{Args, Parser};
use flashattn_bench::ab::{AbOptions, pool_pairs};
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
    // The usage lines name `flashattn-report` whatever the binary is called.
    bin_name = "flashattn-report",
    about = "Regression gate, tables, charts and merging for flashattn-bench reports (no GPU needed)",
    after_help = "Exit status: 0 success; 1 `compare` found a regression; 2 usage or I/O error.",
    arg_required_else_help = true
)]
enum Cli {
    /// Match results by (shape, implementation, mode) and judge each pair; exit 1 if one of our
    /// results regressed (baselines' slowdowns are drift between the runs, shown but not judged;
    /// reports without our results are judged on the baselines'), 0 otherwise.
    Compare(Compare),
    /// Pool alternating A/B runs (OLD NEW OLD NEW ...): per result, the pairs' new/old median
    /// ratios, their geometric mean with a 95% two-level bootstrap interval (pairs, then each
    /// pair's samples), and whether the new build is faster, slower or neither; always exit 0.
    Ab(Ab),
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
struct Ab {
    /// Reports in pairs, each the old build's run then the new build's, pair after pair.
    #[arg(required = true, value_name = "OLD NEW")]
    reports: Vec<PathBuf>,
    #[command(flatten)]
    opts: AbOptions,
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
    // Usage errors exit 2 by clap; --help goes to stdout with status 0.
    let code = execute(Cli::parse()).unwrap_or_else(|msg| {
        eprintln!("flashattn-report: {msg}");
        EXIT_USAGE
    });
    std::process::exit(code);
}

fn read_report(path: &Path) -> Result<Report, String> {
    let mut r = Report::read(path).map_err(|e| e.to_string())?;
    r.fill_missing();
    Ok(r)
}

fn write_file(path: &Path, text: &str) -> Result<(), String> {
    std::fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()))
}

/// Warns on stderr when `reports` come from more than one GPU; `action` says what is being done
/// with them ("comparing").
fn warn_mixed_devices<'a>(action: &str, reports: impl IntoIterator<Item = &'a Report>) {
    let mut names: Vec<&str> = Vec::new();
    for name in reports.into_iter().map(|r| r.device.name.as_str()) {
        if !names.contains(&name) {
            names.push(name);
        }
    }
    if names.len() > 1 {
        let quoted: Vec<String> = names.iter().map(|n| format!("'{n}'")).collect();
        eprintln!(
            "warning: {action} different devices: {}",
            quoted.join(" vs ")
        );
    }
}

/// Runs a parsed command: its exit status, or the message of a usage or I/O error.
fn execute(cli: Cli) -> Result<i32, String> {
    let mut out = std::io::stdout().lock();
    let mut print = |text: &str| write!(out, "{text}").map_err(|e| e.to_string());
    match cli {
        Cli::Compare(c) => {
            let (old, new) = (read_report(&c.old)?, read_report(&c.new)?);
            warn_mixed_devices("comparing", [&old, &new]);
            let comparison = compare_reports(&old, &new, &c.opts);
            print(&comparison.render_text())?;
            return Ok(comparison.exit_code());
        }
        Cli::Ab(a) => {
            if a.reports.len() % 2 != 0 {
                return Err(format!(
                    "ab: {} reports given; they go in (old, new) pairs",
                    a.reports.len()
                ));
            }
            let mut pairs = Vec::new();
            for pair in a.reports.chunks(2) {
                pairs.push((read_report(&pair[0])?, read_report(&pair[1])?));
            }
            warn_mixed_devices("pooling runs of", pairs.iter().flat_map(|(o, n)| [o, n]));
            print(&pool_pairs(&pairs, &a.opts).render_text())?;
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
        }
        Cli::Chart(c) => {
            let svg = output::svg_chart(&read_report(&c.report)?, &c.opts)?;
            write_file(&c.out, &svg)?;
            print(&format!("wrote {}\n", c.out.display()))?;
        }
        Cli::Merge(m) => {
            // Not fill_missing: merging must not invent fields the producers left out.
            let read = |path: &PathBuf| Report::read(path).map_err(|e| e.to_string());
            let mut merged = read(&m.reports[0])?;
            for path in &m.reports[1..] {
                for note in merged.merge(read(path)?) {
                    eprintln!("note ({}): {note}", path.display());
                }
            }
            merged.write(&m.out).map_err(|e| e.to_string())?;
            let (path, n) = (m.out.display(), merged.results.len());
            print(&format!("wrote {path} ({n} results)\n"))?;
        }
        Cli::Suites(s) if s.json => {
            // The parser admits only known names.
            print(&suites::suites_json(&s.suite).unwrap_or_default())?;
        }
        Cli::Suites(s) => {
            for e in suites::suite_entries(&s.suite).unwrap_or_default() {
                print(&format!("{:<6} {}\n", e.suite, e.shape.key()))?;
            }
        }
    }
    Ok(0)
}
