//! The aggregate of R runs of the whole list (`--repeats R`, MPITEST's R):
//! one result per (suite, benchmark, process count, mode), each row made
//! from the same row of every run.
//!
//! * t_min / t_max / t_avg: the minimum, maximum and mean over the runs of
//!   each run's t_avg. Runs without a figure (no valid sample) are left
//!   out and counted in a note; with none at all the row has no figure
//!   (null, "-"), never 0.
//! * The median, its 95% CI, p5 / p95 and the outliers: of the runs'
//!   samples pooled (`samples_us`; where a run kept more than
//!   [`KEEP_SAMPLES`], its evenly spaced order statistics stand for them,
//!   which only widens the CI).
//! * `below_resolution` (methods that subtract, MPITEST): whether the CI of
//!   the pooled median contains zero. Such a row has no throughput.

use super::record::{KEEP_SAMPLES, NO_FIGURE};
use crate::contract::Method;
use crate::results::{BenchResult, Row};
use crate::stats;

/// The aggregates of the runs among `results` (those with `repeat` set).
pub fn aggregates(results: &[BenchResult]) -> Vec<BenchResult> {
    let mut out: Vec<BenchResult> = Vec::new();
    let key = |r: &BenchResult| {
        (
            r.suite.clone(),
            r.benchmark.clone(),
            r.processes,
            r.mode.clone(),
        )
    };
    for r in results
        .iter()
        .filter(|r| r.repeat.is_some() && r.skipped.is_none())
    {
        if out.iter().any(|a| key(a) == key(r)) {
            continue;
        }
        let runs: Vec<&BenchResult> = results
            .iter()
            .filter(|x| x.repeat.is_some() && x.skipped.is_none() && key(x) == key(r))
            .collect();
        let mean_is_figure = r
            .method
            .as_deref()
            .and_then(Method::by_name)
            .is_some_and(Method::figure_is_mean);
        let rows = (0..r.rows.len())
            .map(|i| {
                let same: Vec<&Row> = runs.iter().filter_map(|x| x.rows.get(i)).collect();
                row(&same, mean_is_figure)
            })
            .collect();
        let mean = |f: fn(&BenchResult) -> Option<f64>| {
            let v: Vec<f64> = runs.iter().filter_map(|x| f(x)).collect();
            stats::min_max_avg(&v).map(|m| m.2)
        };
        out.push(BenchResult {
            repeat: None,
            aggregate: true,
            rows,
            group_rows: Vec::new(),
            // Calibrated per run (MPITEST's DT and DB): their mean.
            dt_us: mean(|x| x.dt_us),
            db_us: mean(|x| x.db_us),
            ..r.clone()
        });
    }
    out
}

