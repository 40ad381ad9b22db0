//! Statistics for latency samples and the regression gate built on them.
//!
//! Everything here treats samples as latencies in milliseconds, where lower is better. The gate
//! ([`judge`]) deliberately asks three independent questions before calling a change real: is the
//! effect large (median ratio beyond a threshold), is it stable under resampling (bootstrap CI
//! excludes 1), and is it unlikely under "no difference" (Mann-Whitney p-value). GPU timings are
//! heavy-tailed and occasionally bimodal (clock changes, preemption), so all three tests are rank-
//! or median-based rather than mean-based.
//!
//! Samples are expected to be finite. Sorting uses [`f64::total_cmp`], so NaN
//! never panics, but it will land at one end of the order and distort results.

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde::{Deserialize, Serialize};
use statrs::distribution::{ContinuousCDF, Normal};
use std::fmt;

/// Descriptive statistics of one set of samples.
///
/// Percentiles interpolate linearly between order statistics (NumPy's default, "type 7"): for
/// sorted `x[0..n]` and quantile `q`, with `h = (n - 1) q`, the value is
/// `x[floor(h)] + (h - floor(h)) (x[floor(h) + 1] - x[floor(h)])`, so `p50` is the usual median.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    pub n: usize,
    pub p50: f64,
    pub p90: f64,
    pub mean: f64,
    pub min: f64,
    pub max: f64,
    /// Sample standard deviation (divides by `n - 1`); 0 for a single sample.
    pub stdev: f64,
}

impl Summary {
    /// Summarises `samples`, or returns `None` when there are none.
    pub fn try_from_samples(samples: &[f64]) -> Option<Summary> {
        let sorted = sorted_copy(samples);
        let (&min, &max) = (sorted.first()?, sorted.last()?);
        let (n, nf) = (sorted.len(), sorted.len() as f64);
        let mean = sorted.iter().sum::<f64>() / nf;
        let ss: f64 = sorted.iter().map(|x| (x - mean) * (x - mean)).sum();
        Some(Summary {
            n,
            p50: percentile_sorted(&sorted, 0.5),
            p90: percentile_sorted(&sorted, 0.9),
            mean,
            min,
            max,
            stdev: if n > 1 { (ss / (nf - 1.0)).sqrt() } else { 0.0 },
        })
    }
}

fn sorted_copy(samples: &[f64]) -> Vec<f64> {
    let mut v = samples.to_vec();
    v.sort_unstable_by(f64::total_cmp);
    v
}

/// Quantile `q` (in `[0, 1]`, clamped) of already-sorted, non-empty data (see [`Summary`]).
pub fn percentile_sorted(sorted: &[f64], q: f64) -> f64 {
    assert!(!sorted.is_empty(), "percentile of an empty slice");
    let h = (sorted.len() - 1) as f64 * q.clamp(0.0, 1.0);
    let lo = h.floor() as usize;
    let hi = (lo + 1).min(sorted.len() - 1);
    sorted[lo] + (h - lo as f64) * (sorted[hi] - sorted[lo])
}

/// Median of unsorted, non-empty data (mean of the middle two for even length).
pub fn median(samples: &[f64]) -> f64 {
    percentile_sorted(&sorted_copy(samples), 0.5)
}

/// `median(new) / median(old)` (for latencies, > 1: the new code is slower) and the bounds of
/// its 95% percentile-bootstrap interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct RatioCi {
    pub ratio: f64,
    pub lo: f64,
    pub hi: f64,
}

/// `median(new) / median(old)` with a 95% percentile-bootstrap confidence interval.
///
/// Each of `resamples` rounds draws `old.len()` values from `old` and `new.len()` values from
/// `new`, with replacement and independently, and records the ratio of the resampled medians;
/// the interval is the 2.5th and 97.5th percentile of those ratios. The generator is [`StdRng`]
/// seeded with `seed`, so the result is reproducible for a given seed and build. With
/// `resamples == 0` the interval collapses to the point estimate. Both sets must be non-empty.
pub fn bootstrap_median_ratio(old: &[f64], new: &[f64], resamples: usize, seed: u64) -> RatioCi {
    assert!(
        !old.is_empty() && !new.is_empty(),
        "bootstrap_median_ratio needs samples on both sides"
    );
    let ratio = median(new) / median(old);
    let mut rng = StdRng::seed_from_u64(seed);
    let mut scratch = Vec::new();
    let mut ratios: Vec<f64> = (0..resamples)
        .map(|_| {
            let m_old = resampled_median(&mut rng, old, &mut scratch);
            resampled_median(&mut rng, new, &mut scratch) / m_old
        })
        .collect();
    ratios.sort_unstable_by(f64::total_cmp);
    let bound = |q| (!ratios.is_empty()).then(|| percentile_sorted(&ratios, q));
    RatioCi {
        ratio,
        lo: bound(0.025).unwrap_or(ratio),
        hi: bound(0.975).unwrap_or(ratio),
    }
}

