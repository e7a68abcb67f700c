//! Robust summary statistics for timing samples.
//!
//! Everything here is pure, allocation-light and imports nothing of the
//! crate ([`Summary`] derives serde only, so that the engine's records carry
//! it). All functions are total: they never panic on any input and never return NaN
//! (where there is no figure at all, [`min_max_avg`] says so with `None`).
//!
//! Conventions:
//!
//! * Samples are timings in microseconds, but nothing here depends on the unit.
//! * Non-finite samples (NaN, and also `±inf`, which cannot be a real timing)
//!   are ignored by [`summarize`] and [`min_max_avg`].
//! * Percentiles use linear interpolation between order statistics
//!   (Hyndman & Fan "type 7", the default of numpy, R and Excel `PERCENTILE`).
//! * The 95 % confidence interval of the median is distribution-free, built
//!   from order statistics (see [`median_ci95`]).
//! * Outliers are detected with the robust "modified z-score" rule based on
//!   the median absolute deviation (see [`Summary::outliers`]).

use serde::{Deserialize, Serialize};

/// Consistency constant turning the MAD into an estimate of the standard
/// deviation for normally distributed data (`1 / Φ⁻¹(3/4)`).
pub const MAD_TO_SIGMA: f64 = 1.4826;

/// Consistency constant turning the mean absolute deviation around the median
/// into an estimate of the standard deviation for normal data (`sqrt(π/2)`).
/// Used as a fallback scale when the MAD is zero.
pub const MEANAD_TO_SIGMA: f64 = 1.253_314;

/// A sample is an outlier when it lies more than this many robust standard
/// deviations away from the median.
pub const OUTLIER_THRESHOLD: f64 = 3.0;

/// Up to this sample count the median confidence interval is computed from the
/// exact binomial distribution; above it the normal approximation is used.
pub const EXACT_CI_MAX_N: usize = 1000;

/// Two-sided 95 % standard normal quantile.
const Z95: f64 = 1.96;

/// Summary of one set of timing samples (microseconds).
///
/// All fields are zero for an empty sample set (`n == 0`); no field is ever NaN.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct Summary {
    /// Number of (finite) samples summarised.
    pub n: usize,
    /// Smallest sample.
    pub min: f64,
    /// Largest sample.
    pub max: f64,
    /// Arithmetic mean.
    pub mean: f64,
    /// Sample standard deviation (n − 1 in the denominator; 0 below two samples).
    pub stddev: f64,
    /// Median (50th percentile, type 7 interpolation).
    pub median: f64,
    /// 5th percentile (type 7 interpolation).
    pub p5: f64,
    /// 95th percentile (type 7 interpolation).
    pub p95: f64,
    /// Lower bound of the distribution-free 95 % confidence interval of the
    /// median (an order statistic, see [`median_ci95`]). For `n <= 8` this is
    /// the minimum; for `n <= 5` the interval `[min, max]` has less than 95 %
    /// coverage (`1 - 2^(1-n)`), which is the best the data can give.
    pub ci95_lo: f64,
    /// Upper bound of the 95 % confidence interval of the median.
    pub ci95_hi: f64,
    /// Number of samples whose robust ("modified") z-score exceeds
    /// [`OUTLIER_THRESHOLD`], i.e. `|x - median| > 3 * 1.4826 * MAD`.
    ///
    /// When the MAD is zero (more than half of the samples are identical, which
    /// happens with coarse timers) the scale falls back to
    /// `1.253314 * MeanAD`, the mean absolute deviation around the median
    /// (the IBM/SPSS modified z-score convention), so that a single far-away
    /// sample is still detected while small quantisation steps are not. If that
    /// scale is zero as well, all samples are equal and none is an outlier.
    pub outliers: usize,
}

/// Summarise a set of timing samples.
///
/// NaN and infinite values are filtered out first; `n` counts the remaining
/// samples. An empty (or all-non-finite) slice gives `Summary::default()`.
pub fn summarize(samples: &[f64]) -> Summary {
    let mut sorted: Vec<f64> = samples.iter().copied().filter(|x| x.is_finite()).collect();
    if sorted.is_empty() {
        return Summary::default();
    }
    sorted.sort_by(f64::total_cmp);
    let n = sorted.len();

    let median = percentile(&sorted, 50.0);
    let (ci95_lo, ci95_hi) = median_ci95(&sorted);
    let mean = finite_or_zero(mean_of(&sorted));
    let stddev = if n < 2 {
        0.0
    } else {
        let ss: f64 = sorted.iter().map(|x| (x - mean).powi(2)).sum();
        finite_or_zero((ss / (n - 1) as f64).sqrt())
    };

    Summary {
        n,
        min: sorted[0],
        max: sorted[n - 1],
        mean,
        stddev,
        median,
        p5: percentile(&sorted, 5.0),
        p95: percentile(&sorted, 95.0),
        ci95_lo,
        ci95_hi,
        outliers: count_outliers(&sorted, median),
    }
}

