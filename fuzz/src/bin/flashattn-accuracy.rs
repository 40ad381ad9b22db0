//! `flashattn-accuracy`: per mask and score modifier, our kernel's error against the f64
//! reference next to the naive same-precision baseline's, on fixed random inputs that it writes
//! out for `sdpa_accuracy.py` to give PyTorch SDPA (see [`flashattn_fuzz::accuracy`]).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use flashattn_fuzz::accuracy::{cases, run_all};
use flashattn_fuzz::harness::gpu_stream;

/// Runs each feature of issue 14 (causal alignments, sliding windows, softcap, ALiBi, sinks,
/// GQA and a combination; f16 and bf16) on GPU 0, judges it against the CPU reference with the
/// project's rule, and writes the inputs, our output, the reference output and cases.json to
/// --out for crates/flashattn-bench/python/sdpa_accuracy.py.
#[derive(Parser)]
#[command(
    name = "flashattn-accuracy",
    after_help = "Exit status: 0 every case passed (or --reference-only); 1 a case failed or \
                  did not launch; 2 no usable GPU, bad arguments or unwritable --out."
)]
struct Args {
    /// Directory for the case files and cases.json (created)
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    /// Added to every case's input seed
    #[arg(long, value_name = "S", default_value_t = 0)]
    seed: u64,
    /// Sequence lengths divided by 8: a quick run
    #[arg(long)]
    small: bool,
    /// Only cases whose name contains one of these, repeated or comma-separated
    #[arg(long = "case", value_name = "PART", value_delimiter = ',')]
    only: Vec<String>,
    /// No GPU: write the inputs and the reference only (tests sdpa_accuracy.py's side)
    #[arg(long)]
    reference_only: bool,
}

fn main() -> ExitCode {
    let args = Args::parse();
    let list: Vec<_> = cases(args.small)
        .into_iter()
        .filter(|c| args.only.is_empty() || args.only.iter().any(|o| c.name.contains(o)))
        .map(|mut c| {
            c.seed = c.seed.wrapping_add(args.seed);
            c
        })
        .collect();
    let stream = if args.reference_only {
        None
    } else {
        match gpu_stream() {
            Ok(s) => Some(s),
            Err(e) => {
                eprintln!("flashattn-accuracy: no usable GPU ({e}); --reference-only runs without");
                return ExitCode::from(2);
            }
        }
    };
    let device = stream.as_ref().map_or("none".to_string(), |s| {
        s.context().name().unwrap_or_else(|_| "unknown".into())
    });
    println!(
        "device: {device}; {} cases into {}",
        list.len(),
        args.out.display()
    );
    let results = run_all(
        stream.as_ref(),
        &device,
        &list,
        args.small,
        &args.out,
        |r| println!("{}", r.line),
    );
    let results = match results {
        Ok(r) => r,
        Err(e) => {
            eprintln!(
                "flashattn-accuracy: cannot write {}: {e}",
                args.out.display()
            );
            return ExitCode::from(2);
        }
    };
    let passed = results.iter().filter(|r| r.pass == Some(true)).count();
    let failed = results.iter().filter(|r| r.pass == Some(false)).count();
    let not_run = results.len() - passed - failed;
    println!(
        "cases: {} passed, {failed} failed, {not_run} not run",
        passed
    );
    if failed > 0 || (not_run > 0 && !args.reference_only) {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_gpu_run_command_line() {
        let a = Args::try_parse_from(["flashattn-accuracy", "--out", "x/acc", "--small"])
            .expect("parses");
        assert_eq!(a.out, PathBuf::from("x/acc"));
        assert!(a.small && !a.reference_only && a.only.is_empty());
        let a = Args::try_parse_from(["flashattn-accuracy", "--out", "d", "--case", "alibi,sinks"])
            .expect("parses");
        assert_eq!(a.only, ["alibi", "sinks"]);
        assert!(
            Args::try_parse_from(["flashattn-accuracy"]).is_err(),
            "--out is required"
        );
    }
}
