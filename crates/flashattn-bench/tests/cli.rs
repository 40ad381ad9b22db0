//! Both binaries as a shell sees them: exit status, stdout and stderr. Command-line mistakes exit
//! 2 with a message naming the problem; `flashattn-report` runs on synthetic reports.

use flashattn_bench::report::{BenchResult, Device, MODE_EVENTS, MODE_GRAPH, Report};
use flashattn_bench::suites;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::process::Command;

const BENCH: &str = env!("CARGO_BIN_EXE_flashattn-bench");
const REPORT: &str = env!("CARGO_BIN_EXE_flashattn-report");

/// Runs `bin` with `args`: the exit status, stdout and stderr.
fn run(bin: &str, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(bin).args(args).output().unwrap();
    let text = |bytes| String::from_utf8(bytes).unwrap();
    (
        out.status.code().unwrap(),
        text(out.stdout),
        text(out.stderr),
    )
}

#[test]
fn mistakes_exit_2_naming_the_problem() {
    let bench: &[(&[&str], &str)] = &[
        (
            &["run", "--iters", "abc"],
            "invalid value 'abc' for '--iters <ITERS>'",
        ),
        (&["run", "--iters", "0"], "'0' for '--iters <ITERS>'"),
        (
            &["tune", "--iters", "0"],
            "invalid value '0' for '--iters <ITERS>'",
        ),
        (
            &["run", "--suite", "seed,nope"],
            "'nope' for '--suite <SUITES>'",
        ),
        (&["run", "--modes", "hot"], "'hot' for '--modes <MODES>'"),
        (
            &["run", "--baseline", "maybe"],
            "'maybe' for '--baseline <BASELINE>'",
        ),
        (&["tune", "--bogus"], "'--bogus'"),
        (&["frobnicate"], "'frobnicate'"),
    ];
    let report: &[(&[&str], &str)] = &[
        (&[], "Usage:"),
        (&["frobnicate"], "unrecognized subcommand 'frobnicate'"),
        (
            &["compare", "only-one.json"],
            "required arguments were not provided:\n  <NEW>",
        ),
        (
            &["compare", "--bogus"],
            "unexpected argument '--bogus' found",
        ),
        (
            &["compare", "a", "b", "--bogus"],
            "unexpected argument '--bogus'",
        ),
        (
            &["compare", "a", "b", "--alpha", "2"],
            "invalid value '2' for '--alpha",
        ),
        (
            &["compare", "a", "b", "--alpha", "1.5"],
            "'1.5' for '--alpha",
        ),
        (&["compare", "a", "b", "--mode", "grpah"], "'grpah'"),
        (
            &["compare", "/nonexistent/a.json", "/nonexistent/b.json"],
            "/nonexistent/a.json",
        ),
        (&["suites", "--suite", "nope"], "'nope'"),
        (&["ab"], "required arguments were not provided"),
        (
            &["ab", "a", "b", "c"],
            "3 reports given; they go in (old, new) pairs",
        ),
        // `--threshold -1` would read as a stray argument (the reports are a list).
        (&["ab", "a", "b", "--threshold=-1"], "'-1' for '--threshold"),
        (
            &["ab", "/nonexistent/a.json", "/nonexistent/b.json"],
            "/nonexistent/a.json",
        ),
    ];
    for (bin, cases) in [(BENCH, bench), (REPORT, report)] {
        for (args, message) in cases {
            let (code, out, err) = run(bin, args);
            assert_eq!(code, 2, "{args:?}: {err}");
            assert!(err.contains(message), "{args:?}: {err}");
            assert!(out.is_empty(), "{args:?}");
        }
    }
    let (code, help, _) = run(REPORT, &["--help"]);
    assert_eq!(code, 0);
    assert!(
        help.contains("compare") && help.contains("suites"),
        "{help}"
    );
    // Every option's help names its default.
    let (code, help, _) = run(REPORT, &["compare", "--help"]);
    assert_eq!(code, 0);
    for default in ["[default: 0.03]", "[default: 0.05]", "[default: 24301]"] {
        assert!(help.contains(default), "{help}");
    }
}

/// A synthetic report over the seed suite with ~4% uniform noise; 40 samples keep the
/// debug-build bootstrap quick.
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

