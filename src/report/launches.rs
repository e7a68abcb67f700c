//! The launches part of a table (`--launches N` > 1): after each combined
//! result, per row, the median of the launch medians, the between-launch
//! CI, and the within- and between-launch spreads side by side, in percent
//! of the median; rows whose between-launch spread dominates are flagged.
//! Comment lines (`#`), so that the suite's own table above stays as it is.

use std::fmt::Write;

use crate::results::{BenchResult, Row};

/// The flag of a row whose launches differ by more than one launch's CI.
pub const DOMINATES: &str = "between-launch spread dominates";

/// The part after `r` (empty when its rows carry no launches).
pub fn part(r: &BenchResult, launches: usize) -> String {
    let rows: Vec<&Row> = r
        .rows
        .iter()
        .filter(|x| x.launch_medians_us.is_some())
        .collect();
    if rows.is_empty() {
        return String::new();
    }
    let mut s = format!(
        "# {}, {launches} launches: the median of the launch medians, its 95% CI between launches,\n",
        r.benchmark
    );
    s.push_str("# the spread within a launch (its CI width) and between launches (max - min), in % of the median\n");
    let _ = writeln!(
        s,
        "#{:>11} {:>13} {:>21} {:>10} {:>10}",
        "#bytes", "median[usec]", "between CI95[usec]", "within[%]", "between[%]"
    );
    let pct = |v: Option<f64>, m: f64| match v {
        Some(v) if m > 0.0 && v.is_finite() => format!("{:.1}", v / m * 100.0),
        _ => "-".into(),
    };
    for x in rows {
        let m = x.t_median_us.unwrap_or(f64::NAN);
        let ci = match (x.between_ci95_lo_us, x.between_ci95_hi_us) {
            (Some(lo), Some(hi)) => format!("{lo:.3} .. {hi:.3}"),
            _ => "-".into(),
        };
        let params = if x.params.is_empty() {
            String::new()
        } else {
            format!(
                "  {}",
                x.params
                    .iter()
                    .map(|(k, v)| format!("{k}={v}"))
                    .collect::<Vec<_>>()
                    .join(",")
            )
        };
        let flag = if x.launch_spread_dominates == Some(true) {
            format!("  {DOMINATES}")
        } else {
            String::new()
        };
        let _ = writeln!(
            s,
            "#{:>11} {:>13.3} {:>21} {:>10} {:>10}{params}{flag}",
            x.bytes,
            m,
            ci,
            pct(x.within_spread_us, m),
            pct(x.between_spread_us, m),
        );
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::launches::combine;

    fn row(bytes: usize, median: f64, ci: f64) -> Row {
        Row {
            bytes,
            repetitions: 1000,
            t_min_us: median,
            t_max_us: median,
            t_avg_us: median,
            t_median_us: Some(median),
            ci95_lo_us: Some(median - ci / 2.0),
            ci95_hi_us: Some(median + ci / 2.0),
            samples_n: Some(1000),
            ..Row::default()
        }
    }

    fn launch(f: f64) -> Vec<BenchResult> {
        vec![BenchResult {
            benchmark: "PingPong".into(),
            suite: "imb".into(),
            processes: 2,
            mode: "primary".into(),
            rows: vec![row(8, 0.17 * f, 0.002), row(1024, 0.25, 0.02)],
            ..BenchResult::default()
        }]
    }

    #[test]
    fn combined_rows_show_both_spreads_and_the_flag() {
        let (a, b, c) = (launch(1.0), launch(1.05), launch(0.97));
        let combined = combine(&[&a, &b, &c]);
        insta::assert_snapshot!(part(&combined[0], 3));
        // A single launch's result has no part.
        assert_eq!(part(&a[0], 1), "");
    }
}
