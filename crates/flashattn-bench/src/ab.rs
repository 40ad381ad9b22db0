//! Pooling alternating A/B runs into one verdict per result: is the new build faster?
//!
//! `compare` judges two runs against the noise inside them (the spread of each run's samples).
//! Between two runs on a lent GPU the same build moves by 1-3% on a shape (clock and power
//! state, which machine of the kind came), so one pair of runs can show a "significant" change
//! that the next pair reverses, and the same build timed against itself regularly reads 2% off
//! (docs/benchmarks/2026-11-27-h100-deal-on-host.md, call CE). Builds are therefore timed in
//! alternating pairs (`scripts/gpu-run.sh ab`), and this module pools the pairs: per result key,
//! the geometric mean of the pairs' median ratios (new / old), with a 95% interval from a
//! two-level bootstrap, first the pairs with replacement and then each drawn pair's samples. The
//! interval is therefore as wide as the pairs disagree, and with few pairs it reaches the most
//! extreme pair (with three pairs, every draw of the same pair three times has probability
//! 1/27 > 2.5%): a change is called only when the pairs, and the runs' own noise, agree on its
//! side and it exceeds a threshold ([`DEFAULT_AB_THRESHOLD`], measured on a build against itself).

use crate::compare::{self, at_least_zero};
use crate::output::Align::{Left, Right};
use crate::output::{text_table, unique_in_order};
use crate::report::{MODE_COLD, MODE_EVENTS, MODE_GRAPH, Report, ResultKey, is_ours};
use crate::stats::{self, RatioCi};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::collections::HashMap;
use std::fmt::Write as _;

/// Default [`AbOptions::threshold`]: pooled changes under 1.5% are not called. With a handful of
/// pairs the pair-level draws cannot show the between-run spread in full, so the interval runs
/// narrow: main's build timed against itself in four pairs on the lent H100 (call CQ,
/// docs/benchmarks/2026-11-27-h100-alibi-split.md) read f16 B8 H16 S512 at 1.011 [1.005, 1.016]
/// and one more shape at 0.995 [0.991, 0.999], while 1.5% called nothing on either that call's
/// 20 shapes or call CP's 19 (a change that measured neutral, where threshold 0 called a kernel
/// it did not touch 0.6% slower).
pub const DEFAULT_AB_THRESHOLD: f64 = 0.015;

/// Knobs of [`pool_pairs`], and the options of `flashattn-report ab` (whose help the field docs
/// are); the defaults are the command line's.
#[derive(Debug, Clone, PartialEq, clap::Parser)]
pub struct AbOptions {
    /// Relative change of the pooled ratio below which no side is called, however narrow the
    /// interval (the default: what a build timed against itself reached, pooled).
    #[arg(long, default_value_t = DEFAULT_AB_THRESHOLD, value_parser = at_least_zero)]
    pub threshold: f64,
    /// Bootstrap seed.
    #[arg(long, default_value_t = 0x5eed)]
    pub seed: u64,
    /// Bootstrap rounds.
    #[arg(long, default_value_t = stats::JUDGE_RESAMPLES)]
    pub resamples: usize,
    /// Only pool results of this timing mode [default: every mode].
    #[arg(long, value_parser = [MODE_EVENTS, MODE_COLD, MODE_GRAPH])]
    pub mode: Option<String>,
}

impl Default for AbOptions {
    fn default() -> Self {
        clap::Parser::parse_from(["defaults"])
    }
}

/// What the pooled pairs say of one result (latencies: faster is lower).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AbVerdict {
    /// The whole interval lies below 1 (and the ratio below 1 - threshold).
    Faster,
    /// The whole interval lies above 1 (and the ratio above 1 + threshold).
    Slower,
    /// The interval holds 1: the pairs, or the samples inside them, do not agree on a side.
    Inconclusive,
}

impl std::fmt::Display for AbVerdict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            AbVerdict::Faster => "faster",
            AbVerdict::Slower => "SLOWER",
            AbVerdict::Inconclusive => "inconclusive",
        })
    }
}

