//! Checks of a JSON results file before anything is drawn or compared from
//! it: the schema's major version, times that cannot be times, and rows that
//! appear twice with different figures. `compare` refuses the first two
//! (exit 2) and warns about the third; `report` and `plot` may reuse them.

use serde::Deserialize;

use super::compare::{key_text, keyed_rows};
use crate::results::{Report, Row, SCHEMA};

/// Why a file is refused before it is parsed as a whole.
#[derive(Debug)]
pub enum ParseError {
    /// A schema of another major version than this mpibench's.
    Schema(String),
    Json(serde_json::Error),
}

impl std::fmt::Display for ParseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ParseError::Schema(s) => write!(f, "{}", schema_message(s)),
            ParseError::Json(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for ParseError {}

fn schema_message(schema: &str) -> String {
    format!("its schema is '{schema}', this mpibench reads {SCHEMA} (and its minor versions)")
}

/// "mpibench/1" and "mpibench/1.N" are this major version.
fn schema_supported(schema: &str) -> bool {
    schema == SCHEMA
        || schema
            .strip_prefix(SCHEMA)
            .and_then(|rest| rest.strip_prefix('.'))
            .is_some_and(|minor| !minor.is_empty() && minor.bytes().all(|b| b.is_ascii_digit()))
}

/// Parses a results file: a leading UTF-8 byte order mark is skipped, and a
/// file of another schema is named as such rather than as broken JSON.
pub fn parse(text: &str) -> Result<Report, ParseError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    match serde_json::from_str::<Report>(text) {
        Ok(r) if !schema_supported(&r.schema) => Err(ParseError::Schema(r.schema)),
        Ok(r) => Ok(r),
        Err(e) => {
            // Only the schema, if the file is JSON with one.
            #[derive(Deserialize)]
            struct Head {
                schema: Option<String>,
            }
            match serde_json::from_str::<Head>(text) {
                Ok(Head { schema: Some(s) }) if !schema_supported(&s) => Err(ParseError::Schema(s)),
                _ => Err(ParseError::Json(e)),
            }
        }
    }
}

/// The largest time a results file may hold: 10^12 µs (11.6 days) for one
/// repetition is no measurement, and a ratio of two times within these
/// bounds cannot overflow.
pub const MAX_TIME_US: f64 = 1e12;

/// The largest throughput (MB/s or messages per second) a file may hold.
pub const MAX_RATE: f64 = 1e12;

/// The times of a row, by field name (the samples and the launch medians
/// as one each). None of them may be negative but in a row of a difference
/// of times (`below_resolution`), whose own figures may be.
fn times(row: &Row) -> impl Iterator<Item = (&'static str, f64, bool)> + '_ {
    let own = [
        ("t_min_us", Some(row.t_min_us)),
        ("t_max_us", Some(row.t_max_us)),
        ("t_avg_us", Some(row.t_avg_us)),
        ("t_median_us", row.t_median_us),
        ("t_p5_us", row.t_p5_us),
        ("t_p95_us", row.t_p95_us),
        ("ci95_lo_us", row.ci95_lo_us),
        ("ci95_hi_us", row.ci95_hi_us),
        ("t_median_min_us", row.t_median_min_us),
        ("t_median_max_us", row.t_median_max_us),
        ("t_median_avg_us", row.t_median_avg_us),
        ("between_ci95_lo_us", row.between_ci95_lo_us),
        ("between_ci95_hi_us", row.between_ci95_hi_us),
    ];
    // Spreads are never negative, whatever the row.
    let spreads = [
        ("t_stddev_us", row.t_stddev_us),
        ("within_spread_us", row.within_spread_us),
        ("between_spread_us", row.between_spread_us),
        ("t_global_us", row.t_global_us),
    ];
    own.into_iter()
        .filter_map(|(n, v)| v.map(|v| (n, v, true)))
        .chain(
            spreads
                .into_iter()
                .filter_map(|(n, v)| v.map(|v| (n, v, false))),
        )
        .chain(
            row.samples_us
                .iter()
                .flatten()
                .map(|&v| ("samples_us", v, true)),
        )
        .chain(
            row.launch_medians_us
                .iter()
                .flatten()
                .map(|&v| ("launch_medians_us", v, true)),
        )
}

/// The throughputs of a row, by field name.
fn rates(row: &Row) -> impl Iterator<Item = (&'static str, f64)> {
    [
        ("mbytes_per_sec", row.mbytes_per_sec),
        ("msg_per_sec", row.msg_per_sec),
    ]
    .into_iter()
    .filter_map(|(n, v)| v.map(|v| (n, v)))
}

/// A value as a line shows it: 1e308, not 309 digits.
fn shown(v: f64) -> String {
    if v != 0.0 && v.is_finite() && !(1e-4..1e15).contains(&v.abs()) {
        format!("{v:e}")
    } else {
        format!("{v}")
    }
}

/// Why a value of a row cannot be what its field says (None: it can).
fn not_a_value(v: f64, max: f64, may_be_negative: bool) -> Option<&'static str> {
    if v.is_nan() {
        None // no valid sample: null in the file
    } else if v.is_infinite() {
        Some("not finite")
    } else if v < 0.0 && !may_be_negative {
        Some("negative")
    } else if v.abs() > max {
        Some("beyond any measurement")
    } else {
        None
    }
}