/// The median of `src.len()` values drawn from `src` with replacement (`src` non-empty), using
/// `scratch` for them: one bootstrap draw.
pub(crate) fn resampled_median(rng: &mut StdRng, src: &[f64], scratch: &mut Vec<f64>) -> f64 {
    scratch.clear();
    scratch.extend((0..src.len()).map(|_| src[rng.random_range(0..src.len())]));
    median_in_place(scratch)
}

/// Median by selection rather than sorting: the bootstrap takes thousands of
/// medians, and selection is linear time.
fn median_in_place(v: &mut [f64]) -> f64 {
    let n = v.len();
    let (lower, &mut upper_mid, _) = v.select_nth_unstable_by(n / 2, f64::total_cmp);
    if n % 2 == 1 {
        return upper_mid;
    }
    // Everything left of the middle is <= it; its maximum is the lower middle element.
    let lower_mid = lower.iter().copied().max_by(f64::total_cmp).unwrap();
    // Same arithmetic as `percentile_sorted` at q = 0.5, so both agree to the last bit.
    lower_mid + 0.5 * (upper_mid - lower_mid)
}

/// Standard normal survival function, `P(Z > x)`. statrs computes it from `erfc`, which keeps
/// its relative precision far into the tail, where `1 - cdf` would round to 0 and every large
/// effect would get the same p-value.
fn normal_sf(x: f64) -> f64 {
    Normal::standard().sf(x)
}

/// Result of a two-sided Mann-Whitney U test.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct MannWhitney {
    /// U statistic of the first sample `a`: the number of pairs `(a_i, b_j)`
    /// with `a_i > b_j`, counting ties as one half. Equals `R_a - n_a(n_a+1)/2`
    /// where `R_a` is the rank sum of `a` in the pooled sample.
    pub u: f64,
    /// Normal-approximation z score, continuity-corrected towards 0 and
    /// tie-corrected. Positive when `a` tends to be larger than `b`.
    pub z: f64,
    /// Two-sided p-value, `2 P(Z > |z|)`, in `[0, 1]`.
    pub p_value: f64,
}

/// Two-sided Mann-Whitney U (Wilcoxon rank-sum) test of `a` against `b`,
/// using the normal approximation.
///
/// With pooled size `N = n_a + n_b` and tie groups of sizes `t_k`:
/// `mu = n_a n_b / 2`,
/// `sigma^2 = n_a n_b / 12 * ((N + 1) - sum_k (t_k^3 - t_k) / (N (N - 1)))`,
/// and `z = sign(U - mu) * max(|U - mu| - 1/2, 0) / sigma`. The p-value then
/// matches SciPy's `mannwhitneyu(a, b, method="asymptotic")`. The
/// approximation is the right tool here: timing samples number in the tens to
/// hundreds and are full of ties from timer quantisation, where exact tables
/// do not apply.
///
/// Degenerate inputs (an empty side, or every pooled value equal so that
/// `sigma = 0`) give `z = 0` and `p = 1`: there is no evidence of a
/// difference.
pub fn mann_whitney_u(a: &[f64], b: &[f64]) -> MannWhitney {
    let mut pooled: Vec<(f64, bool)> = a.iter().map(|&x| (x, true)).collect();
    pooled.extend(b.iter().map(|&x| (x, false)));
    pooled.sort_unstable_by(|p, q| p.0.total_cmp(&q.0));
    let (mut rank_sum_a, mut tie_term, mut start) = (0.0, 0.0, 0);
    for group in pooled.chunk_by(|p, q| p.0 == q.0) {
        // Ranks are 1-based; the tie group at positions start..end shares their average rank.
        let end = start + group.len();
        let in_a = group.iter().filter(|p| p.1).count();
        rank_sum_a += (start + 1 + end) as f64 / 2.0 * in_a as f64;
        let t = group.len() as f64;
        tie_term += t * t * t - t;
        start = end;
    }
    let (na, nb, n) = (a.len() as f64, b.len() as f64, pooled.len() as f64);
    let u = rank_sum_a - na * (na + 1.0) / 2.0;
    let var = na * nb / 12.0 * ((n + 1.0) - tie_term / (n * (n - 1.0)));
    // An empty side makes var 0 or NaN (0/0 for a single pooled value): not `> 0` either way.
    let (z, p_value) = if var > 0.0 {
        let diff = u - na * nb / 2.0;
        let z = (diff.abs() - 0.5).max(0.0).copysign(diff) / var.sqrt();
        (z, (2.0 * normal_sf(z.abs())).min(1.0))
    } else {
        (0.0, 1.0)
    };
    MannWhitney { u, z, p_value }
}