/// One aggregate row from the same row of every run (at least one);
/// `mean_is_figure`: the runs' figure is their mean (MPITEST's t), so a
/// mean at or below zero is below resolution too.
pub fn row(same: &[&Row], mean_is_figure: bool) -> Row {
    let first = same[0];
    let runs = same.len();
    let t: Vec<f64> = same.iter().map(|x| x.t_avg_us).collect();
    let below_run = |x: &Row| x.below_resolution == Some(true);
    let resolved: Vec<f64> = same
        .iter()
        .filter(|x| !below_run(x))
        .map(|x| x.t_avg_us)
        .collect();
    let left_out = same
        .iter()
        .filter(|x| below_run(x) && x.t_avg_us.is_finite())
        .count();
    // Every run with a figure is below resolution: their figures stay (in
    // the JSON), and the row is below resolution too.
    let all_below = stats::min_max_avg(&resolved).is_none() && left_out > 0;
    let figure = stats::min_max_avg(if all_below { &t } else { &resolved });
    let (lo, hi, avg) = figure.unwrap_or(NO_FIGURE);
    let sum = |f: fn(&Row) -> Option<u64>| -> Option<u64> {
        same.iter().filter_map(|x| f(x)).reduce(|a, b| a + b)
    };
    let mut row = Row {
        bytes: first.bytes,
        params: first.params.clone(),
        repetitions: same.iter().map(|x| x.repetitions).sum(),
        t_min_us: lo,
        t_max_us: hi,
        t_avg_us: avg,
        errors: first.errors.and(sum(|x| x.errors)),
        valid: sum(|x| x.valid),
        invalid: sum(|x| x.invalid),
        ..Row::default()
    };
    let pooled: Vec<f64> = same
        .iter()
        .filter_map(|x| x.samples_us.as_deref())
        .flatten()
        .copied()
        .collect();
    let summary = (!pooled.is_empty()).then(|| stats::summarize(&pooled));
    if let Some(s) = &summary {
        super::record::summarised(&mut row, s, true);
        row.samples_n = sum(|x| x.samples_n);
        row.samples_us = Some(stats::order_statistics(&pooled, KEEP_SAMPLES));
    }
    let mut why: Option<String> = None;
    if same.iter().any(|x| x.below_resolution.is_some()) {
        why = summary
            .as_ref()
            .and_then(|s| stats::below_resolution(s, false))
            .map(|w| format!("{w} (the repeats' samples pooled)"))
            .or_else(|| {
                (mean_is_figure && avg <= 0.0)
                    .then(|| "the mean over the repeats is not positive".into())
            })
            .or_else(|| all_below.then(|| "every repeat was below resolution".into()));
        row.below_resolution = Some(why.is_some());
    }
    let mb: Vec<f64> = same.iter().filter_map(|x| x.mbytes_per_sec).collect();
    row.mbytes_per_sec = stats::min_max_avg(&mb)
        .map(|m| m.2)
        .filter(|_| why.is_none() && avg.is_finite() && avg > 0.0);
    let empty = t.iter().filter(|x| !x.is_finite()).count();
    let mut notes: Vec<String> = Vec::new();
    if figure.is_none() {
        notes.push(format!(
            "no valid sample in any of the {runs} repeats: statistics are null"
        ));
    } else if empty > 0 {
        notes.push(format!("{empty} of {runs} repeats had no valid sample"));
    }
    if left_out > 0 && !all_below {
        notes.push(format!(
            "{left_out} of {runs} repeats below resolution, left out of t_min/t_max/t_avg"
        ));
    }
    if let Some(w) = why {
        notes.push(format!("below resolution: {w}"));
    }
    row.note = (!notes.is_empty()).then(|| notes.join("; "));
    row
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(t: f64, samples: &[f64], below: Option<bool>) -> Row {
        Row {
            bytes: 40,
            repetitions: samples.len(),
            t_min_us: t,
            t_max_us: t,
            t_avg_us: t,
            mbytes_per_sec: (t > 0.0).then(|| 40.0 / 1.048576 / t),
            errors: Some(0),
            valid: Some(samples.len() as u64),
            invalid: Some(0),
            samples_us: Some(samples.to_vec()),
            samples_n: Some(samples.len() as u64),
            below_resolution: below,
            ..Row::default()
        }
    }

    #[test]
    fn means_over_runs_and_statistics_of_the_pooled_samples() {
        let a = run(2.0, &[1.0, 2.0, 3.0], Some(false));
        let b = run(4.0, &[3.0, 4.0, 5.0], Some(false));
        let r = row(&[&a, &b], true);
        assert_eq!((r.t_min_us, r.t_max_us, r.t_avg_us), (2.0, 4.0, 3.0));
        assert_eq!(r.t_median_us, Some(3.0));
        assert_eq!(r.samples_n, Some(6));
        assert_eq!(r.samples_us.as_ref().unwrap().len(), 6);
        assert_eq!((r.valid, r.invalid, r.errors), (Some(6), Some(0), Some(0)));
        assert_eq!(r.repetitions, 6);
        assert_eq!(r.below_resolution, Some(false));
        assert!(r.mbytes_per_sec.unwrap() > 0.0);
        assert_eq!(r.note, None);
    }

    #[test]
    fn a_pooled_ci_that_contains_zero_is_below_resolution_without_throughput() {
        // Each run's mean is positive, the pooled CI of the median is not.
        let a = run(0.05, &[-0.2, 0.1, 0.3, -0.1, 0.2], Some(true));
        let b = run(0.02, &[0.1, -0.3, 0.2, 0.0, 0.1], Some(true));
        let r = row(&[&a, &b], true);
        assert_eq!(r.below_resolution, Some(true));
        let (lo, hi) = (r.ci95_lo_us.unwrap(), r.ci95_hi_us.unwrap());
        assert!(lo <= 0.0 && hi >= 0.0, "{lo} {hi}");
        assert_eq!(r.mbytes_per_sec, None);
        assert!(r.note.unwrap().contains("below resolution: the 95% CI"));
        // A method that does not subtract says nothing about resolution.
        let r = row(&[&run(1.0, &[1.0], None)], false);
        assert_eq!(r.below_resolution, None);
    }

    #[test]
    fn runs_without_a_figure_are_null_never_zero() {
        let mut a = run(f64::NAN, &[], Some(false));
        a.samples_us = None;
        a.mbytes_per_sec = None;
        let mut b = a.clone();
        b.valid = Some(0);
        let r = row(&[&a, &b], true);
        assert!(r.t_avg_us.is_nan() && r.t_min_us.is_nan() && r.t_max_us.is_nan());
        assert_eq!(r.mbytes_per_sec, None);
        assert_eq!(r.t_median_us, None);
        assert!(r
            .note
            .as_ref()
            .unwrap()
            .contains("no valid sample in any of the 2"));
        let json = serde_json::to_value(&r).unwrap();
        assert!(json["t_avg_us"].is_null(), "{json}");
        // One run of two without a figure: the other's, with a note.
        let c = run(5.0, &[5.0], Some(false));
        let r = row(&[&a, &c], true);
        assert_eq!((r.t_min_us, r.t_max_us, r.t_avg_us), (5.0, 5.0, 5.0));
        assert!(r
            .note
            .unwrap()
            .contains("1 of 2 repeats had no valid sample"));
    }

    #[test]
    fn results_group_by_benchmark_and_process_count() {
        let mk = |name: &str, q: usize, rep: usize, t: f64, dt: f64| BenchResult {
            benchmark: name.into(),
            suite: "mpitest".into(),
            processes: q,
            mode: "primary".into(),
            repeat: Some(rep),
            dt_us: Some(dt),
            rows: vec![run(t, &[t], Some(false))],
            ..BenchResult::default()
        };
        let all = vec![
            mk("BARRIER", 4, 1, 1.0, 0.02),
            mk("GATHER", 4, 1, 5.0, 0.02),
            mk("BARRIER", 4, 2, 3.0, 0.04),
            mk("GATHER", 4, 2, 7.0, 0.04),
        ];
        let agg = aggregates(&all);
        assert_eq!(agg.len(), 2);
        assert!(agg.iter().all(|a| a.aggregate && a.repeat.is_none()));
        assert_eq!(agg[0].benchmark, "BARRIER");
        assert_eq!(agg[0].rows[0].t_avg_us, 2.0);
        assert_eq!(agg[1].rows[0].t_avg_us, 6.0);
        // DT and DB are calibrated per run: the aggregate shows their mean.
        assert!((agg[0].dt_us.unwrap() - 0.03).abs() < 1e-12);
        assert_eq!(agg[0].db_us, None);
    }

    #[test]
    fn runs_below_resolution_are_left_out_of_the_figures_while_others_are_not() {
        let a = run(-0.7, &[0.4, 0.5, 0.45], Some(true));
        let b = run(2.0, &[1.9, 2.0, 2.1], Some(false));
        let c = run(4.0, &[3.9, 4.0, 4.1], Some(false));
        let r = row(&[&a, &b, &c], true);
        assert_eq!((r.t_min_us, r.t_max_us, r.t_avg_us), (2.0, 4.0, 3.0));
        assert_eq!(r.below_resolution, Some(false));
        assert!(r.note.unwrap().contains("1 of 3 repeats below resolution"));
        // All of them below: the figures stay (the JSON), flagged.
        let d = run(0.3, &[0.5, 0.6, 0.55], Some(true));
        let r = row(&[&a, &d], true);
        assert_eq!(r.below_resolution, Some(true));
        assert!((r.t_avg_us - -0.2).abs() < 1e-12);
        assert_eq!(r.mbytes_per_sec, None);
        assert!(r.note.unwrap().contains("not positive"));
        let r = row(&[&d, &d], true);
        assert_eq!(r.below_resolution, Some(true));
        assert!(r
            .note
            .unwrap()
            .contains("every repeat was below resolution"));
    }
}