/// Checks a parsed report. `Err`: one line why it cannot be used (a schema
/// of another major version, a negative or infinite time); `Ok`: one line
/// per kind of doubt (rows that appear twice with different figures: the
/// first is used). NaN is a row without a valid sample (null in the file).
/// Rows of a difference of times (those that carry `below_resolution`) may
/// be negative.
pub fn check_report(r: &Report) -> Result<Vec<String>, String> {
    if !schema_supported(&r.schema) {
        return Err(schema_message(&r.schema));
    }
    let rows = keyed_rows(r);
    for (k, _, row) in &rows {
        let difference = row.below_resolution.is_some();
        for (field, v, own) in times(row) {
            if let Some(why) = not_a_value(v, MAX_TIME_US, own && difference) {
                return Err(format!(
                    "{field} is {} in {}: not a time ({why})",
                    shown(v),
                    key_text(k)
                ));
            }
        }
        for (field, v) in rates(row) {
            if let Some(why) = not_a_value(v, MAX_RATE, false) {
                return Err(format!(
                    "{field} is {} in {}: not a throughput ({why})",
                    shown(v),
                    key_text(k)
                ));
            }
        }
    }
    let mut first: std::collections::BTreeMap<String, usize> = Default::default();
    let mut conflicts = Vec::new();
    for (i, (k, _, row)) in rows.iter().enumerate() {
        let j = *first.entry(k.canon()).or_insert(i);
        if j != i && !same_figures(rows[j].2, row) {
            conflicts.push(key_text(k));
        }
    }
    let mut warnings = Vec::new();
    if let Some(k) = conflicts.first() {
        warnings.push(format!(
            "{} rows appear again with different figures (first: {k}): only the first of each is used",
            conflicts.len()
        ));
    }
    Ok(warnings)
}