/// Cliff's delta of `b` relative to `a`: `(#{b_j > a_i} - #{b_j < a_i}) / (n_a n_b)`
/// over all pairs.
///
/// Sign convention: +1 when every `b` exceeds every `a`, -1 when every `b` is
/// below every `a`. With `a = old` and `b = new` latencies, positive means the
/// new code tends to be slower. Returns 0 when either side is empty.
pub fn cliffs_delta(a: &[f64], b: &[f64]) -> f64 {
    if a.is_empty() || b.is_empty() {
        return 0.0;
    }
    let sorted_a = sorted_copy(a);
    let mut net: i64 = 0;
    for &y in b {
        let below = sorted_a.partition_point(|&x| x < y);
        let above = sorted_a.len() - sorted_a.partition_point(|&x| x <= y);
        net += below as i64 - above as i64;
    }
    net as f64 / (a.len() as f64 * b.len() as f64)
}

/// Conventional size label for a Cliff's delta; lower-case in tables and JSON.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CliffsMagnitude {
    Negligible,
    Small,
    Medium,
    Large,
}

impl CliffsMagnitude {
    /// Classifies `delta` by its absolute value (Romano et al. thresholds).
    pub fn of(delta: f64) -> CliffsMagnitude {
        match delta.abs() {
            d if d < 0.147 => CliffsMagnitude::Negligible,
            d if d < 0.33 => CliffsMagnitude::Small,
            d if d < 0.474 => CliffsMagnitude::Medium,
            _ => CliffsMagnitude::Large,
        }
    }
}

/// Cliff's delta of new relative to old (positive: new is slower) and its size label.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Cliffs {
    pub delta: f64,
    pub magnitude: CliffsMagnitude,
}

/// Outcome of comparing two latency sample sets; lower-case in tables and JSON.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// New is reliably faster by more than the threshold.
    Improved,
    /// New is reliably slower by more than the threshold.
    Regressed,
    /// No change that passes all three tests.
    Unchanged,
}

/// `Display` as the lower-case variant name, the same as serde's (`rename_all = "lowercase"`).
macro_rules! display_lower_case {
    ($($t:ty),*) => {$(
        impl fmt::Display for $t {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&format!("{self:?}").to_lowercase())
            }
        }
    )*};
}
display_lower_case!(CliffsMagnitude, Verdict);

/// Everything [`judge`] computed, so that reports can show why it decided.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Judgement {
    pub verdict: Verdict,
    pub ratio_ci: RatioCi,
    /// Mann-Whitney test of old against new.
    pub mw: MannWhitney,
    pub cliffs: Cliffs,
}

/// Bootstrap rounds used by [`judge`]; 2000 keeps the 2.5% tails of the
/// interval stable to a few parts in a thousand at negligible cost.
pub const JUDGE_RESAMPLES: usize = 2000;

/// Default relative threshold for [`judge`]: changes under 3% are ignored.
pub const DEFAULT_THRESHOLD: f64 = 0.03;

/// Default significance level for [`judge`].
pub const DEFAULT_ALPHA: f64 = 0.05;

