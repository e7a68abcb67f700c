//! How a row is read: the number it is plotted and compared by, its error
//! band, and which of its parameters were chosen rather than measured.

use crate::results::{BenchResult, Params, Report, Row};

/// True when the result's rows were timed as PMB does (one clock pair
/// around all repetitions): their statistics are over per-rank averages.
pub fn loop_timed(report: &Report, r: &BenchResult) -> bool {
    match r.method.as_deref() {
        Some(m) => m == "pmb-loop" || m == "loop",
        None => report.settings.timing == "loop",
    }
}

fn finite(v: f64) -> Option<f64> {
    v.is_finite().then_some(v)
}

/// The one number a row is plotted and compared by: the median with
/// per-call style timing, t_avg with loop timing (or when there is no median).
pub fn headline(loop_timed: bool, row: &Row) -> Option<f64> {
    if loop_timed {
        finite(row.t_avg_us)
    } else {
        row.t_median_us
            .filter(|v| v.is_finite())
            .or(finite(row.t_avg_us))
    }
}

/// The error band of a per-call row: the median's 95% CI, else p5–p95.
pub fn band(loop_timed: bool, row: &Row) -> Option<((f64, f64), &'static str)> {
    if loop_timed {
        return None;
    }
    let pair = |a: Option<f64>, b: Option<f64>| match (a, b) {
        (Some(a), Some(b)) if a.is_finite() && b.is_finite() => Some((a, b)),
        _ => None,
    };
    pair(row.ci95_lo_us, row.ci95_hi_us)
        .map(|p| (p, "95% CI of the median"))
        .or_else(|| pair(row.t_p5_us, row.t_p95_us).map(|p| (p, "p5–p95")))
}

/// Parameters of `res`'s rows that are measured rather than chosen: those
/// it declares in `measured_params` (LogGP's PRTT medians, the figures a
/// kernel reports) and, for files written before that field, names with
/// "achieved" or "measured" (CRESTA's `t_calc_achieved_us`). Never an axis,
/// never part of a match key.
pub fn measured_param(res: &BenchResult, key: &str) -> bool {
    res.measured_params.iter().any(|k| k == key)
        || key.contains("achieved")
        || key.contains("measured")
}

/// The chosen (not measured) parameters of a row of `res`.
pub fn chosen_params(res: &BenchResult, row: &Row) -> Params {
    row.params
        .iter()
        .filter(|(k, _)| !measured_param(res, k))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}
