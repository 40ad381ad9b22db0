//! Benchmarks on the GPU: our kernels over a suite, PyTorch SDPA's backends side by side in the
//! same run (when python3 with torch is present), one JSON report plus CSV, Markdown and a
//! table on stdout.
//!
//! ```text
//! flashattn-bench run  [--suite seed,long] [--modes events,graph] [--iters 100] [--kernel auto|all|NAME] [--label NAME]
//!                      [--baseline auto|none] [--python python3] [--sdpa-script PATH] [--out bench.json]
//! flashattn-bench tune [--suite seed,long] [--iters 30] [--out dispatch.tsv]
//! ```

use std::path::{Path, PathBuf};
use std::process::Command;

use flashattn::KernelChoice;
use flashattn_bench::SCHEMA_VERSION;
use flashattn_bench::gpu::{Gpu, Protocol, configs_for, dtype_of, params_of};
use flashattn_bench::output::{side_by_side, to_csv, to_markdown};
use flashattn_bench::report::{BenchResult, MODE_GRAPH, Report, Shape, TOOL_RUST};
use flashattn_bench::suites::{SuiteFile, SuiteShape, suite_entries};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let code = match args.first().map(String::as_str) {
        Some("run") => run(&args[1..]),
        Some("tune") => tune(&args[1..]),
        _ => {
            eprintln!("usage: flashattn-bench run|tune [options] (see the module docs)");
            2
        }
    };
    std::process::exit(code);
}

/// `--name value` lookup with a default.
fn opt(args: &[String], name: &str, default: &str) -> String {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .cloned()
        .unwrap_or_else(|| default.to_string())
}

fn entries(spec: &str) -> Result<Vec<SuiteShape>, String> {
    let mut out: Vec<SuiteShape> = Vec::new();
    for name in spec.split(',') {
        for e in suite_entries(name.trim()).ok_or_else(|| format!("unknown suite {name}"))? {
            if !out.iter().any(|x| x.shape == e.shape) {
                out.push(e);
            }
        }
    }
    Ok(out)
}

fn open_gpu() -> Option<Gpu> {
    match Gpu::open(0) {
        Ok(g) => Some(g),
        Err(e) => {
            println!("no usable GPU: {e}");
            None
        }
    }
}

fn run(args: &[String]) -> i32 {
    let suites = opt(args, "--suite", "seed,long");
    let entries = match entries(&suites) {
        Ok(e) => e,
        Err(e) => {
            eprintln!("{e}");
            return 2;
        }
    };
    let proto = Protocol {
        iters: opt(args, "--iters", "100").parse().unwrap_or(100),
        modes: opt(args, "--modes", "events,graph")
            .split(',')
            .map(str::to_string)
            .collect(),
        ..Protocol::default()
    };
    let kernel = opt(args, "--kernel", "auto");
    let out = PathBuf::from(opt(args, "--out", "bench.json"));
    let Some(gpu) = open_gpu() else { return 2 };

    let mut report = Report::new(TOOL_RUST, gpu.device());
    report.command = Some(format!("flashattn-bench run {}", args.join(" ")));
    report.commit = option_env!("FLASHATTN_COMMIT")
        .map(str::to_string)
        .or_else(|| {
            std::fs::read_to_string("dist/gpu/COMMIT")
                .ok()
                .map(|s| s.trim().to_string())
        });
    for (i, e) in entries.iter().enumerate() {
        let choices: Vec<(KernelChoice, String)> = match kernel.as_str() {
            "auto" => vec![(KernelChoice::Auto, "flashattn".to_string())],
            "all" => std::iter::once((KernelChoice::Auto, "flashattn".to_string()))
                .chain(
                    configs_for(&e.shape, gpu.compute_capability())
                        .into_iter()
                        .map(|c| (KernelChoice::Id(c.id), format!("flashattn[{}]", c.name))),
                )
                .collect(),
            name => vec![(
                KernelChoice::Named(name.to_string()),
                format!("flashattn[{name}]"),
            )],
        };
        // --label renames our results, e.g. to compare a forced configuration against a plain
        // run under the same implementation name (the regression gate's negative control).
        let label_override = args
            .iter()
            .any(|a| a == "--label")
            .then(|| opt(args, "--label", "flashattn"));
        let choices: Vec<(KernelChoice, String)> = choices
            .into_iter()
            .map(|(c, l)| (c, label_override.clone().unwrap_or(l)))
            .collect();
        for (choice, label) in choices {
            let results = gpu.bench(&e.suite, &e.shape, &choice, &label, &proto);
            for r in &results {
                let mut r = r.clone();
                r.finish(None);
                let p50 = r.summary.map_or(f64::NAN, |s| s.p50);
                println!(
                    "[{}/{}] {:<36} {:<28} {:<6} p50 {:>9.4} ms {:>7.1} TFLOP/s{}",
                    i + 1,
                    entries.len(),
                    e.shape.key(),
                    label,
                    r.mode,
                    p50,
                    r.tflops.unwrap_or(f64::NAN),
                    r.error
                        .as_deref()
                        .map(|x| format!("  error: {x}"))
                        .unwrap_or_default()
                );
            }
            report.results.extend(results);
        }
    }
    // Free our buffers' device memory before PyTorch measures the same shapes.
    drop(gpu);

    if opt(args, "--baseline", "auto") != "none" {
        match run_sdpa(args, &entries, &proto, &out) {
            Ok(base) => {
                for note in report.merge(base) {
                    println!("merge: {note}");
                }
            }
            Err(e) => println!("SDPA baselines skipped: {e}"),
        }
    }
    let ceilings = report.ceilings;
    for r in &mut report.results {
        r.finish(ceilings.as_ref());
    }
    if let Err(e) = write_outputs(&report, &out) {
        eprintln!("{e}");
        return 2;
    }
    print_ratios(&report);
    0
}

