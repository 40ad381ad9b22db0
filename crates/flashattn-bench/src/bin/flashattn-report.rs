//! `flashattn-report`: GPU-free tooling over benchmark reports — the
//! regression gate (`compare`), side-by-side tables, charts, merging, and the
//! shape suites for the Python baseline.
//!
//! Exit status: 0 on success, 1 when `compare` finds a regression, 2 on
//! usage or I/O errors (so CI can tell "slower" from "broken").

use flashattn_bench::compare::{CompareOptions, compare_reports};
use flashattn_bench::output::{self, ChartOptions};
use flashattn_bench::report::Report;
use flashattn_bench::suites;
use std::io::Write;

const USAGE: &str = "\
usage: flashattn-report <command> [args]

commands:
  compare OLD.json NEW.json [--threshold 0.03] [--alpha 0.05] [--seed N] [--mode MODE]
      Match results by (shape, implementation, mode) and judge each pair.
      Exit 1 if any result regressed, 0 otherwise.
  table REPORT.json [--markdown OUT.md] [--csv OUT.csv]
      Side-by-side table of ours vs baselines; Markdown to stdout unless
      --markdown or --csv is given.
  chart REPORT.json --head-dim D --out FILE.svg [--mode MODE] [--suite NAME|any]
      TFLOP/s against sequence length (default suite: sweep).
  merge A.json B.json ... --out C.json
      Combine reports; later files win on duplicate results.
  suites [--suite NAME] [--json]
      Print suite shapes (NAME: seed, long, sweep, all; default all).
      --json writes the file read by python/sdpa_baseline.py --shapes.
";

/// Exit status for usage and I/O errors.
const EXIT_USAGE: i32 = 2;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let stdout = std::io::stdout();
    let stderr = std::io::stderr();
    let code = run(&args, &mut stdout.lock(), &mut stderr.lock());
    std::process::exit(code);
}

/// Parsed command line of one subcommand: positionals plus `--name value`
/// options (also accepted as `--name=value`) and boolean flags.
#[derive(Debug, Default)]
struct Parsed {
    positional: Vec<String>,
    options: Vec<(String, String)>,
    flags: Vec<String>,
}

impl Parsed {
    fn get(&self, name: &str) -> Option<&str> {
        self.options
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    fn flag(&self, name: &str) -> bool {
        self.flags.iter().any(|f| f == name)
    }

    fn parse_opt<T: std::str::FromStr>(&self, name: &str, default: T) -> Result<T, String> {
        match self.get(name) {
            None => Ok(default),
            Some(v) => v
                .parse()
                .map_err(|_| format!("invalid value for --{name}: {v}")),
        }
    }
}

fn parse(args: &[String], with_value: &[&str], flags: &[&str]) -> Result<Parsed, String> {
    let mut p = Parsed::default();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let Some(body) = a.strip_prefix("--") else {
            p.positional.push(a.clone());
            continue;
        };
        let (name, inline) = match body.split_once('=') {
            Some((n, v)) => (n, Some(v.to_string())),
            None => (body, None),
        };
        if with_value.contains(&name) {
            let v = match inline {
                Some(v) => v,
                None => it
                    .next()
                    .cloned()
                    .ok_or_else(|| format!("--{name} needs a value"))?,
            };
            p.options.push((name.to_string(), v));
        } else if flags.contains(&name) && inline.is_none() {
            p.flags.push(name.to_string());
        } else {
            return Err(format!("unknown option --{name}"));
        }
    }
    Ok(p)
}

/// Runs one command line (without the program name) and returns the exit
/// status; output goes to the given writers so tests can capture it.
fn run(args: &[String], out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    let Some((cmd, rest)) = args.split_first() else {
        let _ = write!(err, "{USAGE}");
        return EXIT_USAGE;
    };
    let result = match cmd.as_str() {
        "compare" => cmd_compare(rest, out, err),
        "table" => cmd_table(rest, out),
        "chart" => cmd_chart(rest, out),
        "merge" => cmd_merge(rest, out, err),
        "suites" => cmd_suites(rest, out),
        "help" | "--help" | "-h" => {
            let _ = write!(out, "{USAGE}");
            Ok(0)
        }
        other => Err(format!("unknown command '{other}'\n\n{USAGE}")),
    };
    match result {
        Ok(code) => code,
        Err(msg) => {
            let _ = writeln!(err, "flashattn-report: {msg}");
            EXIT_USAGE
        }
    }
}

