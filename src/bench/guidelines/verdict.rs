//! The verdict of one guideline at one size: is the specialised collective
//! slower than its mock-up?
//!
//! The two sides ran in the same launch, interleaved point by point, under
//! the same method, and each row keeps its per-repetition values (the
//! maximum over ranks of each repetition, up to 1024 of them). The rule:
//!
//! * ratio = median(collective) / median(mock-up);
//! * p = one-sided Mann–Whitney U test of "the collective's values tend to
//!   be larger" (`stats_test::greater`);
//! * **violated** when ratio > 1 + [`TOLERANCE`] and p < [`ALPHA`];
//! * **holds** when ratio ≤ 1 + [`TOLERANCE`];
//! * **inconclusive** otherwise: slower by more than the tolerance but not
//!   significantly, or without per-repetition values (loop timing) or
//!   with fewer than [`MIN_SAMPLES`] on a side.
//!
//! Over launches (`--launches N`), each side's values are its launch
//! medians, and the same rule holds with [`MIN_LAUNCHES`] in place of
//! [`MIN_SAMPLES`]: a guideline is violated over the launches only when the
//! launch medians of the collective are significantly larger than the
//! mock-up's (with 4 launches, all four above: p = 1/70).
//!
//! The tolerance keeps differences the size of launch-to-launch noise
//! (3–6 % here) from being reported as bugs; the test keeps a lucky median
//! from being one.

use crate::stats_test;

/// Significance level of the one-sided test.
pub const ALPHA: f64 = 0.05;

/// The collective may be this much slower (relative) and the guideline holds.
pub const TOLERANCE: f64 = 0.05;

/// Fewer values than this on either side cannot violate a guideline.
pub const MIN_SAMPLES: usize = 5;

/// Fewer launches than this cannot violate a guideline over launches (with
/// 3, the smallest one-sided p is 1/20, not below [`ALPHA`]).
pub const MIN_LAUNCHES: usize = 4;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    Holds,
    Violated,
    Inconclusive,
}

impl Verdict {
    /// The name in the JSON and the tables.
    pub fn name(self) -> &'static str {
        match self {
            Verdict::Holds => "holds",
            Verdict::Violated => "violated",
            Verdict::Inconclusive => "inconclusive",
        }
    }
}

/// What a verdict rests on.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Judged {
    pub ratio: f64,
    pub p_value: Option<f64>,
    pub verdict: Verdict,
}

/// The verdict from the two medians and, where there are enough, the two
/// sides' per-repetition values.
pub fn judge(
    t_collective: f64,
    t_mockup: f64,
    collective: Option<&[f64]>,
    mockup: Option<&[f64]>,
) -> Judged {
    judge_with(t_collective, t_mockup, collective, mockup, MIN_SAMPLES)
}

/// The verdict over launches: the medians of the launch medians, and the
/// launch medians as each side's values.
pub fn judge_launches(
    t_collective: f64,
    t_mockup: f64,
    collective: &[f64],
    mockup: &[f64],
) -> Judged {
    judge_with(
        t_collective,
        t_mockup,
        Some(collective),
        Some(mockup),
        MIN_LAUNCHES,
    )
}

