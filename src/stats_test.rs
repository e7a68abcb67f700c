//! Significance tests for `compare` and the guidelines' verdicts: the
//! Mann–Whitney U test (two-sided, and one-sided from it), exact for small
//! samples without ties, normal approximation with tie and continuity
//! correction otherwise.

/// Both samples at most this large and no ties: exact distribution of U.
const EXACT_MAX_N: usize = 20;

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MannWhitney {
    /// U of the first sample: the number of pairs (a, b) with a > b, ties counting ½.
    pub u: f64,
    /// Two-sided p-value of "both samples come from the same distribution".
    pub p: f64,
    /// True when `p` is from the exact distribution of U.
    pub exact: bool,
}

/// One-sided Mann–Whitney test: the p-value of "`a` tends to be larger
/// than `b`" against "both come from the same distribution" (half the
/// two-sided p-value in the direction the data lean, one minus it in the
/// other). None when either sample is empty.
pub fn greater(a: &[f64], b: &[f64]) -> Option<f64> {
    let mw = mann_whitney(a, b)?;
    let n = |v: &[f64]| v.iter().filter(|x| x.is_finite()).count() as f64;
    let half = n(a) * n(b) / 2.0;
    Some(if mw.u > half {
        mw.p / 2.0
    } else {
        1.0 - mw.p / 2.0
    })
}

/// Ranks 1..n of `all` (ties get their average rank) and Σ(t³ − t) over tie groups.
fn ranks(all: &[(f64, bool)]) -> (Vec<f64>, f64) {
    let mut idx: Vec<usize> = (0..all.len()).collect();
    idx.sort_by(|&i, &j| all[i].0.total_cmp(&all[j].0));
    let mut r = vec![0.0; all.len()];
    let mut ties = 0.0;
    let mut i = 0;
    while i < idx.len() {
        let mut j = i;
        while j + 1 < idx.len() && all[idx[j + 1]].0 == all[idx[i]].0 {
            j += 1;
        }
        let avg = (i + j) as f64 / 2.0 + 1.0;
        for &k in &idx[i..=j] {
            r[k] = avg;
        }
        let t = (j - i + 1) as f64;
        ties += t * t * t - t;
        i = j + 1;
    }
    (r, ties)
}

/// Mann–Whitney U test of `a` against `b` (non-finite values are dropped).
/// None when either sample is empty.
pub fn mann_whitney(a: &[f64], b: &[f64]) -> Option<MannWhitney> {
    let a: Vec<f64> = a.iter().copied().filter(|v| v.is_finite()).collect();
    let b: Vec<f64> = b.iter().copied().filter(|v| v.is_finite()).collect();
    let (n1, n2) = (a.len(), b.len());
    if n1 == 0 || n2 == 0 {
        return None;
    }
    let all: Vec<(f64, bool)> = a
        .iter()
        .map(|&v| (v, true))
        .chain(b.iter().map(|&v| (v, false)))
        .collect();
    let (r, ties) = ranks(&all);
    let r1: f64 = r
        .iter()
        .zip(&all)
        .filter(|(_, x)| x.1)
        .map(|(r, _)| r)
        .sum();
    let f1 = n1 as f64;
    let u = r1 - f1 * (f1 + 1.0) / 2.0;
    if n1 <= EXACT_MAX_N && n2 <= EXACT_MAX_N && ties == 0.0 {
        return Some(MannWhitney {
            u,
            p: exact_p(n1, n2, u),
            exact: true,
        });
    }
    Some(MannWhitney {
        u,
        p: normal_p(n1, n2, u, ties),
        exact: false,
    })
}

/// Two-sided p-value from the normal approximation of U, with the tie
/// correction of the variance (`ties` = Σ(t³ − t)) and a continuity correction.
fn normal_p(n1: usize, n2: usize, u: f64, ties: f64) -> f64 {
    let (f1, f2) = (n1 as f64, n2 as f64);
    let n = f1 + f2;
    let mean = f1 * f2 / 2.0;
    let var = f1 * f2 / 12.0 * ((n + 1.0) - ties / (n * (n - 1.0)));
    if var <= 0.0 {
        return 1.0;
    }
    let z = ((u - mean).abs() - 0.5).max(0.0) / var.sqrt();
    (2.0 * normal_sf(z)).min(1.0)
}

/// Two-sided exact p-value: 2·min(P(U ≤ u), P(U ≥ u)) under H0, from the
/// number of arrangements with each U (the recursion of Mann and Whitney).
fn exact_p(n1: usize, n2: usize, u: f64) -> f64 {
    let max_u = n1 * n2;
    // counts[i][j][k]: arrangements of i and j values with U = k; built
    // over j for each i with f(i, j, k) = f(i-1, j, k-j) + f(i, j-1, k).
    let mut prev: Vec<Vec<f64>> = (0..=n2).map(|_| vec![1.0]).collect(); // i = 0
    for i in 1..=n1 {
        let mut cur: Vec<Vec<f64>> = vec![vec![1.0]]; // j = 0: only U = 0
        for j in 1..=n2 {
            let len = i * j + 1;
            let mut v = vec![0.0; len];
            for (k, slot) in v.iter_mut().enumerate() {
                let a = if k >= j {
                    prev[j].get(k - j).copied().unwrap_or(0.0)
                } else {
                    0.0
                };
                let b = cur[j - 1].get(k).copied().unwrap_or(0.0);
                *slot = a + b;
            }
            cur.push(v);
        }
        prev = cur;
    }
    let dist = &prev[n2];
    let total: f64 = dist.iter().sum();
    let k = u.round().clamp(0.0, max_u as f64) as usize;
    let le: f64 = dist[..=k].iter().sum::<f64>() / total;
    let ge: f64 = dist[k..].iter().sum::<f64>() / total;
    (2.0 * le.min(ge)).min(1.0)
}

