//! Comparing two reports result by result: the performance-regression gate.
//!
//! Results are matched on [`ResultKey`] (shape key, implementation, mode) and each matched pair
//! goes through [`crate::stats::judge`]. Unmatched results are listed but never fail the gate, so
//! adding or retiring shapes does not break CI; only a measured regression does.
//!
//! Two runs on a lent GPU can differ by a few percent for everything (clocks, another machine of
//! the same kind), and a shape's baselines move with it. So each of our rows also carries its
//! ratio over the baselines' on the same shape ([`ComparedRow::vs_baselines`]), and the text
//! says how many of our regressions remain with that drift divided out: a reading aid for the
//! note that must explain a slower shape, not a second gate.

use crate::output::Align::{Left, Right};
use crate::output::{fmt_num, text_table, unique_in_order};
use crate::report::{BenchResult, MODE_COLD, MODE_EVENTS, MODE_GRAPH, Report, ResultKey, is_ours};
use crate::stats::{self, Judgement, Summary, Verdict};
use std::collections::HashMap;
use std::fmt::Write as _;

/// Knobs of [`compare_reports`], and the options of `flashattn-report compare` (whose help
/// the field docs are); the defaults are the command line's.
#[derive(Debug, Clone, PartialEq, clap::Parser)]
pub struct CompareOptions {
    /// Relative change of the median below which nothing is flagged.
    #[arg(long, default_value_t = stats::DEFAULT_THRESHOLD, value_parser = at_least_zero)]
    pub threshold: f64,
    /// Significance level of the Mann-Whitney test, in (0, 1).
    #[arg(long, default_value_t = stats::DEFAULT_ALPHA, value_parser = probability)]
    pub alpha: f64,
    /// Bootstrap seed.
    // One seed for every pair, so that the outcome does not depend on result order.
    #[arg(long, default_value_t = 0x5eed)]
    pub seed: u64,
    /// Only compare results of this timing mode [default: every mode].
    #[arg(long, value_parser = [MODE_EVENTS, MODE_COLD, MODE_GRAPH])]
    pub mode: Option<String>,
}

impl Default for CompareOptions {
    fn default() -> Self {
        clap::Parser::parse_from(["defaults"])
    }
}

pub(crate) fn at_least_zero(text: &str) -> Result<f64, String> {
    let x = text.parse().ok().filter(|x: &f64| *x >= 0.0);
    x.ok_or_else(|| "must be a number >= 0".into())
}

fn probability(text: &str) -> Result<f64, String> {
    let x = text.parse().ok().filter(|x: &f64| *x > 0.0 && *x < 1.0);
    x.ok_or_else(|| "must be a number in (0, 1)".into())
}

/// A matched pair, the summaries of its old and new samples, and the gate's decision.
#[derive(Debug, Clone, PartialEq)]
pub struct ComparedRow {
    pub key: ResultKey,
    pub old: Summary,
    pub new: Summary,
    pub judgement: Judgement,
    /// Ours only: this row's new/old median ratio over the geometric mean of the baselines'
    /// ratios on the same shape and mode, i.e. the change left once the machine's drift, as the
    /// baselines measured it in the same two runs, is divided out; `None` without baselines.
    /// Descriptive: the verdict never uses it (the baselines have noise of their own).
    pub vs_baselines: Option<f64>,
}

/// Outcome of [`compare_reports`].
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Comparison {
    /// Matched pairs, in the new report's order.
    pub rows: Vec<ComparedRow>,
    pub only_in_old: Vec<ResultKey>,
    pub only_in_new: Vec<ResultKey>,
    /// Matched pairs that could not be judged (an error or no samples on a side), with the reason.
    pub skipped: Vec<(ResultKey, String)>,
    /// The relative change below which nothing is flagged ([`CompareOptions::threshold`]).
    pub threshold: f64,
}

/// The samples of `r` the gate can judge, and their summary.
pub(crate) fn judgeable(r: &BenchResult) -> Result<(Vec<f64>, Summary), String> {
    if let Some(e) = &r.error {
        return Err(format!("error: {e}"));
    }
    let samples = r.usable_samples();
    let summary = Summary::try_from_samples(&samples).ok_or("no samples")?;
    Ok((samples, summary))
}

/// The results of `report` in timing mode `mode` (every mode when `None`), by key (the later of
/// two with one key), and their keys in first-appearance order.
pub(crate) fn index<'a>(
    report: &'a Report,
    mode: Option<&str>,
) -> (HashMap<ResultKey, &'a BenchResult>, Vec<ResultKey>) {
    let wanted = |r: &&BenchResult| mode.is_none_or(|m| r.mode == m);
    let selected: Vec<&BenchResult> = report.results.iter().filter(wanted).collect();
    let order = unique_in_order(selected.iter().map(|r| r.key()));
    (selected.into_iter().map(|r| (r.key(), r)).collect(), order)
}