/// Decides whether `new_ms` latencies regressed, improved or stayed put relative to `old_ms`.
///
/// With `r = median(new) / median(old)`, its 95% bootstrap interval
/// `[lo, hi]` ([`bootstrap_median_ratio`] with [`JUDGE_RESAMPLES`] rounds and
/// `seed`) and the Mann-Whitney p-value `p` ([`mann_whitney_u`]):
/// * **Regressed** iff `r > 1 + threshold` and `lo > 1` and `p < alpha`;
/// * **Improved** iff `r < 1 - threshold` and `hi < 1` and `p < alpha`;
/// * **Unchanged** otherwise.
///
/// Requiring all three keeps the gate quiet for effects that are large but noisy (wide interval),
/// and for effects that are consistent but too small to matter (ratio inside the threshold).
/// Cliff's delta is reported for context only and does not influence the verdict. Both sample
/// sets must be non-empty.
pub fn judge(old_ms: &[f64], new_ms: &[f64], threshold: f64, alpha: f64, seed: u64) -> Judgement {
    let ratio_ci = bootstrap_median_ratio(old_ms, new_ms, JUDGE_RESAMPLES, seed);
    let mw = mann_whitney_u(old_ms, new_ms);
    let delta = cliffs_delta(old_ms, new_ms);
    let significant = mw.p_value < alpha;
    let verdict = if ratio_ci.ratio > 1.0 + threshold && ratio_ci.lo > 1.0 && significant {
        Verdict::Regressed
    } else if ratio_ci.ratio < 1.0 - threshold && ratio_ci.hi < 1.0 && significant {
        Verdict::Improved
    } else {
        Verdict::Unchanged
    };
    let magnitude = CliffsMagnitude::of(delta);
    let cliffs = Cliffs { delta, magnitude };
    Judgement {
        verdict,
        ratio_ci,
        mw,
        cliffs,
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    fn close(a: f64, b: f64, rel: f64) -> bool {
        a == b || (a - b).abs() <= rel * a.abs().max(b.abs())
    }

    /// Noisy latencies around `center`, deterministic per seed.
    pub(crate) fn noisy(center: f64, n: usize, spread: f64, seed: u64) -> Vec<f64> {
        let mut rng = StdRng::seed_from_u64(seed);
        (0..n)
            .map(|_| center * (1.0 + spread * (rng.random::<f64>() - 0.5)))
            .collect()
    }

    #[test]
    fn summary_known_values() {
        let summary = |v: &[f64]| Summary::try_from_samples(v).unwrap();
        let s = summary(&[4.0, 1.0, 3.0, 2.0]);
        // p90: h = 3 * 0.9 = 2.7 -> 3 + 0.7 * (4 - 3); stdev: squared deviations sum to 5, / 3.
        assert_eq!((s.n, s.p50, s.mean, s.min, s.max), (4, 2.5, 2.5, 1.0, 4.0));
        assert!(close(s.p90, 3.7, 1e-15) && close(s.stdev, (5.0f64 / 3.0).sqrt(), 1e-15));
        let s = summary(&[10.0, 30.0, 20.0, 50.0, 40.0]);
        // h = 4 * 0.9 = 3.6 -> 40 + 0.6 * 10
        assert_eq!(s.p50, 30.0);
        assert!(close(s.p90, 46.0, 1e-15) && close(s.stdev, 250.0f64.sqrt(), 1e-15));
        let one = summary(&[7.0]);
        assert_eq!(
            (one.p50, one.p90, one.stdev, one.min, one.max),
            (7.0, 7.0, 0.0, 7.0, 7.0)
        );
        assert!(Summary::try_from_samples(&[]).is_none());
        for (q, want) in [(0.0, 1.0), (1.0, 3.0), (0.25, 1.5), (-1.0, 1.0), (2.0, 3.0)] {
            assert_eq!(percentile_sorted(&[1.0, 2.0, 3.0], q), want, "q = {q}");
        }
        assert_eq!(median(&[5.0, 1.0]), 3.0);
    }

    #[test]
    fn selection_median_matches_sorting() {
        for n in 1..40 {
            let v = noisy(1.0, n, 0.5, n as u64);
            let mut w = v.clone();
            assert_eq!(median_in_place(&mut w), median(&v), "n = {n}");
        }
        assert_eq!(median_in_place(&mut [3.0, 1.0, 2.0, 2.0]), 2.0);
    }

    #[test]
    fn normal_tail_and_cdf_match_references() {
        // Reference values of erfc from CPython's math.erfc (the platform libm); erfc(x) = 2 P(Z >
        // x sqrt(2)). statrs's rational approximations hold about 1e-10 relative error, far finer
        // than any p-value the gate compares with alpha. (x, erfc(x)) pairs.
        let table = "-3.0 1.9999779095030015    -1.0 1.842700792949715     -0.3 1.3286267594591274
                      0.0 1.0                  0.001 0.9988716212090307     0.1 0.8875370839817152
                      0.5 0.4795001221869535     1.0 0.15729920705028513    1.5 0.033894853524689274
                      2.0 0.004677734981047265  2.49 0.000429287867733913   2.5 0.0004069520174449589
                     2.51 0.0003857054817242798  3.0 2.2090496998585438e-05 4.0 1.541725790028002e-08
                      5.0 1.5374597944280351e-12 6.0 2.1519736712498916e-17 8.0 1.1224297172982928e-29
                     10.0 2.088487583762545e-45 20.0 5.3958656116079005e-176
                     26.0 5.663192408856143e-296";
        let numbers: Vec<f64> = table
            .split_whitespace()
            .map(|t| t.parse().unwrap())
            .collect();
        assert_eq!(numbers.len(), 2 * 21);
        let erfc = |x: f64| 2.0 * normal_sf(x * std::f64::consts::SQRT_2);
        for pair in numbers.chunks(2) {
            let (x, want, got) = (pair[0], pair[1], erfc(pair[0]));
            assert!(close(got, want, 1e-9), "erfc({x}) = {got}, want {want}");
        }
        assert_eq!(erfc(40.0), 0.0);
        assert_eq!(erfc(-40.0), 2.0);
        assert!(erfc(f64::NAN).is_nan());
        let normal_cdf = |x: f64| Normal::standard().cdf(x);
        assert!(close(normal_cdf(1.959963984540054), 0.975, 1e-9));
        assert!(close(normal_cdf(-1.0), 0.15865525393145707, 1e-9));
        assert!(close(normal_sf(3.0), 0.0013498980316300933, 1e-9));
        assert_eq!(normal_cdf(0.0), 0.5);
    }

    #[test]
    fn mann_whitney_matches_scipy() {
        // (a, b, U of a, two-sided p) with p from scipy.stats.mannwhitneyu(a, b,
        // use_continuity=True, alternative="two-sided", method="asymptotic").
        let cases: [(&[f64], &[f64], f64, f64); 3] = [
            (
                &[1.0, 2.0, 3.0, 4.0, 5.0],
                &[6.0, 7.0, 8.0, 9.0, 10.0],
                0.0,
                0.012185780355344813,
            ),
            (
                &[1.0, 2.0, 2.0, 3.0, 3.0, 3.0, 4.0],
                &[2.0, 3.0, 3.0, 4.0, 4.0, 5.0, 5.0, 6.0],
                11.0,
                0.04988443697992588,
            ),
            (
                &[1.1, 2.3, 0.7, 4.4, 3.3, 2.2, 5.1, 0.9],
                &[2.5, 3.9, 4.8, 6.0, 1.2, 5.5, 7.1],
                11.0,
                0.05619711191879385,
            ),
        ];
        for (a, b, u, p) in cases {
            let r = mann_whitney_u(a, b);
            assert!(r.u == u && r.z < 0.0 && close(r.p_value, p, 1e-9), "{r:?}");
            // Swapping the sides mirrors U and z but not p.
            let s = mann_whitney_u(b, a);
            assert_eq!(s.u, (a.len() * b.len()) as f64 - u);
            assert!(close(s.z, -r.z, 1e-12) && close(s.p_value, r.p_value, 1e-12));
        }
        // By hand for the first: mu = 12.5, sigma^2 = 25/12 * 11, z = -(12.5 - 0.5)/sigma.
        let r = mann_whitney_u(cases[0].0, cases[0].1);
        assert!(close(r.z, -12.0 / (25.0f64 / 12.0 * 11.0).sqrt(), 1e-12));
        let same = mann_whitney_u(cases[0].0, cases[0].0);
        assert_eq!((same.u, same.z, same.p_value), (12.5, 0.0, 1.0));
        assert_eq!(mann_whitney_u(&[2.0; 4], &[2.0; 6]).p_value, 1.0);
        assert_eq!(mann_whitney_u(&[], &[1.0]).p_value, 1.0);
    }

    #[test]
    fn cliffs_delta_conventions() {
        let cases: [(&[f64], &[f64], f64); 5] = [
            (&[1.0, 2.0], &[3.0, 4.0], 1.0),
            (&[3.0, 4.0], &[1.0, 2.0], -1.0),
            (&[1.0, 2.0, 3.0], &[1.0, 2.0, 3.0], 0.0),
            // b = 2 against a = {1, 2, 3}: one above, one tie, one below; b = 4: three above.
            (&[1.0, 2.0, 3.0], &[2.0, 4.0], (1.0 - 1.0 + 3.0) / 6.0),
            (&[], &[1.0], 0.0),
        ];
        for (a, b, want) in cases {
            assert_eq!(cliffs_delta(a, b), want, "{a:?} {b:?}");
        }
        // delta(a, b) = (#b>a - #b<a)/(na nb) = 1 - 2 U_a / (na nb).
        let a = [1.1, 2.3, 0.7, 4.4, 3.3, 2.2, 5.1, 0.9, 2.3];
        let b = [2.5, 3.9, 4.8, 2.3, 1.2, 5.5, 7.1];
        let u = mann_whitney_u(&a, &b).u;
        let d = cliffs_delta(&a, &b);
        assert!(close(d, 1.0 - 2.0 * u / (a.len() * b.len()) as f64, 1e-12));
        use CliffsMagnitude::{Large, Medium, Negligible, Small};
        for (delta, want) in [
            (0.0, Negligible),
            (-0.146, Negligible),
            (0.147, Small),
            (-0.33, Medium),
            (0.474, Large),
            (-1.0, Large),
        ] {
            assert_eq!(CliffsMagnitude::of(delta), want, "{delta}");
        }
        assert_eq!(Large.to_string(), "large");
        assert_eq!(
            serde_json::to_string(&Verdict::Regressed).unwrap(),
            "\"regressed\""
        );
        assert_eq!(Verdict::Regressed.to_string(), "regressed");
    }

    #[test]
    fn bootstrap_is_deterministic_brackets_the_ratio_and_degenerates() {
        let old = noisy(1.0, 60, 0.1, 1);
        let new = noisy(1.2, 60, 0.1, 2);
        let a = bootstrap_median_ratio(&old, &new, 1000, 7);
        let b = bootstrap_median_ratio(&old, &new, 1000, 7);
        assert_eq!(a, b);
        assert!(close(a.ratio, median(&new) / median(&old), 1e-15));
        assert!(a.lo <= a.ratio && a.ratio <= a.hi, "{a:?}");
        assert!(a.lo > 1.1 && a.hi < 1.3, "{a:?}");
        let c = bootstrap_median_ratio(&old, &new, 1000, 8);
        assert_ne!((a.lo, a.hi), (c.lo, c.hi));
        // Degenerate: no spread, and no resamples.
        let flat = bootstrap_median_ratio(&[2.0; 10], &[3.0; 10], 100, 0);
        assert_eq!((flat.ratio, flat.lo, flat.hi), (1.5, 1.5, 1.5));
        let none = bootstrap_median_ratio(&[1.0, 2.0], &[2.0, 4.0], 0, 0);
        assert_eq!((none.lo, none.hi), (2.0, 2.0));
    }

    #[test]
    fn judge_verdicts() {
        let old = noisy(1.0, 100, 0.04, 10);
        let j = judge(&old, &noisy(1.10, 100, 0.04, 12), 0.03, 0.05, 1);
        assert_eq!(j.verdict, Verdict::Regressed, "{j:?}");
        assert!(j.cliffs.delta > 0.9 && j.cliffs.magnitude == CliffsMagnitude::Large);
        for (new, want) in [
            (old.clone(), Verdict::Unchanged),
            (noisy(1.0, 100, 0.04, 11), Verdict::Unchanged),
            (noisy(0.90, 100, 0.04, 13), Verdict::Improved),
            // Real but below the threshold.
            (noisy(1.01, 100, 0.04, 14), Verdict::Unchanged),
        ] {
            assert_eq!(judge(&old, &new, 0.03, 0.05, 1).verdict, want);
        }
        // Large but with too few samples to be significant.
        let j = judge(&[1.0, 1.2], &[1.3, 1.1], 0.03, 0.05, 1);
        assert_eq!(j.verdict, Verdict::Unchanged);
    }
}