/// Percentile `p` (in `[0, 100]`) of an ascending `sorted` slice using linear
/// interpolation between the closest ranks (type 7, numpy's default):
/// with `h = (n - 1) * p / 100`, the result is
/// `x[⌊h⌋] + (h - ⌊h⌋) * (x[⌊h⌋ + 1] - x[⌊h⌋])`.
///
/// `p` outside `[0, 100]` is clamped; a NaN `p` is treated as 50 (median).
/// An empty slice gives `0.0`.
pub fn percentile(sorted: &[f64], p: f64) -> f64 {
    let n = sorted.len();
    if n == 0 {
        return 0.0;
    }
    let p = if p.is_nan() {
        50.0
    } else {
        p.clamp(0.0, 100.0)
    };
    let h = (n - 1) as f64 * p / 100.0;
    let lo = (h.floor() as usize).min(n - 1);
    let hi = (lo + 1).min(n - 1);
    let frac = h - lo as f64;
    let (a, b) = (sorted[lo], sorted[hi]);
    if (frac <= 0.0 || a == b) && !a.is_nan() {
        return a;
    }
    let span = b - a;
    let v = if span.is_finite() {
        a + frac * span
    } else {
        // `b - a` overflowed (values near ±f64::MAX): weighted form cannot.
        a * (1.0 - frac) + b * frac
    };
    // Keep the result inside [a, b] despite rounding, and never return NaN
    // even if a caller passes non-finite data.
    let (low, high) = (a.min(b), a.max(b));
    if v < low {
        low
    } else if v > high {
        high
    } else if v.is_nan() {
        [a, b].into_iter().find(|x| !x.is_nan()).unwrap_or(0.0)
    } else {
        v
    }
}

/// Distribution-free 95 % confidence interval of the median of an ascending
/// `sorted` slice, by order statistics.
///
/// The number of samples below the true median is `Binomial(n, 1/2)`, so the
/// interval `[x_(j), x_(n+1-j)]` (1-based ranks) covers the median with
/// probability `1 - 2 * P(B <= j - 1)`. We pick the largest `j` (narrowest
/// symmetric interval) whose coverage is still `>= 0.95`:
///
/// * `n <= 1000` ([`EXACT_CI_MAX_N`]): exact binomial CDF, summed in log space
///   so it neither overflows nor underflows.
///   For `n = 10` this gives ranks 2 and 9 (coverage 97.85 %).
/// * `n > 1000`: normal approximation
///   `j = ⌊n/2 - 1.96 √n / 2⌋`, `k = ⌈1 + n/2 + 1.96 √n / 2⌉`,
///   which agrees with the exact ranks near the switch.
///
/// For `n <= 8` the result is `[min, max]`; for `n <= 5` not even that reaches
/// 95 % coverage, and `[min, max]` is returned anyway (documented
/// under-coverage rather than an undefined result). An empty slice gives
/// `(0.0, 0.0)`; a single sample `x` gives `(x, x)`.
pub fn median_ci95(sorted: &[f64]) -> (f64, f64) {
    let n = sorted.len();
    if n == 0 {
        return (0.0, 0.0);
    }
    let (j, k) = median_ci_ranks(n);
    (sorted[j - 1], sorted[k - 1])
}

/// Relative half-width of the median's confidence interval:
/// `(ci95_hi - ci95_lo) / 2 / median`.
///
/// Returns `f64::INFINITY` when it is not meaningful: fewer than two samples
/// (`n < 2`), a non-positive median, or a non-finite result. This makes it
/// safe to use directly as a "stop when precise enough" criterion.
pub fn relative_ci_halfwidth(s: &Summary) -> f64 {
    if s.n < 2 || s.median.is_nan() || s.median <= 0.0 {
        return f64::INFINITY;
    }
    let r = (s.ci95_hi - s.ci95_lo) / 2.0 / s.median;
    if r.is_finite() {
        r.max(0.0)
    } else {
        f64::INFINITY
    }
}

