//! CSV: one line per row (and per group with --multi-detail).

use anyhow::Result;

use super::Exporter;
use crate::results::{BenchResult, Report, Row};

pub struct Csv;

/// The first 13 columns are the PMB figures; the per-rank columns of the
/// `clocksync` and `timing` tools follow (empty elsewhere), appended so that
/// existing column positions stay.
const HEADER: [&str; 21] = [
    "benchmark",
    "suite",
    "processes",
    "mode",
    "group",
    "bytes",
    "repetitions",
    "t_min_us",
    "t_max_us",
    "t_avg_us",
    "mbytes_per_sec",
    "errors",
    "skipped",
    "rank",
    "offset_us",
    "drift_ppm",
    "residual_us",
    "tick_us",
    "resolution_us",
    "overhead_us",
    "params",
];

fn opt<T: ToString>(v: Option<T>) -> String {
    v.map(|x| x.to_string()).unwrap_or_default()
}

/// A statistic; empty where the JSON has null (no valid sample: NaN).
fn num(x: f64) -> String {
    if x.is_finite() {
        x.to_string()
    } else {
        String::new()
    }
}

/// A text cell that a spreadsheet would take for a formula (it starts with
/// `=`, `+`, `-`, `@`, a tab or a carriage return) gets a leading `'`, as
/// OWASP advises against CSV injection. Only text cells: numbers are written
/// by `num`/`opt` and stay numbers. Names mpibench writes never start so.
pub fn text(s: &str) -> String {
    if s.starts_with(['=', '+', '-', '@', '\t', '\r']) {
        format!("'{s}")
    } else {
        s.to_string()
    }
}

fn record(r: &BenchResult, group: &str, row: &Row) -> Vec<String> {
    vec![
        text(&r.benchmark),
        text(&r.suite),
        r.processes.to_string(),
        text(&r.mode),
        group.to_string(),
        row.bytes.to_string(),
        row.repetitions.to_string(),
        num(row.t_min_us),
        num(row.t_max_us),
        num(row.t_avg_us),
        opt(row.mbytes_per_sec),
        opt(row.errors),
        String::new(),
        opt(row.rank),
        opt(row.offset_us),
        opt(row.drift_ppm),
        opt(row.residual_us),
        opt(row.tick_us),
        opt(row.resolution_us),
        opt(row.overhead_us),
        // Axis values beyond bytes (CRESTA's scenario, t_delay_us, ...) as a JSON object.
        if row.params.is_empty() {
            String::new()
        } else {
            serde_json::to_string(&row.params).unwrap_or_default()
        },
    ]
}

impl Exporter for Csv {
    fn render(&self, report: &Report) -> Result<Vec<u8>> {
        let mut w = csv::Writer::from_writer(Vec::new());
        w.write_record(HEADER)?;
        for r in &report.results {
            if let Some(why) = &r.skipped {
                let mut rec = vec![String::new(); HEADER.len()];
                rec[0] = text(&r.benchmark);
                rec[1] = text(&r.suite);
                rec[2] = r.processes.to_string();
                rec[3] = text(&r.mode);
                rec[12] = text(why);
                w.write_record(&rec)?;
            }
            for row in &r.rows {
                w.write_record(record(r, "all", row))?;
            }
            for g in &r.group_rows {
                for row in &g.rows {
                    w.write_record(record(r, &g.group.to_string(), row))?;
                }
            }
        }
        Ok(w.into_inner()?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clock_rows_keep_their_columns() {
        let row = Row {
            rank: Some(1),
            offset_us: Some(2.5),
            drift_ppm: Some(0.1),
            residual_us: Some(0.01),
            ..Row::default()
        };
        let r = BenchResult {
            benchmark: "ClockSync".into(),
            suite: "clock".into(),
            class: "tool".into(),
            processes: 2,
            mode: "primary".into(),
            groups: 1,
            active: 2,
            rows: vec![row],
            ..BenchResult::default()
        };
        let rec = record(&r, "all", &r.rows[0]);
        assert_eq!(rec.len(), HEADER.len());
        let col = |n: &str| rec[HEADER.iter().position(|h| *h == n).unwrap()].clone();
        assert_eq!(col("rank"), "1");
        assert_eq!(col("offset_us"), "2.5");
        assert_eq!(col("residual_us"), "0.01");
        assert_eq!(col("tick_us"), "");
    }

    #[test]
    fn null_statistics_are_empty_fields() {
        let row = Row {
            t_min_us: f64::NAN,
            t_max_us: f64::NAN,
            t_avg_us: 1.5,
            ..Row::default()
        };
        let r = BenchResult {
            rows: vec![row],
            ..BenchResult::default()
        };
        let rec = record(&r, "all", &r.rows[0]);
        let col = |n: &str| rec[HEADER.iter().position(|h| *h == n).unwrap()].clone();
        assert_eq!(col("t_min_us"), "");
        assert_eq!(col("t_max_us"), "");
        assert_eq!(col("t_avg_us"), "1.5");
    }

    #[test]
    fn text_cells_cannot_become_formulas() {
        for (cell, want) in [
            ("=HYPERLINK(\"x\")", "'=HYPERLINK(\"x\")"),
            ("+1", "'+1"),
            ("-2+3", "'-2+3"),
            ("@SUM(A1)", "'@SUM(A1)"),
            ("\t=1", "'\t=1"),
            ("PingPong", "PingPong"),
            ("", ""),
        ] {
            assert_eq!(text(cell), want);
        }
        let row = Row {
            t_min_us: -1.5,
            t_max_us: 2.0,
            t_avg_us: 1.0,
            ..Row::default()
        };
        let r = BenchResult {
            benchmark: "=cmd|' /C calc'!A0".into(),
            suite: "@x".into(),
            mode: "-m".into(),
            rows: vec![row],
            ..BenchResult::default()
        };
        let rec = record(&r, "all", &r.rows[0]);
        assert_eq!(rec[0], "'=cmd|' /C calc'!A0");
        assert_eq!(rec[1], "'@x");
        assert_eq!(rec[3], "'-m");
        // A negative number stays a number.
        let col = |n: &str| rec[HEADER.iter().position(|h| *h == n).unwrap()].clone();
        assert_eq!(col("t_min_us"), "-1.5");
    }
}