/// Run `python/sdpa_baseline.py` over the same shapes with the same protocol.
fn run_sdpa(
    args: &[String],
    entries: &[SuiteShape],
    proto: &Protocol,
    out: &Path,
) -> Result<Report, String> {
    let python = opt(args, "--python", "python3");
    let script = [
        opt(args, "--sdpa-script", ""),
        "crates/flashattn-bench/python/sdpa_baseline.py".into(),
        "dist/gpu/sdpa_baseline.py".into(),
    ]
    .into_iter()
    .find(|p| !p.is_empty() && Path::new(p).is_file())
    .ok_or("sdpa_baseline.py not found (pass --sdpa-script)")?;
    let shapes_path = out.with_extension("shapes.json");
    let file = SuiteFile {
        schema_version: SCHEMA_VERSION,
        shapes: entries.to_vec(),
    };
    std::fs::write(&shapes_path, serde_json::to_string_pretty(&file).unwrap())
        .map_err(|e| e.to_string())?;
    let base_path = out.with_extension("sdpa.json");
    let status = Command::new(&python)
        .arg(&script)
        .arg("--shapes")
        .arg(&shapes_path)
        .args([
            "--modes",
            &proto.modes.join(","),
            "--iters",
            &proto.iters.to_string(),
            "--out",
        ])
        .arg(&base_path)
        .env("PYTHONUNBUFFERED", "1")
        .status()
        .map_err(|e| format!("{python}: {e}"))?;
    if !status.success() {
        return Err(format!("{script} exited with {status}"));
    }
    Report::read(&base_path).map_err(|e| e.to_string())
}

fn write_outputs(report: &Report, out: &Path) -> Result<(), String> {
    report.write(out).map_err(|e| e.to_string())?;
    std::fs::write(out.with_extension("csv"), to_csv(report)).map_err(|e| e.to_string())?;
    std::fs::write(out.with_extension("md"), to_markdown(report)).map_err(|e| e.to_string())?;
    println!("wrote {} (+ .csv, .md)", out.display());
    Ok(())
}