/// At most `k` evenly spaced order statistics of `samples` (all of them,
/// sorted, when there are no more than `k`): a compact record of a
/// distribution for later comparison. Non-finite values are dropped.
pub fn order_statistics(samples: &[f64], k: usize) -> Vec<f64> {
    let mut sorted: Vec<f64> = samples.iter().copied().filter(|x| x.is_finite()).collect();
    sorted.sort_by(f64::total_cmp);
    let n = sorted.len();
    if n <= k || k == 0 {
        return if k == 0 { Vec::new() } else { sorted };
    }
    if k == 1 {
        return vec![percentile(&sorted, 50.0)];
    }
    (0..k)
        .map(|i| sorted[(i * (n - 1) + (k - 1) / 2) / (k - 1)])
        .collect()
}

/// Whether a confidence interval contains zero: a difference of times too
/// small to tell from no difference at all ("below resolution").
pub fn ci_contains_zero(s: &Summary) -> bool {
    s.n > 0 && s.ci95_lo <= 0.0 && s.ci95_hi >= 0.0
}

/// Why a difference of times is below the resolution of the measurement,
/// if it is: the 95% CI of its median contains zero, or, where the figure
/// reported is the mean (`mean_is_figure`, MPITEST's t), the mean is not
/// positive. Either way the figure is not a time.
pub fn below_resolution(s: &Summary, mean_is_figure: bool) -> Option<&'static str> {
    if ci_contains_zero(s) {
        Some("the 95% CI of the median contains zero")
    } else if mean_is_figure && s.n > 0 && s.mean <= 0.0 {
        Some("the mean is not positive")
    } else {
        None
    }
}

/// Minimum, maximum and average of per-rank values (the across-rank
/// reduction). Non-finite values are ignored; an empty (or all-non-finite)
/// slice has no figure: `None`, which callers report as null with a note,
/// never as 0.
pub fn min_max_avg(values: &[f64]) -> Option<(f64, f64, f64)> {
    let mut count = 0usize;
    let mut min = f64::INFINITY;
    let mut max = f64::NEG_INFINITY;
    let mut sum = 0.0;
    for &v in values.iter().filter(|v| v.is_finite()) {
        count += 1;
        min = min.min(v);
        max = max.max(v);
        sum += v;
    }
    if count == 0 {
        return None;
    }
    Some((min, max, finite_or_zero(sum / count as f64)))
}

/// Several launches (mpiexec calls) of one measurement, side by side: the
/// figure is the median of the launch medians, its CI is the order
/// statistics CI over the launches ([`median_ci95`]: their range with 8
/// launches or fewer, which covers the median with probability 1 − 2^(1−n):
/// 75% for 3, 94% for 6), and the spreads compare what one launch claims
/// with what the launches show (Hunold and Carpen-Amarie: the variation
/// between launches often exceeds the variation within one).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LaunchSpread {
    /// Launches with a figure.
    pub n: usize,
    /// The median of the launch medians.
    pub median: f64,
    pub ci95_lo: f64,
    pub ci95_hi: f64,
    /// The median of the launches' own CI widths (None when no launch
    /// has a CI: loop timing's single figure claims no precision).
    pub within: Option<f64>,
    /// The largest launch median less the smallest.
    pub between: f64,
}

impl LaunchSpread {
    /// The launches differ by more than one launch's CI is wide: a CI from
    /// a single launch would overstate the precision.
    pub fn between_dominates(&self) -> bool {
        // Ties (clock steps make them common) are not domination.
        self.n >= 2
            && self
                .within
                .is_some_and(|w| self.between - w > 1e-9 * self.median.abs())
    }
}

/// The [`LaunchSpread`] of each launch's median and own CI width
/// (non-finite medians left out, with their widths); None without a
/// finite median.
pub fn launch_spread(launches: &[(f64, Option<f64>)]) -> Option<LaunchSpread> {
    let finite: Vec<&(f64, Option<f64>)> = launches.iter().filter(|(m, _)| m.is_finite()).collect();
    let mut medians: Vec<f64> = finite.iter().map(|(m, _)| *m).collect();
    if medians.is_empty() {
        return None;
    }
    medians.sort_by(f64::total_cmp);
    let mut widths: Vec<f64> = finite
        .iter()
        .filter_map(|(_, w)| w.filter(|w| w.is_finite()).map(|w| w.max(0.0)))
        .collect();
    widths.sort_by(f64::total_cmp);
    let (ci95_lo, ci95_hi) = median_ci95(&medians);
    Some(LaunchSpread {
        n: medians.len(),
        median: percentile(&medians, 50.0),
        ci95_lo,
        ci95_hi,
        within: (!widths.is_empty()).then(|| percentile(&widths, 50.0)),
        between: medians[medians.len() - 1] - medians[0],
    })
}