/// P(Z > z) for a standard normal Z (erfc, Numerical Recipes' Chebyshev
/// fit, relative error below 1.2e-7).
pub fn normal_sf(z: f64) -> f64 {
    0.5 * erfc(z / std::f64::consts::SQRT_2)
}

fn erfc(x: f64) -> f64 {
    let z = x.abs();
    let t = 1.0 / (1.0 + 0.5 * z);
    let r = t
        * (-z * z - 1.26551223
            + t * (1.00002368
                + t * (0.37409196
                    + t * (0.09678418
                        + t * (-0.18628806
                            + t * (0.27886807
                                + t * (-1.13520398
                                    + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277)))))))))
            .exp();
    if x >= 0.0 {
        r
    } else {
        2.0 - r
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_sided_follows_the_direction_of_the_data() {
        let males = [19.0, 22.0, 16.0, 29.0, 24.0];
        let females = [20.0, 11.0, 17.0, 12.0];
        // Males lean larger: half the two-sided 1/9; the other way, 1 − 1/18.
        assert!((greater(&males, &females).unwrap() - 1.0 / 18.0).abs() < 1e-12);
        assert!((greater(&females, &males).unwrap() - 17.0 / 18.0).abs() < 1e-12);
        assert_eq!(greater(&[], &males), None);
    }

    #[test]
    fn textbook_exact() {
        // SciPy's documented example (mannwhitneyu): ages of male and female
        // staff; U1 = 17, exact two-sided p = 1/9 = 0.1111.
        let males = [19.0, 22.0, 16.0, 29.0, 24.0];
        let females = [20.0, 11.0, 17.0, 12.0];
        let r = mann_whitney(&males, &females).unwrap();
        assert_eq!(r.u, 17.0);
        assert!(r.exact);
        assert!((r.p - 1.0 / 9.0).abs() < 1e-12, "{}", r.p);
        // U of the other sample is n1·n2 − U1, same p.
        let s = mann_whitney(&females, &males).unwrap();
        assert_eq!(s.u, 3.0);
        assert!((s.p - r.p).abs() < 1e-12);
    }

    #[test]
    fn textbook_normal_approximation() {
        // The same data through the normal approximation with continuity
        // correction: z = (|17 − 10| − 0.5)/sqrt(50/3) = 1.5922; SciPy's
        // method="asymptotic" gives p = 0.11134688653314041.
        let p = normal_p(5, 4, 17.0, 0.0);
        assert!((p - 0.111_346_886_533_140_41).abs() < 1e-6, "{p}");
        // A tie (24, 24) forces the approximation in `mann_whitney`.
        let r = mann_whitney(
            &[19.0, 22.0, 16.0, 29.0, 24.0, 24.0],
            &[20.0, 11.0, 17.0, 12.0],
        );
        let r = r.unwrap();
        assert!(!r.exact);
        assert_eq!(r.u, 21.0);
        assert!(r.p > 0.05 && r.p < 0.2, "{}", r.p);
    }

    #[test]
    fn exact_distribution_small() {
        // n1 = n2 = 3: U takes 0..9 with counts 1,1,2,3,3,3,3,2,1,1 (20 arrangements).
        assert!((exact_p(3, 3, 0.0) - 2.0 / 20.0).abs() < 1e-12);
        assert!((exact_p(3, 3, 9.0) - 2.0 / 20.0).abs() < 1e-12);
        assert!((exact_p(3, 3, 1.0) - 4.0 / 20.0).abs() < 1e-12);
        assert_eq!(exact_p(3, 3, 4.0), 1.0);
    }

    #[test]
    fn normal_tail() {
        assert!((normal_sf(0.0) - 0.5).abs() < 1e-7);
        assert!((normal_sf(1.959964) - 0.025).abs() < 1e-6);
        assert!((normal_sf(-1.959964) - 0.975).abs() < 1e-6);
    }

    #[test]
    fn separated_and_identical_samples() {
        let a: Vec<f64> = (0..200).map(|i| 10.0 + (i % 17) as f64 * 0.01).collect();
        let b: Vec<f64> = a.iter().map(|v| v * 1.3).collect();
        assert!(mann_whitney(&a, &b).unwrap().p < 1e-10);
        assert!(mann_whitney(&a, &a).unwrap().p > 0.99);
        assert!(mann_whitney(&a, &[]).is_none());
        // All values equal: no evidence either way.
        assert_eq!(mann_whitney(&[1.0; 30], &[1.0; 30]).unwrap().p, 1.0);
    }
}