/// Two rows of one key that say the same (NaN equal to NaN).
fn same_figures(a: &Row, b: &Row) -> bool {
    serde_json::to_value(a).ok() == serde_json::to_value(b).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::plot::tests::{report, result, row};

    fn one(rows: Vec<Row>) -> Report {
        report(
            "Open MPI v4.1.4",
            "per-call",
            vec![result("imb", "PingPong", 2, rows)],
        )
    }

    #[test]
    fn schema_versions() {
        assert!(schema_supported("mpibench/1"));
        assert!(schema_supported("mpibench/1.3"));
        for s in [
            "mpibench/2",
            "mpibench/10",
            "mpibench/1.",
            "mpibench/1x",
            "other/1",
            "",
        ] {
            assert!(!schema_supported(s), "{s}");
        }
        let mut r = one(vec![row(8, 1.0)]);
        r.schema = "mpibench/2".into();
        let e = check_report(&r).unwrap_err();
        assert!(
            e.contains("'mpibench/2'") && e.contains("mpibench/1"),
            "{e}"
        );
        // Parsed: the schema is named even when the rest does not fit.
        let text = r#"{"schema": "mpibench/2", "rows": 3}"#;
        let e = parse(text).unwrap_err().to_string();
        assert!(e.contains("'mpibench/2'"), "{e}");
        assert!(matches!(parse("{\"schema\": 1}"), Err(ParseError::Json(_))));
    }

    #[test]
    fn a_byte_order_mark_is_accepted() {
        let r = one(vec![row(8, 1.0)]);
        let text = format!("\u{feff}{}", serde_json::to_string(&r).unwrap());
        let back = parse(&text).unwrap();
        assert_eq!(back.results[0].rows.len(), 1);
        assert!(check_report(&back).unwrap().is_empty());
    }

    #[test]
    fn negative_and_infinite_times_are_refused() {
        let mut r = one(vec![row(8, 1.0), row(16, 1.0)]);
        r.results[0].rows[1].t_avg_us = -2.0;
        let e = check_report(&r).unwrap_err();
        assert!(
            e.contains("t_avg_us is -2") && e.contains("PingPong P=2 16"),
            "{e}"
        );
        r.results[0].rows[1].t_avg_us = 2.0;
        r.results[0].rows[1].samples_us = Some(vec![1.0, f64::INFINITY]);
        assert!(check_report(&r).unwrap_err().contains("samples_us is inf"));
        // No valid sample (null, read as NaN) is not an error.
        r.results[0].rows[1].samples_us = None;
        r.results[0].rows[1].t_avg_us = f64::NAN;
        assert!(check_report(&r).unwrap().is_empty());
        // A difference of times may be negative.
        r.results[0].rows[1].t_avg_us = -0.1;
        r.results[0].rows[1].below_resolution = Some(true);
        assert!(check_report(&r).unwrap().is_empty());
    }

    #[test]
    fn absurd_times_throughputs_and_launch_medians_are_refused() {
        let mut r = one(vec![row(8, 1.0)]);
        r.results[0].rows[0].t_avg_us = 1e308;
        let e = check_report(&r).unwrap_err();
        assert!(
            e.contains("t_avg_us is 1e308") && e.contains("beyond"),
            "{e}"
        );
        r.results[0].rows[0].t_avg_us = 1.0;
        r.results[0].rows[0].launch_medians_us = Some(vec![-1.0, -2.0, -3.0]);
        let e = check_report(&r).unwrap_err();
        assert!(
            e.contains("launch_medians_us is -1") && e.contains("negative"),
            "{e}"
        );
        r.results[0].rows[0].launch_medians_us = Some(vec![1.0, 2.0]);
        assert!(check_report(&r).unwrap().is_empty());
        r.results[0].rows[0].mbytes_per_sec = Some(-5.0);
        assert!(check_report(&r).unwrap_err().contains("not a throughput"));
        r.results[0].rows[0].mbytes_per_sec = Some(f64::INFINITY);
        assert!(check_report(&r)
            .unwrap_err()
            .contains("mbytes_per_sec is inf"));
        r.results[0].rows[0].mbytes_per_sec = Some(1e4);
        // A difference row may be negative, its spread never.
        r.results[0].rows[0].below_resolution = Some(true);
        r.results[0].rows[0].t_avg_us = -0.5;
        assert!(check_report(&r).unwrap().is_empty());
        r.results[0].rows[0].t_stddev_us = Some(-1.0);
        assert!(check_report(&r).unwrap_err().contains("t_stddev_us is -1"));
    }

    #[test]
    fn conflicting_duplicates_are_one_warning() {
        let r = one(vec![row(8, 1.0), row(8, 1.0), row(16, 1.0)]);
        assert!(check_report(&r).unwrap().is_empty(), "identical rows agree");
        let r = one(vec![row(8, 1.0), row(8, 2.0), row(16, 1.0), row(16, 3.0)]);
        let w = check_report(&r).unwrap();
        assert_eq!(w.len(), 1);
        assert!(
            w[0].starts_with("2 rows appear again") && w[0].contains("PingPong P=2 8"),
            "{w:?}"
        );
    }
}