/// Median absolute deviation (unscaled): `median(|x_i - median(x)|)` of an
/// ascending `sorted` slice. Multiply by [`MAD_TO_SIGMA`] for a robust
/// estimate of the standard deviation. An empty slice gives `0.0`.
pub fn mad(sorted: &[f64]) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let med = percentile(sorted, 50.0);
    let mut dev: Vec<f64> = sorted.iter().map(|x| (x - med).abs()).collect();
    dev.sort_by(f64::total_cmp);
    finite_or_zero(percentile(&dev, 50.0))
}

/// 1-based ranks `(j, k)` of the order statistics bounding the 95 % CI of the
/// median for `n >= 1` samples, clamped to `1..=n`.
fn median_ci_ranks(n: usize) -> (usize, usize) {
    if n <= EXACT_CI_MAX_N {
        exact_median_ci_ranks(n)
    } else {
        normal_median_ci_ranks(n)
    }
}

/// Exact ranks from the `Binomial(n, 1/2)` CDF: the largest `j >= 1` with
/// `P(B <= j - 1) <= 0.025`, and `k = n + 1 - j`.
fn exact_median_ci_ranks(n: usize) -> (usize, usize) {
    if n == 0 {
        return (1, 1);
    }
    let alpha_half = 0.025;
    let nf = n as f64;
    // log pmf(0) = -n ln 2; pmf(i + 1) = pmf(i) * (n - i) / (i + 1).
    let mut log_pmf = -nf * std::f64::consts::LN_2;
    let mut cdf = 0.0;
    let mut j = 1usize;
    // Only the lower half is needed: j - 1 < n / 2.
    for i in 0..n.div_ceil(2) {
        cdf += log_pmf.exp();
        // cdf == P(B <= i); rank j = i + 1 needs P(B <= i) <= alpha/2.
        if cdf > alpha_half {
            break;
        }
        j = i + 1;
        log_pmf += ((n - i) as f64).ln() - ((i + 1) as f64).ln();
    }
    clamp_ranks(j, n + 1 - j.min(n), n)
}

/// Normal approximation to the binomial ranks:
/// `j = ⌊n/2 - 1.96 √n / 2⌋`, `k = ⌈1 + n/2 + 1.96 √n / 2⌉`.
fn normal_median_ci_ranks(n: usize) -> (usize, usize) {
    let nf = n as f64;
    let half_width = Z95 * nf.sqrt() / 2.0;
    let j = (nf / 2.0 - half_width).floor();
    let k = (1.0 + nf / 2.0 + half_width).ceil();
    let to_rank = |x: f64| if x < 1.0 { 1 } else { x as usize };
    clamp_ranks(to_rank(j), to_rank(k), n)
}

fn clamp_ranks(j: usize, k: usize, n: usize) -> (usize, usize) {
    let n = n.max(1);
    let j = j.clamp(1, n);
    let k = k.clamp(j, n);
    (j, k)
}

/// Arithmetic mean; falls back to summing `x / n` if the plain sum overflows.
fn mean_of(values: &[f64]) -> f64 {
    if values.is_empty() {
        return 0.0;
    }
    let n = values.len() as f64;
    let m = values.iter().sum::<f64>() / n;
    if m.is_finite() {
        m
    } else {
        values.iter().map(|x| x / n).sum()
    }
}

/// Count samples with a robust z-score above [`OUTLIER_THRESHOLD`]; see
/// [`Summary::outliers`] for the rule.
fn count_outliers(sorted: &[f64], median: f64) -> usize {
    if sorted.len() < 3 {
        // With one or two samples there is no majority to be "out" of.
        return 0;
    }
    let m = mad(sorted);
    let scale = if m > 0.0 {
        MAD_TO_SIGMA * m
    } else {
        let mean_ad = mean_of(
            &sorted
                .iter()
                .map(|x| (x - median).abs())
                .collect::<Vec<_>>(),
        );
        MEANAD_TO_SIGMA * mean_ad
    };
    if scale.is_nan() || scale <= 0.0 || scale.is_infinite() {
        return 0;
    }
    let limit = OUTLIER_THRESHOLD * scale;
    sorted
        .iter()
        .filter(|&&x| (x - median).abs() > limit)
        .count()
}