/// Matches `old` and `new` results and judges each pair.
///
/// If a report holds the same key twice, the later result is used, the same
/// rule as [`Report::merge`].
pub fn compare_reports(old: &Report, new: &Report, opts: &CompareOptions) -> Comparison {
    let (old_by_key, old_order) = index(old, opts.mode.as_deref());
    let (new_by_key, new_order) = index(new, opts.mode.as_deref());
    let mut out = Comparison {
        threshold: opts.threshold,
        ..Comparison::default()
    };
    for key in new_order {
        let Some(o) = old_by_key.get(&key) else {
            out.only_in_new.push(key);
            continue;
        };
        match (judgeable(o), judgeable(new_by_key[&key])) {
            (Ok((a, old)), Ok((b, new))) => {
                let judgement = stats::judge(&a, &b, opts.threshold, opts.alpha, opts.seed);
                out.rows.push(ComparedRow {
                    key,
                    old,
                    new,
                    judgement,
                    vs_baselines: None,
                })
            }
            (Err(e), _) => out.skipped.push((key, format!("old {e}"))),
            (_, Err(e)) => out.skipped.push((key, format!("new {e}"))),
        }
    }
    out.only_in_old = old_order;
    out.only_in_old.retain(|k| !new_by_key.contains_key(k));
    divide_out_baseline_drift(&mut out.rows);
    out
}

/// Fills [`ComparedRow::vs_baselines`] for our rows of every (shape, mode) that has baseline rows.
fn divide_out_baseline_drift(rows: &mut [ComparedRow]) {
    let mut drift: HashMap<(String, String), (f64, usize)> = HashMap::new();
    for r in rows.iter().filter(|r| !is_ours(&r.key.implementation)) {
        let ratio = r.judgement.ratio_ci.ratio;
        if ratio.is_finite() && ratio > 0.0 {
            let e = drift
                .entry((r.key.shape_key.clone(), r.key.mode.clone()))
                .or_default();
            e.0 += ratio.ln();
            e.1 += 1;
        }
    }
    for r in rows.iter_mut().filter(|r| is_ours(&r.key.implementation)) {
        let key = (r.key.shape_key.clone(), r.key.mode.clone());
        if let Some(&(log_sum, n)) = drift.get(&key) {
            r.vs_baselines = Some(r.judgement.ratio_ci.ratio / (log_sum / n as f64).exp());
        }
    }
}

impl Comparison {
    /// Number of pairs with the given verdict.
    pub fn count(&self, verdict: Verdict) -> usize {
        self.rows
            .iter()
            .filter(|r| r.judgement.verdict == verdict)
            .count()
    }

    /// Our rows with the given verdict.
    pub fn count_ours(&self, verdict: Verdict) -> usize {
        self.rows
            .iter()
            .filter(|r| is_ours(&r.key.implementation) && r.judgement.verdict == verdict)
            .count()
    }

    /// Process exit status for the gate: 1 if one of our results regressed, else 0. The
    /// baselines timed beside ours (`GATE_SDPA=1`) are there to measure the drift between the
    /// two sessions, so their own slowdowns are shown but do not fail the gate; only a
    /// comparison without any result of ours (baselines against baselines) is judged on theirs.
    pub fn exit_code(&self) -> i32 {
        let has_ours = self.rows.iter().any(|r| is_ours(&r.key.implementation));
        let regressed = if has_ours {
            self.count_ours(Verdict::Regressed)
        } else {
            self.count(Verdict::Regressed)
        };
        i32::from(regressed > 0)
    }

    /// One-line tally, e.g. for CI logs.
    pub fn summary_line(&self) -> String {
        format!(
            "{} compared: {} regressed ({} of ours), {} improved, {} unchanged; {} only in old, {} only in new, {} skipped",
            self.rows.len(),
            self.count(Verdict::Regressed),
            self.count_ours(Verdict::Regressed),
            self.count(Verdict::Improved),
            self.count(Verdict::Unchanged),
            self.only_in_old.len(),
            self.only_in_new.len(),
            self.skipped.len()
        )
    }