#[test]
fn compare_gates_on_regressions() {
    let dir = tempfile::tempdir().unwrap();
    let paths = ["a", "b", "c", "d"].map(|n| dir.path().join(format!("{n}.json")));
    let [a, b, c, d] = paths.each_ref().map(|p| p.to_str().unwrap());
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
            "20 compared: 0 regressed (0 of ours), 0 improved, 20 unchanged",
        ),
        (vec![a, b], 1, "20 compared: 20 regressed (20 of ours)"),
        (
            vec![a, b, "--mode", "graph", "--seed=7"],
            1,
            "10 compared: 10 regressed (10 of ours)",
        ),
        // A threshold above the change silences the gate.
        (
            vec![a, b, "--threshold", "0.2"],
            0,
            "20 compared: 0 regressed (0 of ours)",
        ),
        (vec![a, c], 0, "0 regressed (0 of ours), 20 improved"),
        (vec![a, d], 0, "only in old (5):"),
    ] {
        let args: Vec<&str> = std::iter::once("compare").chain(args).collect();
        let (got, out, _) = run(REPORT, &args);
        assert_eq!(got, code, "{args:?}: {out}");
        assert!(out.contains(text), "{args:?}: {out}");
    }
}

#[test]
fn ab_pools_alternating_pairs() {
    let dir = tempfile::tempdir().unwrap();
    let path = |n: &str| {
        dir.path()
            .join(format!("{n}.json"))
            .to_str()
            .unwrap()
            .to_string()
    };
    // Three pairs: the new build 6% faster in each, the runs drifting by 2%; then a pair that
    // reverses it.
    let mut args = vec!["ab".to_string()];
    for (r, drift) in [1.0, 1.02, 0.99].into_iter().enumerate() {
        let (old, new) = (path(&format!("old{r}")), path(&format!("new{r}")));
        synthetic(drift, 10 + r as u64).write(&old).unwrap();
        synthetic(0.94 * drift, 20 + r as u64).write(&new).unwrap();
        args.extend([old, new]);
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (code, out, err) = run(REPORT, &args);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("20 pooled over 3 pairs: 20 faster, 0 slower, 0 inconclusive"),
        "{out}"
    );
    synthetic(0.94, 30).write(path("old3")).unwrap();
    synthetic(1.0, 31).write(path("new3")).unwrap();
    let (old3, new3) = (path("old3"), path("new3"));
    let reversed: Vec<&str> = args
        .iter()
        .copied()
        .chain([old3.as_str(), new3.as_str()])
        .collect();
    let (code, out, _) = run(REPORT, &reversed);
    assert_eq!(code, 0);
    assert!(
        out.contains("20 pooled over 4 pairs: 0 faster, 0 slower, 20 inconclusive"),
        "{out}"
    );
    let (code, help, _) = run(REPORT, &["ab", "--help"]);
    assert_eq!(code, 0);
    assert!(help.contains("[default: 0.015]"), "{help}");
}

#[test]
fn table_merge_chart_and_suites() {
    let dir = tempfile::tempdir().unwrap();
    let names = ["a.json", "b.json", "m.json", "t.md", "t.csv", "c.svg"];
    let paths = names.map(|n| dir.path().join(n).to_string_lossy().into_owned());
    let [a, b, m, md, csv, svg] = paths.each_ref().map(String::as_str);
    synthetic(1.0, 1).write(a).unwrap();
    let mut base = synthetic(1.2, 5);
    base.tool = "sdpa_baseline.py".into();
    for r in &mut base.results {
        r.implementation = "sdpa-flash".into();
    }
    base.write(b).unwrap();

    let (code, out, err) = run(REPORT, &["merge", a, b, "--out", m]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("(40 results)"), "{out}");
    let merged = Report::read(m).unwrap();
    assert_eq!(merged.tool, "flashattn-bench+sdpa_baseline.py");

    let (code, out, _) = run(REPORT, &["table", m]);
    assert_eq!(code, 0);
    assert!(
        out.contains("speedup flashattn") && out.contains("1.20x"),
        "{out}"
    );
    let (code, out, _) = run(REPORT, &["table", m, "--markdown", md, "--csv", csv]);
    assert_eq!((code, out.as_str()), (0, ""));
    let read = |path| std::fs::read_to_string(path).unwrap();
    assert!(read(md).starts_with("# Attention"));
    assert_eq!(read(csv).lines().count(), 41);

    // The seed suite has no sweep results: a clear error, exit 2.
    let chart = ["chart", m, "--head-dim", "64", "--out", svg];
    let (code, _, err) = run(REPORT, &chart);
    assert_eq!(code, 2);
    assert!(err.contains("no results to chart"), "{err}");
    let (code, _, err) = run(REPORT, &[&chart[..], &["--suite", "any"]].concat());
    assert_eq!(code, 0, "{err}");
    assert!(read(svg).contains("<polyline"));

    let (code, out, _) = run(REPORT, &["suites", "--suite", "seed"]);
    assert_eq!((code, out.lines().count()), (0, 10));
    let (code, out, _) = run(REPORT, &["suites", "--json"]);
    assert_eq!((code, out), (0, suites::suites_json("all").unwrap()));
}