/// The short table: per shape and mode, our p50 and the best SDPA backend's, the ratios to it
/// and to the flash backend (FlashAttention-2), and the configuration ours ran.
fn print_ratios(report: &Report) {
    for view in side_by_side(report) {
        println!("\n== mode {} ==", view.mode);
        println!(
            "{:<38} {:>11} {:>11} {:>8} {:>8} {:>10}  {:<15} config",
            "shape", "ours p50", "base p50", "speedup", "vs flash", "ours TF/s", "best baseline"
        );
        for row in &view.rows {
            let ours = row.cells.get("flashattn");
            let ours_p50 = ours.and_then(|c| c.summary).map(|s| s.p50);
            let flash_p50 = row
                .cells
                .get("sdpa-flash")
                .and_then(|c| c.summary)
                .map(|s| s.p50);
            let vs_flash = match (flash_p50, ours_p50) {
                (Some(f), Some(o)) if o > 0.0 => f / o,
                _ => f64::NAN,
            };
            let config = ours.and_then(|c| c.config.as_deref()).unwrap_or("-");
            let (best_name, best_p50) = row.best_baseline.clone().unwrap_or(("-".into(), f64::NAN));
            println!(
                "{:<38} {:>11.4} {:>11.4} {:>8.3} {:>8.3} {:>10.1}  {:<15} {}",
                row.shape_key,
                ours_p50.unwrap_or(f64::NAN),
                best_p50,
                row.speedups.get("flashattn").copied().unwrap_or(f64::NAN),
                vs_flash,
                ours.and_then(|c| c.tflops).unwrap_or(f64::NAN),
                best_name,
                config
            );
        }
    }
}

/// Sweep every compiled configuration per shape, correctness first, and write the fastest
/// per shape as a dispatch table (one line per (dtype, head dim, causal, shape)).
fn tune(args: &[String]) -> i32 {
    let entries = match entries(&opt(args, "--suite", "seed,long")) {
        Ok(e) => e,
        Err(e) => {
            eprintln!("{e}");
            return 2;
        }
    };
    let proto = Protocol {
        iters: opt(args, "--iters", "30").parse().unwrap_or(30),
        modes: vec![MODE_GRAPH.into()],
        ..Protocol::default()
    };
    let out = PathBuf::from(opt(args, "--out", "dispatch.tsv"));
    let Some(gpu) = open_gpu() else { return 2 };
    let device = gpu.device().name;
    let mut lines = vec![format!(
        "# flashattn dispatch table for {device}: gpu\tdtype\thead_dim\tcausal\tbatch\theads\tseqlen_q\tseqlen_k\tconfig\tp50_ms"
    )];
    let mut failed = false;
    for (i, e) in entries.iter().enumerate() {
        let mut best: Option<(String, f64)> = None;
        for c in configs_for(&e.shape, gpu.compute_capability()) {
            if !correct_on_slice(&e.shape, c) {
                println!(
                    "[{}/{}] {} {}: FAILED correctness, skipped",
                    i + 1,
                    entries.len(),
                    e.shape.key(),
                    c.name
                );
                failed = true;
                continue;
            }
            let mut r: BenchResult = gpu
                .bench(&e.suite, &e.shape, &KernelChoice::Id(c.id), c.name, &proto)
                .remove(0);
            r.finish(None);
            let Some(p50) = r.summary.map(|s| s.p50) else {
                continue;
            };
            println!(
                "[{}/{}] {:<36} {:<28} p50 {:>9.4} ms {:>7.1} TFLOP/s",
                i + 1,
                entries.len(),
                e.shape.key(),
                c.name,
                p50,
                r.tflops.unwrap_or(0.0)
            );
            if best.as_ref().is_none_or(|(_, b)| p50 < *b) {
                best = Some((c.name.to_string(), p50));
            }
        }
        if let Some((name, p50)) = best {
            let s = &e.shape;
            lines.push(format!(
                "{device}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{name}\t{p50:.5}",
                s.dtype, s.head_dim, s.causal, s.batch, s.heads_q, s.seqlen_q, s.seqlen_k
            ));
        }
    }
    if let Err(e) = std::fs::write(&out, lines.join("\n") + "\n") {
        eprintln!("{}: {e}", out.display());
        return 2;
    }
    println!("wrote {}", out.display());
    if failed { 1 } else { 0 }
}

/// The configuration must pass the tolerance rule on a slice of the shape before it is timed.
fn correct_on_slice(shape: &Shape, c: &flashattn::KernelConfig) -> bool {
    let Ok(stream) = flashattn_fuzz::harness::gpu_stream() else {
        return false;
    };
    let slice = Shape {
        batch: 1,
        heads_q: 2,
        heads_kv: 2,
        seqlen_q: shape.seqlen_q.min(1024),
        seqlen_k: shape.seqlen_k.min(1024),
        ..shape.clone()
    };
    let case = flashattn_fuzz::harness::Case::new(
        dtype_of(shape),
        params_of(&slice, KernelChoice::Id(c.id)),
        17,
    );
    flashattn_fuzz::harness::run_case(&stream, &case).is_ok_and(|o| o.check.pass)
}