    /// Plain-text rendering: one table per shape, then the unmatched and
    /// skipped results, then [`Comparison::summary_line`].
    pub fn render_text(&self) -> String {
        let headers = "implementation|mode|old p50 ms|new p50 ms|new/old [95% CI]|/ baselines'|MW p|Cliff's d|verdict";
        let headers: Vec<&str> = headers.split('|').collect();
        let align = [Left, Left, Right, Right, Right, Right, Right, Right, Left];
        let mut out = String::new();
        for shape in unique_in_order(self.rows.iter().map(|r| &r.key.shape_key)) {
            let rows: Vec<Vec<String>> = self
                .rows
                .iter()
                .filter(|r| &r.key.shape_key == shape)
                .map(|r| {
                    let (j, ci) = (&r.judgement, &r.judgement.ratio_ci);
                    let verdict = match j.verdict {
                        Verdict::Regressed => "REGRESSED".to_string(),
                        v => v.to_string(),
                    };
                    vec![
                        r.key.implementation.clone(),
                        r.key.mode.clone(),
                        fmt_num(r.old.p50),
                        fmt_num(r.new.p50),
                        format!("{:.3} [{:.3}, {:.3}]", ci.ratio, ci.lo, ci.hi),
                        r.vs_baselines
                            .map_or_else(|| "-".to_string(), |x| format!("{x:.3}")),
                        format_p(j.mw.p_value),
                        format!("{:+.2} ({})", j.cliffs.delta, j.cliffs.magnitude),
                        verdict,
                    ]
                })
                .collect();
            let _ = writeln!(out, "== {shape}\n{}", text_table(&headers, &rows, &align));
        }
        let keys = |keys: &[ResultKey]| keys.iter().map(ToString::to_string).collect();
        let skipped = self.skipped.iter().map(|(k, why)| format!("{k}: {why}"));
        let lists: [(&str, Vec<String>); 3] = [
            ("only in old", keys(&self.only_in_old)),
            ("only in new", keys(&self.only_in_new)),
            ("skipped", skipped.collect()),
        ];
        for (label, lines) in lists.iter().filter(|(_, lines)| !lines.is_empty()) {
            let _ = writeln!(out, "{label} ({}):\n  {}", lines.len(), lines.join("\n  "));
        }
        if let Some(line) = self.drift_line() {
            let _ = writeln!(out, "{line}");
        }
        out + &self.summary_line() + "\n"
    }

    /// How many of our regressed rows stay above the gate's threshold once the baselines' drift
    /// is divided out (`/ baselines'` column), or `None` when none of ours regressed.
    pub fn drift_line(&self) -> Option<String> {
        let regressed: Vec<&ComparedRow> = self
            .rows
            .iter()
            .filter(|r| is_ours(&r.key.implementation) && r.judgement.verdict == Verdict::Regressed)
            .collect();
        if regressed.is_empty() {
            return None;
        }
        let with_drift: Vec<f64> = regressed.iter().filter_map(|r| r.vs_baselines).collect();
        let threshold = self.threshold;
        let beyond = with_drift.iter().filter(|x| **x > 1.0 + threshold).count();
        Some(format!(
            "ours regressed on {}: {} of them measured beside baselines, {beyond} still more than {:.0}% slower with the baselines' drift divided out",
            regressed.len(),
            with_drift.len(),
            threshold * 100.0
        ))
    }
}