/// One result key pooled over every pair that timed it on both sides.
#[derive(Debug, Clone, PartialEq)]
pub struct AbRow {
    pub key: ResultKey,
    /// Each pair's median(new) / median(old), in the pairs' order.
    pub ratios: Vec<f64>,
    /// Their geometric mean and its two-level bootstrap interval.
    pub pooled: RatioCi,
    pub verdict: AbVerdict,
}

/// Outcome of [`pool_pairs`].
#[derive(Debug, Clone, PartialEq, Default)]
pub struct AbComparison {
    pub pairs: usize,
    /// Keys timed on both sides of every pair, in order of first appearance (each pair's new
    /// report, then its old one).
    pub rows: Vec<AbRow>,
    /// Keys some pair lacks on a side (or without usable samples there): not pooled.
    pub incomplete: Vec<ResultKey>,
    pub threshold: f64,
}

/// The samples `compare` would judge of each result of `report` in the selected mode, by key,
/// and every selected key in first-appearance order (an errored result's too: it is then
/// missing from that pair).
fn samples_by_key(
    report: &Report,
    opts: &AbOptions,
) -> (HashMap<ResultKey, Vec<f64>>, Vec<ResultKey>) {
    let (by_key, order) = compare::index(report, opts.mode.as_deref());
    let samples = by_key
        .into_iter()
        .filter_map(|(key, r)| Some((key, compare::judgeable(r).ok()?.0)))
        .collect();
    (samples, order)
}

/// Pools `(old, new)` report pairs (at least one) key by key; see the module's documentation.
pub fn pool_pairs(pairs: &[(Report, Report)], opts: &AbOptions) -> AbComparison {
    assert!(!pairs.is_empty(), "pool_pairs needs at least one pair");
    let indexed: Vec<_> = pairs
        .iter()
        .map(|(old, new)| (samples_by_key(old, opts), samples_by_key(new, opts)))
        .collect();
    let mut out = AbComparison {
        pairs: pairs.len(),
        threshold: opts.threshold,
        ..AbComparison::default()
    };
    let mut all_keys = Vec::new();
    for ((_, old_order), (_, new_order)) in &indexed {
        all_keys.extend(new_order.iter().chain(old_order).cloned());
    }
    for key in unique_in_order(all_keys) {
        let sides: Option<Vec<(&[f64], &[f64])>> = indexed
            .iter()
            .map(|((old, _), (new, _))| {
                Some((old.get(&key)?.as_slice(), new.get(&key)?.as_slice()))
            })
            .collect();
        match sides {
            Some(sides) => {
                let pooled = pooled_ratio(&sides, opts.resamples, opts.seed);
                let t = opts.threshold;
                let verdict = if pooled.hi < 1.0 && pooled.ratio < 1.0 - t {
                    AbVerdict::Faster
                } else if pooled.lo > 1.0 && pooled.ratio > 1.0 + t {
                    AbVerdict::Slower
                } else {
                    AbVerdict::Inconclusive
                };
                let ratios = sides
                    .iter()
                    .map(|(o, n)| stats::median(n) / stats::median(o))
                    .collect();
                out.rows.push(AbRow {
                    key,
                    ratios,
                    pooled,
                    verdict,
                });
            }
            None => out.incomplete.push(key),
        }
    }
    out
}

/// The geometric mean over pairs of median(new) / median(old), and its 95% percentile interval
/// under the two-level bootstrap: each round draws as many pairs as there are, with replacement,
/// resamples both sides of each drawn pair (with replacement, their own sizes) and takes the
/// geometric mean of the drawn pairs' median ratios. Every side must be non-empty.
pub fn pooled_ratio(pairs: &[(&[f64], &[f64])], resamples: usize, seed: u64) -> RatioCi {
    let log_ratio = |(old, new): &(&[f64], &[f64])| (stats::median(new) / stats::median(old)).ln();
    let k = pairs.len() as f64;
    let ratio = (pairs.iter().map(log_ratio).sum::<f64>() / k).exp();
    let mut rng = StdRng::seed_from_u64(seed);
    let mut scratch = Vec::new();
    let mut means: Vec<f64> = (0..resamples)
        .map(|_| {
            let mut log_sum = 0.0;
            for _ in 0..pairs.len() {
                let (old, new) = pairs[rng.random_range(0..pairs.len())];
                let m_old = stats::resampled_median(&mut rng, old, &mut scratch);
                log_sum += (stats::resampled_median(&mut rng, new, &mut scratch) / m_old).ln();
            }
            (log_sum / k).exp()
        })
        .collect();
    means.sort_unstable_by(f64::total_cmp);
    let bound = |q| (!means.is_empty()).then(|| stats::percentile_sorted(&means, q));
    RatioCi {
        ratio,
        lo: bound(0.025).unwrap_or(ratio),
        hi: bound(0.975).unwrap_or(ratio),
    }
}