fn read_report(path: &str) -> Result<Report, String> {
    let mut r = Report::read(path).map_err(|e| e.to_string())?;
    r.fill_missing();
    Ok(r)
}

fn write_file(path: &str, text: &str) -> Result<(), String> {
    std::fs::write(path, text).map_err(|e| format!("{path}: {e}"))
}

fn cmd_compare(args: &[String], out: &mut dyn Write, err: &mut dyn Write) -> Result<i32, String> {
    let p = parse(args, &["threshold", "alpha", "seed", "mode"], &[])?;
    let [old_path, new_path] = p.positional.as_slice() else {
        return Err("compare needs exactly two reports: OLD.json NEW.json".into());
    };
    let defaults = CompareOptions::default();
    let opts = CompareOptions {
        threshold: p.parse_opt("threshold", defaults.threshold)?,
        alpha: p.parse_opt("alpha", defaults.alpha)?,
        seed: p.parse_opt("seed", defaults.seed)?,
        mode: p.get("mode").map(str::to_string),
    };
    if !(opts.threshold >= 0.0 && opts.alpha > 0.0 && opts.alpha < 1.0) {
        return Err("need --threshold >= 0 and 0 < --alpha < 1".into());
    }
    let old = read_report(old_path)?;
    let new = read_report(new_path)?;
    if old.device.name != new.device.name {
        let _ = writeln!(
            err,
            "warning: comparing different devices: '{}' vs '{}'",
            old.device.name, new.device.name
        );
    }
    let c = compare_reports(&old, &new, &opts);
    write!(out, "{}", c.render_text()).map_err(|e| e.to_string())?;
    Ok(c.exit_code())
}

fn cmd_table(args: &[String], out: &mut dyn Write) -> Result<i32, String> {
    let p = parse(args, &["markdown", "csv"], &[])?;
    let [path] = p.positional.as_slice() else {
        return Err("table needs exactly one report".into());
    };
    let report = read_report(path)?;
    let md = output::to_markdown(&report);
    if let Some(md_path) = p.get("markdown") {
        write_file(md_path, &md)?;
    }
    if let Some(csv_path) = p.get("csv") {
        write_file(csv_path, &output::to_csv(&report))?;
    }
    if p.get("markdown").is_none() && p.get("csv").is_none() {
        write!(out, "{md}").map_err(|e| e.to_string())?;
    }
    Ok(0)
}

fn cmd_chart(args: &[String], out: &mut dyn Write) -> Result<i32, String> {
    let p = parse(args, &["head-dim", "out", "mode", "suite"], &[])?;
    let [path] = p.positional.as_slice() else {
        return Err("chart needs exactly one report".into());
    };
    let head_dim: usize = p
        .get("head-dim")
        .ok_or("chart needs --head-dim")?
        .parse()
        .map_err(|_| "invalid value for --head-dim")?;
    let out_path = p.get("out").ok_or("chart needs --out FILE.svg")?;
    let mut opts = ChartOptions::new(head_dim);
    opts.mode = p.get("mode").map(str::to_string);
    match p.get("suite") {
        Some("any") => opts.suite = None,
        Some(s) => opts.suite = Some(s.to_string()),
        None => {}
    }
    let report = read_report(path)?;
    let svg = output::svg_chart(&report, &opts)?;
    write_file(out_path, &svg)?;
    let _ = writeln!(out, "wrote {out_path}");
    Ok(0)
}