fn format_p(p: f64) -> String {
    if p < 1e-4 {
        format!("{p:.1e}")
    } else {
        format!("{p:.4}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::{Device, Shape};
    use crate::stats::tests::noisy;

    fn report(scale: f64, seed: u64) -> Report {
        let mut r = Report::new("flashattn-bench", Device::named("GPU"));
        let shapes = crate::suites::suite("seed").unwrap();
        for (i, s) in shapes.into_iter().take(3).enumerate() {
            for mode in [MODE_EVENTS, MODE_GRAPH] {
                let samples = noisy(scale * (1.0 + i as f64), 100, 0.05, seed + i as u64);
                let result = BenchResult::new("seed", s.clone(), "flashattn", mode, samples);
                r.results.push(result);
            }
        }
        r
    }

    /// [`report`] with a cuDNN baseline beside ours on the first seed shape's graph row, each
    /// scaled on its own.
    fn with_baseline(ours: f64, baseline: f64, seed: u64) -> Report {
        let mut r = report(ours, seed);
        let shape = crate::suites::suite("seed").unwrap().remove(0);
        let samples = noisy(2.0 * baseline, 100, 0.05, seed + 7);
        r.results.push(BenchResult::new(
            "seed",
            shape,
            "sdpa-cudnn",
            MODE_GRAPH,
            samples,
        ));
        r
    }

    #[test]
    fn verdicts_and_exit_codes() {
        let old = report(1.0, 1);
        let compare = |new: &Report| compare_reports(&old, new, &CompareOptions::default());
        for (new, verdict, exit, shown) in [
            (report(1.0, 1), Verdict::Unchanged, 0, "unchanged"),
            (report(1.1, 50), Verdict::Regressed, 1, "REGRESSED"),
            (report(0.9, 50), Verdict::Improved, 0, "improved"),
        ] {
            let c = compare(&new);
            let text = c.render_text();
            assert_eq!(c.rows.len(), 6);
            assert_eq!(c.count(verdict), 6, "{text}");
            assert_eq!(c.exit_code(), exit);
            // The verdict ends each table row.
            assert!(text.contains(&format!(" {shown}\n")), "{text}");
        }
        // Deterministic for a seed.
        assert_eq!(compare(&report(1.02, 9)), compare(&report(1.02, 9)));
    }

    #[test]
    fn only_our_regressions_fail_the_gate() {
        let old = with_baseline(1.0, 1.0, 1);
        let opts = CompareOptions::default();
        // The baseline 10% slower, ours unchanged: shown, but the gate passes.
        let c = compare_reports(&old, &with_baseline(1.0, 1.1, 1), &opts);
        assert_eq!(
            (
                c.count(Verdict::Regressed),
                c.count_ours(Verdict::Regressed)
            ),
            (1, 0)
        );
        assert_eq!(c.exit_code(), 0);
        assert!(
            c.summary_line()
                .starts_with("7 compared: 1 regressed (0 of ours),"),
            "{}",
            c.summary_line()
        );
        // Ours 10% slower: the gate fails.
        let c = compare_reports(&old, &with_baseline(1.1, 1.0, 50), &opts);
        assert_eq!(c.count_ours(Verdict::Regressed), 6);
        assert_eq!(c.exit_code(), 1);
        // Baselines alone (no result of ours): judged on theirs.
        let baselines_only = |r: Report| Report {
            results: r
                .results
                .into_iter()
                .filter(|x| !is_ours(&x.implementation))
                .collect(),
            ..r
        };
        let c = compare_reports(
            &baselines_only(with_baseline(1.0, 1.0, 1)),
            &baselines_only(with_baseline(1.0, 1.1, 1)),
            &opts,
        );
        assert_eq!((c.rows.len(), c.exit_code()), (1, 1));
    }

    #[test]
    fn baseline_drift_is_divided_out_of_our_ratio() {
        // Ours and a baseline both 10% slower in the new run: ours regresses, and the drift
        // line says nothing is left once the baseline's drift is divided out.
        let c = compare_reports(
            &with_baseline(1.0, 1.0, 1),
            &with_baseline(1.1, 1.1, 50),
            &CompareOptions::default(),
        );
        let ours: Vec<&ComparedRow> = c
            .rows
            .iter()
            .filter(|r| r.key.implementation == "flashattn")
            .collect();
        assert!(
            ours.iter()
                .all(|r| r.judgement.verdict == Verdict::Regressed)
        );
        // Only the first shape's graph row has a baseline beside it.
        let adjusted: Vec<f64> = ours.iter().filter_map(|r| r.vs_baselines).collect();
        assert_eq!(adjusted.len(), 1);
        assert!((adjusted[0] - 1.0).abs() < 0.03, "{adjusted:?}");
        let baseline = c.rows.iter().find(|r| r.key.implementation == "sdpa-cudnn");
        assert_eq!(baseline.unwrap().vs_baselines, None);
        let text = c.render_text();
        assert!(
            text.contains("ours regressed on 6: 1 of them measured beside baselines, 0 still more than 3% slower"),
            "{text}"
        );
        // Nothing regressed: no drift line.
        let same = compare_reports(&report(1.0, 1), &report(1.0, 1), &CompareOptions::default());
        assert_eq!(same.drift_line(), None);
    }

    #[test]
    fn mode_filter_and_missing_counterparts() {
        let old = report(1.0, 1);
        let mut new = report(1.1, 50);
        let gone = new.results.remove(0).key();
        let shape = Shape::self_attention("f16", 9, 9, 9, 64, false);
        let extra = BenchResult::new("seed", shape, "flashattn", MODE_EVENTS, vec![1.0]);
        new.results.push(extra);
        new.results[1].error = Some("boom".into());
        let opts = CompareOptions {
            mode: Some(MODE_EVENTS.into()),
            ..Default::default()
        };
        let c = compare_reports(&old, &new, &opts);
        assert_eq!(c.only_in_old, vec![gone]);
        assert_eq!((c.only_in_new.len(), c.skipped.len()), (1, 1));
        assert!(c.rows.iter().all(|r| r.key.mode == MODE_EVENTS));
        let text = c.render_text();
        for part in [
            "only in old (1):\n  ",
            "only in new (1):\n  ",
            "new error: boom",
        ] {
            assert!(text.contains(part), "{text}");
        }
        assert!(text.ends_with("; 1 only in old, 1 only in new, 1 skipped\n"));
    }
}