impl AbComparison {
    /// Rows with the given verdict, ours only when `ours_only`.
    pub fn count(&self, verdict: AbVerdict, ours_only: bool) -> usize {
        let counted =
            |r: &&AbRow| r.verdict == verdict && (!ours_only || is_ours(&r.key.implementation));
        self.rows.iter().filter(counted).count()
    }

    /// One-line tally.
    pub fn summary_line(&self) -> String {
        format!(
            "{} pooled over {} pair{}: {} faster, {} slower, {} inconclusive; {} not in every pair",
            self.rows.len(),
            self.pairs,
            if self.pairs == 1 { "" } else { "s" },
            self.count(AbVerdict::Faster, false),
            self.count(AbVerdict::Slower, false),
            self.count(AbVerdict::Inconclusive, false),
            self.incomplete.len()
        )
    }

    /// Plain text: one line per pooled result (the pairs' ratios, the pooled ratio and interval,
    /// the verdict), the keys not in every pair, then [`AbComparison::summary_line`].
    pub fn render_text(&self) -> String {
        let headers = [
            "shape",
            "implementation",
            "mode",
            "new/old per pair",
            "pooled [95% CI]",
            "verdict",
        ];
        let align = [Left, Left, Left, Right, Right, Left];
        let rows: Vec<Vec<String>> = self
            .rows
            .iter()
            .map(|r| {
                let per_pair: Vec<String> = r.ratios.iter().map(|x| format!("{x:.3}")).collect();
                let p = &r.pooled;
                vec![
                    r.key.shape_key.clone(),
                    r.key.implementation.clone(),
                    r.key.mode.clone(),
                    per_pair.join(" "),
                    format!("{:.3} [{:.3}, {:.3}]", p.ratio, p.lo, p.hi),
                    r.verdict.to_string(),
                ]
            })
            .collect();
        let mut out = text_table(&headers, &rows, &align);
        if !self.incomplete.is_empty() {
            let keys: Vec<String> = self.incomplete.iter().map(ToString::to_string).collect();
            let _ = writeln!(
                out,
                "not in every pair ({}):\n  {}",
                keys.len(),
                keys.join("\n  ")
            );
        }
        out + &self.summary_line() + "\n"
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::{BenchResult, Device};
    use crate::stats::tests::noisy;

    /// A report of the first three seed shapes (graph mode), shape i's samples around
    /// `scale * (1 + i)` with a 4% spread.
    fn report(scale: f64, seed: u64) -> Report {
        let mut r = Report::new("flashattn-bench", Device::named("GPU"));
        for (i, s) in crate::suites::suite("seed")
            .unwrap()
            .into_iter()
            .take(3)
            .enumerate()
        {
            let samples = noisy(scale * (1.0 + i as f64), 30, 0.04, seed * 10 + i as u64);
            r.results.push(BenchResult::new(
                "seed",
                s,
                "flashattn",
                MODE_GRAPH,
                samples,
            ));
        }
        r
    }

    fn pairs(scales: &[(f64, f64)]) -> Vec<(Report, Report)> {
        let seed = |i: usize| 1 + 2 * i as u64;
        scales
            .iter()
            .enumerate()
            .map(|(i, &(old, new))| (report(old, seed(i)), report(new, seed(i) + 1)))
            .collect()
    }

    #[test]
    fn agreeing_pairs_call_the_side() {
        let opts = AbOptions::default();
        // Every run of the new build 3% faster, the runs themselves drifting by 2%.
        let faster = pool_pairs(&pairs(&[(1.0, 0.97), (1.02, 0.99), (0.99, 0.96)]), &opts);
        assert_eq!(
            faster.count(AbVerdict::Faster, true),
            3,
            "{}",
            faster.render_text()
        );
        let row = &faster.rows[0];
        assert_eq!(row.ratios.len(), 3);
        assert!(row.pooled.lo <= row.pooled.ratio && row.pooled.ratio <= row.pooled.hi);
        assert!((row.pooled.ratio - 0.97).abs() < 0.01, "{:?}", row.pooled);
        let slower = pool_pairs(&pairs(&[(1.0, 1.04), (1.0, 1.05)]), &opts);
        assert_eq!(slower.count(AbVerdict::Slower, true), 3);
        assert!(slower.render_text().contains(" SLOWER\n"));
        // The threshold keeps a consistent 3% from being called at 5%.
        let strict = AbOptions {
            threshold: 0.05,
            ..AbOptions::default()
        };
        let pooled = pool_pairs(&pairs(&[(1.0, 0.97), (1.02, 0.99), (0.99, 0.96)]), &strict);
        assert_eq!(pooled.count(AbVerdict::Inconclusive, true), 3);
    }

    #[test]
    fn pairs_that_disagree_are_inconclusive() {
        // Each pair alone is clear-cut (3.5% either way against a 4% spread of 30 samples), but
        // the pairs point both ways: drift between runs, not the change.
        let mixed = pairs(&[(1.0, 1.035), (1.035, 1.0), (1.0, 1.0)]);
        for (old, new) in &mixed[..2] {
            let single = pool_pairs(&[(old.clone(), new.clone())], &AbOptions::default());
            assert_eq!(
                single.count(AbVerdict::Inconclusive, true),
                0,
                "{}",
                single.render_text()
            );
        }
        let pooled = pool_pairs(&mixed, &AbOptions::default());
        assert_eq!(
            pooled.count(AbVerdict::Inconclusive, true),
            3,
            "{}",
            pooled.render_text()
        );
        // A build against itself.
        let same = pool_pairs(
            &pairs(&[(1.0, 1.0), (1.0, 1.0), (1.0, 1.0)]),
            &AbOptions::default(),
        );
        assert_eq!(
            same.count(AbVerdict::Inconclusive, true),
            3,
            "{}",
            same.render_text()
        );
    }

    #[test]
    fn keys_missing_from_a_pair_are_listed_not_pooled() {
        let mut p = pairs(&[(1.0, 0.9), (1.0, 0.9)]);
        p[1].1.results.pop();
        let mut errored = p[0].0.results[0].clone();
        errored.error = Some("launch failed".into());
        errored.samples_ms.clear();
        p[0].0.results[0] = errored;
        let pooled = pool_pairs(&p, &AbOptions::default());
        assert_eq!((pooled.rows.len(), pooled.incomplete.len()), (1, 2));
        assert!(
            pooled.summary_line().ends_with("2 not in every pair"),
            "{}",
            pooled.summary_line()
        );
        // Deterministic for a seed.
        assert_eq!(pooled, pool_pairs(&p, &AbOptions::default()));
    }

    #[test]
    fn one_pair_reduces_to_the_runs_own_bootstrap() {
        let p = pairs(&[(1.0, 0.95)]);
        let pooled = pool_pairs(&p, &AbOptions::default());
        let (old, new) = (
            p[0].0.results[0].usable_samples(),
            p[0].1.results[0].usable_samples(),
        );
        let single = stats::bootstrap_median_ratio(&old, &new, stats::JUDGE_RESAMPLES, 1);
        let row = &pooled.rows[0];
        assert_eq!(row.pooled.ratio, single.ratio);
        // Same distribution, different draws: the bounds agree to within the resampling noise.
        assert!(
            (row.pooled.lo - single.lo).abs() < 0.01 && (row.pooled.hi - single.hi).abs() < 0.01
        );
        assert_eq!(row.verdict, AbVerdict::Faster);
    }
}