fn cmd_merge(args: &[String], out: &mut dyn Write, err: &mut dyn Write) -> Result<i32, String> {
    let p = parse(args, &["out"], &[])?;
    let out_path = p.get("out").ok_or("merge needs --out OUT.json")?;
    let (first, rest) = p
        .positional
        .split_first()
        .ok_or("merge needs at least one report")?;
    // Not fill_missing: merging must not invent fields the producers left out.
    let mut merged = Report::read(first).map_err(|e| e.to_string())?;
    for path in rest {
        let next = Report::read(path).map_err(|e| e.to_string())?;
        for note in merged.merge(next) {
            let _ = writeln!(err, "note ({path}): {note}");
        }
    }
    merged.write(out_path).map_err(|e| e.to_string())?;
    let _ = writeln!(out, "wrote {out_path} ({} results)", merged.results.len());
    Ok(0)
}

fn cmd_suites(args: &[String], out: &mut dyn Write) -> Result<i32, String> {
    let p = parse(args, &["suite"], &["json"])?;
    if !p.positional.is_empty() {
        return Err("suites takes no positional arguments".into());
    }
    let name = p.get("suite").unwrap_or("all");
    let unknown = || format!("unknown suite '{name}' (expected seed, long, sweep or all)");
    let text = if p.flag("json") {
        suites::suites_json(name).ok_or_else(unknown)?
    } else {
        let entries = suites::suite_entries(name).ok_or_else(unknown)?;
        let mut s = String::new();
        for e in entries {
            s.push_str(&format!("{:<6} {}\n", e.suite, e.shape.key()));
        }
        s
    };
    write!(out, "{text}").map_err(|e| e.to_string())?;
    Ok(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use flashattn_bench::report::{BenchResult, Device, MODE_EVENTS, MODE_GRAPH};
    use rand::rngs::StdRng;
    use rand::{Rng, SeedableRng};
    use std::path::PathBuf;

    struct TempDir(PathBuf);

    impl TempDir {
        fn new(tag: &str) -> Self {
            let p =
                std::env::temp_dir().join(format!("flashattn-report-{tag}-{}", std::process::id()));
            let _ = std::fs::remove_dir_all(&p);
            std::fs::create_dir_all(&p).unwrap();
            TempDir(p)
        }

        fn path(&self, name: &str) -> String {
            self.0.join(name).to_string_lossy().into_owned()
        }
    }

    impl Drop for TempDir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    /// A synthetic report over the seed suite with ~4% uniform noise; 40
    /// samples keep the debug-build bootstrap quick.
    fn synthetic(scale: f64, seed: u64) -> Report {
        let mut rng = StdRng::seed_from_u64(seed);
        let mut r = Report::new(
            "flashattn-bench",
            Device {
                name: "Test GPU".into(),
                ..Default::default()
            },
        );
        for s in suites::suite("seed").unwrap() {
            let base = 0.05 * s.batch as f64 * s.heads_q as f64 / 8.0;
            for mode in [MODE_EVENTS, MODE_GRAPH] {
                let samples = (0..40)
                    .map(|_| scale * base * (1.0 + 0.04 * (rng.random::<f64>() - 0.5)))
                    .collect();
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
        (
            code,
            String::from_utf8(out).unwrap(),
            String::from_utf8(err).unwrap(),
        )
    }

    #[test]
    fn compare_identical_is_unchanged_exit_0() {
        let dir = TempDir::new("same");
        let a = dir.path("a.json");
        synthetic(1.0, 1).write(&a).unwrap();
        let (code, out, _) = run_capture(&["compare", &a, &a]);
        assert_eq!(code, 0, "{out}");
        assert!(
            out.contains("20 compared: 0 regressed, 0 improved, 20 unchanged"),
            "{out}"
        );
    }

    #[test]
    fn compare_slower_is_regressed_exit_1() {
        let dir = TempDir::new("slow");
        let (a, b) = (dir.path("a.json"), dir.path("b.json"));
        synthetic(1.0, 1).write(&a).unwrap();
        synthetic(1.1, 2).write(&b).unwrap();
        let (code, out, _) = run_capture(&["compare", &a, &b]);
        assert_eq!(code, 1, "{out}");
        assert!(out.contains("20 regressed"), "{out}");
        let (code, out, _) = run_capture(&["compare", &a, &b, "--mode", "graph", "--seed=7"]);
        assert_eq!(code, 1);
        assert!(out.contains("10 compared: 10 regressed"), "{out}");
        // A threshold above the change silences the gate.
        let (code, _, _) = run_capture(&["compare", &a, &b, "--threshold", "0.2"]);
        assert_eq!(code, 0);
    }

    #[test]
    fn compare_faster_is_improved_exit_0() {
        let dir = TempDir::new("fast");
        let (a, b) = (dir.path("a.json"), dir.path("b.json"));
        synthetic(1.0, 1).write(&a).unwrap();
        synthetic(0.9, 3).write(&b).unwrap();
        let (code, out, _) = run_capture(&["compare", &a, &b]);
        assert_eq!(code, 0);
        assert!(out.contains("0 regressed, 20 improved"), "{out}");
    }

    #[test]
    fn compare_reports_missing_counterparts() {
        let dir = TempDir::new("missing");
        let (a, b) = (dir.path("a.json"), dir.path("b.json"));
        synthetic(1.0, 1).write(&a).unwrap();
        let mut new = synthetic(1.0, 4);
        new.results.truncate(15);
        new.write(&b).unwrap();
        let (code, out, _) = run_capture(&["compare", &a, &b]);
        assert_eq!(code, 0);
        assert!(out.contains("only in old (5):"), "{out}");
    }

    #[test]
    fn usage_errors_exit_2() {
        assert_eq!(run_capture(&[]).0, EXIT_USAGE);
        assert_eq!(run_capture(&["frobnicate"]).0, EXIT_USAGE);
        let (code, _, err) = run_capture(&["compare", "only-one.json"]);
        assert_eq!(code, EXIT_USAGE);
        assert!(err.contains("exactly two"));
        let (code, _, err) = run_capture(&["compare", "a", "b", "--bogus"]);
        assert_eq!(code, EXIT_USAGE);
        assert!(err.contains("unknown option --bogus"));
        let (code, _, err) =
            run_capture(&["compare", "/nonexistent/a.json", "/nonexistent/b.json"]);
        assert_eq!(code, EXIT_USAGE);
        assert!(err.contains("/nonexistent/a.json"), "{err}");
        assert_eq!(run_capture(&["--help"]).0, 0);
    }

    #[test]
    fn table_merge_chart_and_suites() {
        let dir = TempDir::new("misc");
        let (a, b, m) = (dir.path("a.json"), dir.path("b.json"), dir.path("m.json"));
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
        assert!(out.contains("speedup flashattn"), "{out}");
        assert!(out.contains("1.20x"), "{out}");
        let (md, csv) = (dir.path("t.md"), dir.path("t.csv"));
        let (code, out, _) = run_capture(&["table", &m, "--markdown", &md, "--csv", &csv]);
        assert_eq!(code, 0);
        assert!(out.is_empty());
        assert!(
            std::fs::read_to_string(&md)
                .unwrap()
                .starts_with("# Attention")
        );
        assert_eq!(std::fs::read_to_string(&csv).unwrap().lines().count(), 41);

        // The seed suite has no sweep results: a clear error, exit 2.
        let svg = dir.path("c.svg");
        let (code, _, err) = run_capture(&["chart", &m, "--head-dim", "64", "--out", &svg]);
        assert_eq!(code, EXIT_USAGE);
        assert!(err.contains("no results to chart"), "{err}");
        let (code, _, err) = run_capture(&[
            "chart",
            &m,
            "--head-dim",
            "64",
            "--out",
            &svg,
            "--suite",
            "any",
        ]);
        assert_eq!(code, 0, "{err}");
        assert!(std::fs::read_to_string(&svg).unwrap().contains("<polyline"));

        let (code, out, _) = run_capture(&["suites", "--suite", "seed"]);
        assert_eq!(code, 0);
        assert_eq!(out.lines().count(), 10);
        let (code, out, _) = run_capture(&["suites", "--json"]);
        assert_eq!(code, 0);
        assert_eq!(out, suites::suites_json("all").unwrap());
        assert_eq!(run_capture(&["suites", "--suite", "nope"]).0, EXIT_USAGE);
    }
}