fn judge_with(
    t_collective: f64,
    t_mockup: f64,
    collective: Option<&[f64]>,
    mockup: Option<&[f64]>,
    min: usize,
) -> Judged {
    let ratio = t_collective / t_mockup;
    let p_value = match (
        collective.filter(|v| v.len() >= min),
        mockup.filter(|v| v.len() >= min),
    ) {
        (Some(a), Some(b)) => stats_test::greater(a, b),
        _ => None,
    };
    let verdict = if !ratio.is_finite() {
        Verdict::Inconclusive
    } else if ratio <= 1.0 + TOLERANCE {
        Verdict::Holds
    } else if p_value.is_some_and(|p| p < ALPHA) {
        Verdict::Violated
    } else {
        Verdict::Inconclusive
    };
    Judged {
        ratio,
        p_value,
        verdict,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `n` values around `t` with a spread of ±`noise` (relative),
    /// deterministic.
    fn noisy(t: f64, noise: f64, n: usize, seed: u64) -> Vec<f64> {
        let mut x = seed.wrapping_mul(6364136223846793005).wrapping_add(1);
        (0..n)
            .map(|_| {
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let u = (x >> 11) as f64 / (1u64 << 53) as f64;
                t * (1.0 + noise * (2.0 * u - 1.0))
            })
            .collect()
    }

    fn median(v: &[f64]) -> f64 {
        let mut s = v.to_vec();
        s.sort_by(f64::total_cmp);
        s[s.len() / 2]
    }

    fn judged(a: &[f64], b: &[f64]) -> Judged {
        judge(median(a), median(b), Some(a), Some(b))
    }

    #[test]
    fn over_launches_the_launch_medians_decide() {
        // Two launches, each VIOLATED on its own: two replicates cannot
        // tell a violation from launch-to-launch noise.
        let j = judge_launches(13.0, 10.0, &[12.9, 13.1], &[10.0, 10.1]);
        assert_eq!(j.verdict, Verdict::Inconclusive, "{j:?}");
        assert_eq!(j.p_value, None);
        // Four launches, every collective median above every mock-up's.
        let j = judge_launches(
            13.0,
            10.0,
            &[12.9, 13.1, 13.0, 12.8],
            &[10.0, 10.1, 9.9, 10.2],
        );
        assert_eq!(j.verdict, Verdict::Violated, "{j:?}");
        assert!((j.p_value.unwrap() - 1.0 / 70.0).abs() < 1e-3, "{j:?}");
        // Interleaved launch medians: slower by the ratio, not significantly.
        let j = judge_launches(
            11.0,
            10.0,
            &[9.0, 12.0, 10.5, 13.0],
            &[10.0, 11.0, 9.5, 12.5],
        );
        assert_eq!(j.verdict, Verdict::Inconclusive, "{j:?}");
        // Within the tolerance: holds, whatever the count.
        assert_eq!(
            judge_launches(10.2, 10.0, &[10.2], &[10.0]).verdict,
            Verdict::Holds
        );
    }

    #[test]
    fn a_clearly_faster_collective_holds() {
        let j = judged(&noisy(5.0, 0.1, 200, 1), &noisy(10.0, 0.1, 200, 2));
        assert_eq!(j.verdict, Verdict::Holds, "{j:?}");
        assert!(j.ratio < 0.6 && j.p_value.unwrap() > 0.99, "{j:?}");
    }

    #[test]
    fn a_clearly_slower_collective_violates() {
        let j = judged(&noisy(13.0, 0.1, 200, 3), &noisy(10.0, 0.1, 200, 4));
        assert_eq!(j.verdict, Verdict::Violated, "{j:?}");
        assert!(j.ratio > 1.2 && j.p_value.unwrap() < 1e-6, "{j:?}");
    }

    #[test]
    fn sides_indistinguishable_within_noise_do_not_violate() {
        // The same distribution: the ratio stays within the tolerance.
        let j = judged(&noisy(10.0, 0.3, 200, 5), &noisy(10.0, 0.3, 200, 6));
        assert_eq!(j.verdict, Verdict::Holds, "{j:?}");
        // Slower by more than the tolerance on few, very noisy values: not
        // significant, so not a violation either.
        let a = [10.0, 30.0, 5.0, 22.0, 9.0, 40.0];
        let b = [8.0, 35.0, 6.0, 20.0, 7.0, 31.0];
        let j = judge(16.0, 14.0, Some(&a), Some(&b));
        assert_eq!(j.verdict, Verdict::Inconclusive, "{j:?}");
        assert!(j.p_value.unwrap() >= ALPHA, "{j:?}");
    }

    #[test]
    fn without_values_a_slower_collective_is_inconclusive() {
        let j = judge(12.0, 10.0, None, None);
        assert_eq!((j.verdict, j.p_value), (Verdict::Inconclusive, None));
        assert_eq!(judge(9.0, 10.0, None, None).verdict, Verdict::Holds);
        // Too few values on a side.
        let j = judge(20.0, 10.0, Some(&[20.0; 4]), Some(&[10.0; 100]));
        assert_eq!(j.verdict, Verdict::Inconclusive);
        assert_eq!(
            judge(f64::NAN, 1.0, None, None).verdict,
            Verdict::Inconclusive
        );
    }
}
