//! The combination of N launches (`--launches N`): one result per result of
//! the first launch, each row made from the same row of every launch.
//!
//! * `launch_medians_us`: each launch's median of the row (its t_avg where
//!   it has no median); `t_median_us` is their median, and `ci95_lo_us` /
//!   `ci95_hi_us` (also as `between_ci95_*`) the order-statistics CI over
//!   the launches (`stats::launch_spread`).
//! * `within_spread_us` (the median of the launches' own CI widths) beside
//!   `between_spread_us` (the range of the launch medians);
//!   `launch_spread_dominates` when the second is larger.
//! * t_min / t_max / t_avg and the other figures: the median over the
//!   launches of each; counts (repetitions, samples, errors): their sums.
//! * The samples stay with each launch (`Report::launches`): pooled, they
//!   would claim the precision one launch overstates.

use crate::results::{BenchResult, Figures, Row};
use crate::stats;

/// The combination of the launches' results (each launch's results, in
/// launch order; the first launch's results give the order and keys).
pub fn combine(launches: &[&[BenchResult]]) -> Vec<BenchResult> {
    let Some(first) = launches.first() else {
        return Vec::new();
    };
    let key = |r: &BenchResult| {
        (
            r.suite.clone(),
            r.benchmark.clone(),
            r.processes,
            r.mode.clone(),
            r.repeat,
            r.aggregate,
        )
    };
    first
        .iter()
        .enumerate()
        .map(|(i, r)| {
            if r.skipped.is_some() || r.measures_instruments() {
                return r.clone();
            }
            // The same result of every launch: at the same place, else by key.
            let same: Vec<&BenchResult> = launches
                .iter()
                .filter_map(|l| {
                    l.get(i)
                        .filter(|x| key(x) == key(r))
                        .or_else(|| l.iter().find(|x| key(x) == key(r)))
                })
                .collect();
            let rows = r
                .rows
                .iter()
                .map(|row| {
                    let rows: Vec<&Row> = same
                        .iter()
                        .filter_map(|x| {
                            x.rows
                                .iter()
                                .find(|y| y.bytes == row.bytes && y.params == row.params)
                        })
                        .collect();
                    combine_row(&rows)
                })
                .collect();
            BenchResult {
                rows,
                group_rows: Vec::new(),
                // Derived from one launch's rows: they stay with it.
                figures: Figures::default(),
                ..r.clone()
            }
        })
        .collect()
}

/// The median of the finite values (None without one).
fn median(values: impl Iterator<Item = f64>) -> Option<f64> {
    let mut v: Vec<f64> = values.filter(|x| x.is_finite()).collect();
    v.sort_by(f64::total_cmp);
    (!v.is_empty()).then(|| stats::percentile(&v, 50.0))
}