fn finite_or_zero(x: f64) -> f64 {
    if x.is_finite() {
        x
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests {

    #[test]
    fn launch_spread_is_the_median_of_medians_with_their_range() {
        // Three launches: the range of their medians is the CI (75% coverage).
        let s = launch_spread(&[(10.0, Some(0.2)), (10.6, Some(0.4)), (10.2, Some(0.3))]).unwrap();
        assert_eq!(s.n, 3);
        assert_eq!(s.median, 10.2);
        assert_eq!((s.ci95_lo, s.ci95_hi), (10.0, 10.6));
        assert!((s.within.unwrap() - 0.3).abs() < 1e-12);
        assert!((s.between - 0.6).abs() < 1e-12);
        assert!(s.between_dominates());
        // Launches that agree within their CIs: not flagged; nor a tie
        // that rounding puts a hair above.
        let s = launch_spread(&[(10.0, Some(1.0)), (10.1, Some(1.0))]).unwrap();
        assert!(!s.between_dominates());
        let s = launch_spread(&[(0.3, Some(0.1)), (0.4 + 1e-15, Some(0.1))]).unwrap();
        assert!(!s.between_dominates());
        // Ten launches: ranks 2 and 9, as for any ten samples.
        let ten: Vec<(f64, Option<f64>)> = (1..=10).map(|i| (i as f64, None)).collect();
        let s = launch_spread(&ten).unwrap();
        assert_eq!((s.ci95_lo, s.ci95_hi, s.median), (2.0, 9.0, 5.5));
        // No launch with a CI: no within spread, nothing to flag.
        assert_eq!(s.within, None);
        assert!(!s.between_dominates());
        // A launch without a figure is left out; none at all: no spread.
        let s = launch_spread(&[(f64::NAN, Some(9.0)), (4.0, Some(1.0))]).unwrap();
        assert_eq!(
            (s.n, s.median, s.within, s.between),
            (1, 4.0, Some(1.0), 0.0)
        );
        assert!(!s.between_dominates());
        assert_eq!(launch_spread(&[(f64::NAN, None)]), None);
        assert_eq!(launch_spread(&[]), None);
    }
    use super::*;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    fn all_finite(s: &Summary) -> bool {
        [
            s.min, s.max, s.mean, s.median, s.p5, s.p95, s.ci95_lo, s.ci95_hi,
        ]
        .iter()
        .all(|v| v.is_finite())
    }

    /// Tiny deterministic LCG (Numerical Recipes constants) -> uniform [0, 1).
    struct Lcg(u64);
    impl Lcg {
        fn next(&mut self) -> f64 {
            self.0 = self
                .0
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (self.0 >> 11) as f64 / (1u64 << 53) as f64
        }
    }

    fn binom_cdf(n: usize, m: usize) -> f64 {
        // Straightforward reference: sum of C(n, i) / 2^n for small n.
        let mut c = 1.0f64;
        let mut s = 0.0;
        for i in 0..=m {
            s += c;
            c = c * (n - i) as f64 / (i + 1) as f64;
        }
        s / 2f64.powi(n as i32)
    }

    #[test]
    fn stddev_and_order_statistics() {
        let s = summarize(&[2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]);
        assert!(close(s.stddev, 2.138_089_935, 1e-9), "{}", s.stddev);
        assert_eq!(summarize(&[3.0]).stddev, 0.0);
        let v: Vec<f64> = (0..1000).rev().map(f64::from).collect();
        let o = order_statistics(&v, 11);
        assert_eq!(o.len(), 11);
        assert_eq!((o[0], o[10]), (0.0, 999.0));
        assert!(o.windows(2).all(|w| w[0] <= w[1]));
        assert_eq!(order_statistics(&[3.0, 1.0], 5), vec![1.0, 3.0]);
        assert!(ci_contains_zero(&summarize(&[-1.0, 0.5, 1.0, -0.2, 0.1])));
        assert!(!ci_contains_zero(&summarize(&[1.0, 2.0, 3.0])));
        assert_eq!(below_resolution(&summarize(&[1.0, 2.0, 3.0]), true), None);
        assert!(
            below_resolution(&summarize(&[-1.0, 0.5, 1.0, -0.2, 0.1]), false)
                .unwrap()
                .contains("CI")
        );
        // A positive median whose CI is clear of zero, but a mean dragged
        // below zero by a few large negative values.
        let mut skewed: Vec<f64> = (0..29).map(|i| 0.1 + 0.001 * f64::from(i)).collect();
        skewed.push(-50.0);
        assert!(!ci_contains_zero(&summarize(&skewed)));
        assert_eq!(
            below_resolution(&summarize(&skewed), true),
            Some("the mean is not positive")
        );
        // Where the median is the figure, it stands.
        assert_eq!(below_resolution(&summarize(&skewed), false), None);
        assert_eq!(below_resolution(&summarize(&[]), true), None);
    }

    #[test]
    fn median_odd_and_even() {
        let s = summarize(&[5.0, 1.0, 3.0]);
        assert_eq!(s.median, 3.0);
        let s = summarize(&[4.0, 1.0, 3.0, 2.0]);
        assert_eq!(s.median, 2.5);
        assert_eq!(s.mean, 2.5);
        assert_eq!((s.min, s.max), (1.0, 4.0));
    }

    #[test]
    fn percentile_matches_numpy() {
        let x = [1.0, 2.0, 3.0, 4.0];
        assert!(close(percentile(&x, 5.0), 1.15, 1e-12));
        assert!(close(percentile(&x, 95.0), 3.85, 1e-12));
        assert!(close(percentile(&x, 25.0), 1.75, 1e-12));
        assert!(close(percentile(&x, 50.0), 2.5, 1e-12));
        assert_eq!(percentile(&x, 0.0), 1.0);
        assert_eq!(percentile(&x, 100.0), 4.0);
        // np.percentile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], [10, 33, 90])
        let y: Vec<f64> = (1..=10).map(f64::from).collect();
        assert!(close(percentile(&y, 10.0), 1.9, 1e-12));
        assert!(close(percentile(&y, 33.0), 3.97, 1e-12));
        assert!(close(percentile(&y, 90.0), 9.1, 1e-12));
        // Clamping, NaN p, empty and single-element input.
        assert_eq!(percentile(&x, -5.0), 1.0);
        assert_eq!(percentile(&x, 250.0), 4.0);
        assert_eq!(percentile(&x, f64::NAN), 2.5);
        assert_eq!(percentile(&[], 50.0), 0.0);
        assert_eq!(percentile(&[7.0], 95.0), 7.0);
    }

    #[test]
    fn empty_input() {
        assert_eq!(summarize(&[]), Summary::default());
        assert_eq!(summarize(&[f64::NAN, f64::NAN]), Summary::default());
        assert_eq!(median_ci95(&[]), (0.0, 0.0));
        assert_eq!(mad(&[]), 0.0);
        assert_eq!(min_max_avg(&[]), None);
        assert_eq!(relative_ci_halfwidth(&Summary::default()), f64::INFINITY);
    }

    #[test]
    fn one_two_three_samples() {
        let s = summarize(&[4.2]);
        assert_eq!(s.n, 1);
        assert_eq!(
            (s.min, s.max, s.mean, s.median, s.p5, s.p95),
            (4.2, 4.2, 4.2, 4.2, 4.2, 4.2)
        );
        assert_eq!((s.ci95_lo, s.ci95_hi), (4.2, 4.2));
        assert_eq!(s.outliers, 0);
        assert_eq!(relative_ci_halfwidth(&s), f64::INFINITY);

        let s = summarize(&[2.0, 1.0]);
        assert_eq!(s.n, 2);
        assert_eq!(s.median, 1.5);
        assert_eq!((s.ci95_lo, s.ci95_hi), (1.0, 2.0));
        assert!(close(relative_ci_halfwidth(&s), 0.5 / 1.5, 1e-12));
        assert_eq!(s.outliers, 0);

        let s = summarize(&[3.0, 1.0, 2.0]);
        assert_eq!(s.n, 3);
        assert_eq!(s.median, 2.0);
        assert_eq!((s.ci95_lo, s.ci95_hi), (1.0, 3.0));
        assert!(close(s.p5, 1.1, 1e-12));
        assert!(close(s.p95, 2.9, 1e-12));
    }

    #[test]
    fn all_equal_samples() {
        let s = summarize(&[3.5; 50]);
        assert_eq!(s.n, 50);
        assert_eq!((s.ci95_lo, s.median, s.ci95_hi), (3.5, 3.5, 3.5));
        assert_eq!((s.p5, s.p95, s.mean), (3.5, 3.5, 3.5));
        assert_eq!(s.outliers, 0);
        assert_eq!(mad(&[3.5; 50]), 0.0);
        assert_eq!(relative_ci_halfwidth(&s), 0.0);
    }

    #[test]
    fn nan_is_ignored() {
        let s = summarize(&[1.0, f64::NAN, 3.0, 2.0, f64::NAN]);
        assert_eq!(s, summarize(&[1.0, 2.0, 3.0]));
        assert_eq!(s.n, 3);
        let s = summarize(&[1.0, f64::INFINITY, 2.0, f64::NEG_INFINITY]);
        assert_eq!(s, summarize(&[1.0, 2.0]));
        assert_eq!(min_max_avg(&[1.0, f64::NAN, 3.0]), Some((1.0, 3.0, 2.0)));
        assert_eq!(min_max_avg(&[f64::NAN, f64::INFINITY]), None);
    }

    #[test]
    fn mad_known_values() {
        // median 3, deviations [2, 1, 0, 1, 2] -> median 1
        assert_eq!(mad(&[1.0, 2.0, 3.0, 4.0, 5.0]), 1.0);
        // median 2.5, deviations [1.5, 0.5, 0.5, 97.5] -> median 1.0
        assert_eq!(mad(&[1.0, 2.0, 3.0, 100.0]), 1.0);
    }

    #[test]
    fn one_obvious_outlier_is_counted() {
        let mut v: Vec<f64> = (0..100).map(|i| 10.0 + (i % 7) as f64 * 0.1).collect();
        v.push(500.0);
        let s = summarize(&v);
        assert_eq!(s.outliers, 1);
        // Symmetric, well-behaved data has no outliers.
        let v: Vec<f64> = (0..100).map(|i| 10.0 + (i % 7) as f64 * 0.1).collect();
        assert_eq!(summarize(&v).outliers, 0);
    }

    #[test]
    fn outlier_with_zero_mad_uses_meanad_fallback() {
        // More than half identical (coarse timer): MAD = 0. The far sample is an
        // outlier, the one-tick-off sample is not.
        let v = [10.0, 10.0, 10.0, 10.0, 10.0, 10.0, 11.0, 50.0];
        assert_eq!(
            mad(&{
                let mut s = v;
                s.sort_by(f64::total_cmp);
                s
            }),
            0.0
        );
        assert_eq!(summarize(&v).outliers, 1);
    }

    #[test]
    fn exact_binomial_ranks_textbook() {
        // n = 10: ranks 2 and 9, coverage 1 - 2 * 11/1024 = 97.85 %.
        assert_eq!(exact_median_ci_ranks(10), (2, 9));
        let cov = 1.0 - 2.0 * binom_cdf(10, 1);
        assert!(close(cov, 0.978_515_625, 1e-12));
        // Rank 3 would only give 89 %.
        assert!(1.0 - 2.0 * binom_cdf(10, 2) < 0.95);
        let x: Vec<f64> = (1..=10).map(f64::from).collect();
        assert_eq!(median_ci95(&x), (2.0, 9.0));
        // Small n: min/max.
        for n in 1..=8 {
            assert_eq!(exact_median_ci_ranks(n), (1, n), "n = {n}");
        }
        assert_eq!(exact_median_ci_ranks(9), (2, 8));
        // Other textbook values (e.g. Conover's tables).
        assert_eq!(exact_median_ci_ranks(20), (6, 15));
        assert_eq!(exact_median_ci_ranks(30), (10, 21));
        assert_eq!(exact_median_ci_ranks(100), (40, 61));
    }

    #[test]
    fn exact_ranks_are_optimal() {
        for n in 6..=200usize {
            let (j, k) = exact_median_ci_ranks(n);
            assert_eq!(k, n + 1 - j);
            let cov = 1.0 - 2.0 * binom_cdf(n, j - 1);
            assert!(cov >= 0.95, "n={n} j={j} cov={cov}");
            if j < n / 2 {
                let narrower = 1.0 - 2.0 * binom_cdf(n, j);
                assert!(narrower < 0.95, "n={n} j={j} not narrowest");
            }
        }
    }

    #[test]
    fn large_n_exact_does_not_underflow() {
        let (j, k) = exact_median_ci_ranks(EXACT_CI_MAX_N);
        assert!(j > 1 && k < EXACT_CI_MAX_N && k == EXACT_CI_MAX_N + 1 - j);
        // Works (log space) even beyond the switch.
        let (j, k) = exact_median_ci_ranks(5000);
        assert!(j > 1 && k == 5001 - j);
    }

    #[test]
    fn normal_approximation_continuous_with_exact() {
        for n in (EXACT_CI_MAX_N - 50)..=(EXACT_CI_MAX_N + 50) {
            let (je, ke) = exact_median_ci_ranks(n);
            let (jn, kn) = normal_median_ci_ranks(n);
            assert!(je.abs_diff(jn) <= 1, "n={n}: exact {je} normal {jn}");
            assert!(ke.abs_diff(kn) <= 1, "n={n}: exact {ke} normal {kn}");
        }
        assert_eq!(normal_median_ci_ranks(1000), (469, 532));
        assert_eq!(exact_median_ci_ranks(1000), (469, 532));
        for &n in &[2000usize, 10_000, 1_000_000] {
            let (je, ke) = exact_median_ci_ranks(n);
            let (jn, kn) = normal_median_ci_ranks(n);
            assert!(je.abs_diff(jn) <= 1 && ke.abs_diff(kn) <= 1, "n={n}");
        }
        // Small n: the approximation is clamped to valid ranks.
        for n in 1..20 {
            let (j, k) = normal_median_ci_ranks(n);
            assert!(1 <= j && j <= k && k <= n);
        }
    }

    #[test]
    fn ci_contains_median_and_narrows() {
        let mut rng = Lcg(42);
        let mut widths = Vec::new();
        for &n in &[5usize, 20, 200, 2000, 20_000] {
            let v: Vec<f64> = (0..n).map(|_| 10.0 + 5.0 * rng.next()).collect();
            let s = summarize(&v);
            assert!(s.ci95_lo <= s.median && s.median <= s.ci95_hi, "n={n}");
            assert!(s.min <= s.ci95_lo && s.ci95_hi <= s.max);
            widths.push(relative_ci_halfwidth(&s));
        }
        for w in widths.windows(2) {
            assert!(w[1] < w[0], "CI did not narrow: {widths:?}");
        }
    }

    #[test]
    fn relative_ci_halfwidth_edge_cases() {
        let s = Summary {
            n: 10,
            median: 0.0,
            ..Summary::default()
        };
        assert_eq!(relative_ci_halfwidth(&s), f64::INFINITY);
        let s = Summary {
            n: 10,
            median: -1.0,
            ci95_lo: -2.0,
            ci95_hi: 0.0,
            ..Summary::default()
        };
        assert_eq!(relative_ci_halfwidth(&s), f64::INFINITY);
        let s = Summary {
            n: 10,
            median: 2.0,
            ci95_lo: 1.0,
            ci95_hi: 3.0,
            ..Summary::default()
        };
        assert!(close(relative_ci_halfwidth(&s), 0.5, 1e-15));
    }

    #[test]
    fn min_max_avg_reduction() {
        assert_eq!(min_max_avg(&[3.0, 1.0, 2.0]), Some((1.0, 3.0, 2.0)));
        assert_eq!(min_max_avg(&[-1.0]), Some((-1.0, -1.0, -1.0)));
    }

    #[test]
    fn never_nan() {
        let mut rng = Lcg(7);
        let random: Vec<f64> = (0..777).map(|_| rng.next() * 1e3).collect();
        let inputs: Vec<Vec<f64>> = vec![
            vec![],
            vec![0.0],
            vec![-0.0, 0.0],
            vec![f64::NAN],
            vec![f64::INFINITY, f64::NEG_INFINITY, f64::NAN],
            vec![1.0, f64::NAN],
            vec![f64::MAX, f64::MAX, f64::MAX],
            vec![f64::MAX, -f64::MAX, 0.0],
            vec![f64::MIN_POSITIVE, 5e-324, 0.0],
            vec![1e300, 1e-300, -1e300, 0.0, 3.0],
            vec![0.0; 1500],
            vec![1.0, 1.0, 1.0, 1e9],
            random.clone(),
            (0..3000).map(|i| (i % 13) as f64).collect(),
        ];
        for v in &inputs {
            let s = summarize(v);
            assert!(
                all_finite(&s),
                "NaN/inf in {s:?} for input of len {}",
                v.len()
            );
            let r = relative_ci_halfwidth(&s);
            assert!(!r.is_nan());
            if let Some((a, b, c)) = min_max_avg(v) {
                assert!(!a.is_nan() && !b.is_nan() && !c.is_nan());
            }
            let mut sorted: Vec<f64> = v.iter().copied().filter(|x| x.is_finite()).collect();
            sorted.sort_by(f64::total_cmp);
            assert!(!mad(&sorted).is_nan());
            for p in [0.0, 5.0, 50.0, 95.0, 100.0, f64::NAN] {
                assert!(!percentile(&sorted, p).is_nan());
            }
        }
    }
}