/// One combined row from the same row of every launch (at least one).
pub fn combine_row(same: &[&Row]) -> Row {
    let first = same[0];
    let med = |f: fn(&Row) -> Option<f64>| median(same.iter().filter_map(|x| f(x)));
    let sum = |f: fn(&Row) -> Option<u64>| -> Option<u64> {
        same.iter().filter_map(|x| f(x)).reduce(|a, b| a + b)
    };
    let any = |f: fn(&Row) -> Option<bool>| -> Option<bool> {
        same.iter().filter_map(|x| f(x)).reduce(|a, b| a || b)
    };
    let launch_median = |x: &Row| x.t_median_us.unwrap_or(x.t_avg_us);
    // A CI of fewer than two values (loop timing's one figure) is none.
    let ci_width = |x: &Row| match (x.ci95_lo_us, x.ci95_hi_us) {
        (Some(lo), Some(hi)) if x.samples_n.or(x.valid).unwrap_or(0) >= 2 => Some(hi - lo),
        _ => None,
    };
    let spread = stats::launch_spread(
        &same
            .iter()
            .map(|x| (launch_median(x), ci_width(x)))
            .collect::<Vec<_>>(),
    );
    let mut notes: Vec<String> = Vec::new();
    for (k, x) in same.iter().enumerate() {
        if let Some(n) = &x.note {
            notes.push(format!("launch {}: {n}", k + 1));
        }
    }
    Row {
        bytes: first.bytes,
        params: first.params.clone(),
        repetitions: same.iter().map(|x| x.repetitions).sum(),
        t_min_us: med(|x| Some(x.t_min_us)).unwrap_or(f64::NAN),
        t_max_us: med(|x| Some(x.t_max_us)).unwrap_or(f64::NAN),
        t_avg_us: med(|x| Some(x.t_avg_us)).unwrap_or(f64::NAN),
        mbytes_per_sec: med(|x| x.mbytes_per_sec),
        errors: first.errors.and(sum(|x| x.errors)),
        t_median_us: spread.map(|s| s.median),
        t_p5_us: med(|x| x.t_p5_us),
        t_p95_us: med(|x| x.t_p95_us),
        ci95_lo_us: spread.map(|s| s.ci95_lo),
        ci95_hi_us: spread.map(|s| s.ci95_hi),
        valid: sum(|x| x.valid),
        invalid: sum(|x| x.invalid),
        outliers: sum(|x| x.outliers),
        t_global_us: med(|x| x.t_global_us),
        stopped_on_bound: any(|x| x.stopped_on_bound),
        msg_per_sec: med(|x| x.msg_per_sec),
        t_stddev_us: med(|x| x.t_stddev_us),
        samples_us: None,
        samples_n: sum(|x| x.samples_n),
        below_resolution: any(|x| x.below_resolution),
        window_us: med(|x| x.window_us),
        skew_us: med(|x| x.skew_us),
        discrepant: any(|x| x.discrepant),
        disturbed: any(|x| x.disturbed),
        note: (!notes.is_empty()).then(|| notes.join("; ")),
        t_median_min_us: med(|x| x.t_median_min_us),
        t_median_max_us: med(|x| x.t_median_max_us),
        t_median_avg_us: med(|x| x.t_median_avg_us),
        launch_medians_us: Some(same.iter().map(|x| launch_median(x)).collect()),
        between_ci95_lo_us: spread.map(|s| s.ci95_lo),
        between_ci95_hi_us: spread.map(|s| s.ci95_hi),
        within_spread_us: spread.and_then(|s| s.within),
        between_spread_us: spread.map(|s| s.between),
        launch_spread_dominates: spread
            .filter(|s| s.within.is_some())
            .map(|s| s.between_dominates()),
        ..Row::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(bytes: usize, median: f64, ci: f64) -> Row {
        Row {
            bytes,
            repetitions: 100,
            t_min_us: median - 1.0,
            t_max_us: median + 1.0,
            t_avg_us: median + 0.5,
            mbytes_per_sec: Some(bytes as f64 / median),
            errors: Some(0),
            t_median_us: Some(median),
            ci95_lo_us: Some(median - ci / 2.0),
            ci95_hi_us: Some(median + ci / 2.0),
            valid: Some(100),
            samples_us: Some(vec![median; 3]),
            samples_n: Some(100),
            ..Row::default()
        }
    }

    fn result(rows: Vec<Row>) -> BenchResult {
        BenchResult {
            benchmark: "PingPong".into(),
            suite: "imb".into(),
            processes: 2,
            mode: "primary".into(),
            rows,
            ..BenchResult::default()
        }
    }

    #[test]
    fn rows_combine_into_the_median_of_launch_medians_with_both_spreads() {
        let a = [result(vec![row(8, 1.0, 0.02), row(16, 2.0, 0.02)])];
        let b = [result(vec![row(8, 1.2, 0.04), row(16, 2.0, 0.02)])];
        let c = [result(vec![row(8, 1.1, 0.03), row(16, 2.01, 0.02)])];
        let out = combine(&[&a, &b, &c]);
        assert_eq!(out.len(), 1);
        let r = &out[0].rows[0];
        assert_eq!(r.launch_medians_us, Some(vec![1.0, 1.2, 1.1]));
        assert_eq!(r.t_median_us, Some(1.1));
        assert_eq!((r.ci95_lo_us, r.ci95_hi_us), (Some(1.0), Some(1.2)));
        assert_eq!(
            (r.between_ci95_lo_us, r.between_ci95_hi_us),
            (r.ci95_lo_us, r.ci95_hi_us)
        );
        assert!((r.within_spread_us.unwrap() - 0.03).abs() < 1e-12);
        assert!((r.between_spread_us.unwrap() - 0.2).abs() < 1e-12);
        assert_eq!(r.launch_spread_dominates, Some(true));
        assert!((r.t_avg_us - 1.6).abs() < 1e-12);
        assert_eq!(
            (r.repetitions, r.samples_n, r.errors),
            (300, Some(300), Some(0))
        );
        assert_eq!(r.samples_us, None);
        // Launches within each other's CIs: not flagged.
        let r = &out[0].rows[1];
        assert_eq!(r.t_median_us, Some(2.0));
        assert_eq!(r.launch_spread_dominates, Some(false));
    }

    #[test]
    fn rows_match_by_size_and_results_by_key_and_notes_name_their_launch() {
        let a = [result(vec![row(8, 1.0, 0.1), row(16, 2.0, 0.1)])];
        let mut other = result(vec![row(16, 3.0, 0.1), row(8, 5.0, 0.1)]);
        other.rows[1].note = Some("disturbed".into());
        let skipped = BenchResult {
            benchmark: "Bcast".into(),
            skipped: Some("too few ranks".into()),
            ..BenchResult::default()
        };
        let b = [skipped.clone(), other];
        let out = combine(&[&a, &b]);
        assert_eq!(out[0].rows[0].launch_medians_us, Some(vec![1.0, 5.0]));
        assert_eq!(out[0].rows[1].launch_medians_us, Some(vec![2.0, 3.0]));
        assert_eq!(out[0].rows[0].note.as_deref(), Some("launch 2: disturbed"));
        // A skipped result passes through unchanged.
        let one = std::slice::from_ref(&skipped);
        let out = combine(&[one, one]);
        assert_eq!(out[0].skipped.as_deref(), Some("too few ranks"));
        assert_eq!(combine(&[]).len(), 0);
    }

    #[test]
    fn loop_timing_without_a_median_uses_t_avg_and_claims_no_within_spread() {
        let mut x = row(8, 1.0, 0.0);
        x.t_median_us = None;
        x.ci95_lo_us = None;
        x.ci95_hi_us = None;
        let mut y = x.clone();
        y.t_avg_us = 2.0;
        let r = combine_row(&[&x, &y]);
        assert_eq!(r.launch_medians_us, Some(vec![1.5, 2.0]));
        assert_eq!(
            (r.within_spread_us, r.launch_spread_dominates),
            (None, None)
        );
        assert_eq!(r.between_spread_us, Some(0.5));
        // One figure per launch (IMB's loop: a CI of one value): the same.
        let mut x = row(8, 1.0, 0.0);
        x.samples_n = None;
        x.valid = Some(1);
        let r = combine_row(&[&x, &x]);
        assert_eq!(
            (r.within_spread_us, r.launch_spread_dominates),
            (None, None)
        );
    }
}
