//! MPITEST-style tables: per construct, N, bytes and the time t in µs
//! (t = t2 − t1 − DT − DB, averaged over the iterations), with a throughput
//! where the construct moves one message per partner; each of the R repeats,
//! then their aggregate.

use std::fmt::Write;

use crate::report::table::{fixed, hosts_line, opt, titled_header, Format, Heading, SectionCx};
use crate::results::{BenchResult, Report, Row};

pub struct Mpitest;

const RULE: &str = "#------------------------------------------------------------------------";

impl Format for Mpitest {
    fn header(&self, report: &Report, plan: &Heading) -> String {
        titled_header(
            RULE,
            "MPITEST (parallel.ru)",
            report,
            plan,
            "Parameters",
            &[
                (
                    "Method",
                    "barrier; t1; construct; barrier; t2;  t = t2 - t1 - DT - DB",
                ),
                ("Data", "N MPI_INTs (reductions: MPI_SUM); MB = 2^20 bytes"),
                ("Pairs", "point-to-point constructs pair rank i with i+P/2"),
            ],
        )
    }

    fn section(&self, r: &BenchResult, cx: &SectionCx) -> String {
        let mut s = String::new();
        let title = match (r.repeat, r.aggregate) {
            (Some(k), _) => format!("repeat {k} of {}: ", cx.repeats),
            (None, true) => format!("aggregate of {} repeats: ", cx.repeats),
            _ => String::new(),
        };
        let _ = writeln!(s, "\n# {title}{} on {} processes", r.benchmark, r.processes);
        if let Some(why) = &r.skipped {
            let _ = writeln!(s, "# skipped: {why}");
            return s;
        }
        if let Some(h) = hosts_line(r) {
            let _ = writeln!(s, "# hosts: {h}");
        }
        if let Some(l) = crate::report::table::sat_out_line(r) {
            let _ = writeln!(s, "# {l}");
        }
        if let (Some(dt), Some(db)) = (r.dt_us, r.db_us) {
            let each = if r.aggregate {
                " (means over the repeats, each calibrated its own)"
            } else {
                ""
            };
            let _ = writeln!(s, "# DT = {dt:.4} us, DB = {db:.4} us{each}");
        }
        if let Some(n) = &r.note {
            let _ = writeln!(s, "# note: {n}");
        }
        let sized = r.rows.iter().any(|x| x.params.contains_key("n"));
        let mb = r.rows.iter().any(|x| x.mbytes_per_sec.is_some());
        let checked = r.rows.iter().any(|x| x.errors.is_some());
        let mut head = String::from("#");
        if sized {
            let _ = write!(head, "{:>11} {:>12}", "N", "bytes");
        }
        let _ = write!(head, " {:>12}", "iterations");
        if r.aggregate {
            let _ = write!(
                head,
                " {:>14} {:>12} {:>12}",
                "mean t[usec]", "min[usec]", "max[usec]"
            );
        } else {
            let _ = write!(head, " {:>14}", "t[usec]");
        }
        if mb {
            let _ = write!(head, " {:>12}", "MB/s");
        }
        if checked {
            let _ = write!(head, " {:>8}", "errors");
        }
        if cx.stats {
            let _ = write!(
                head,
                " {:>14} {:>12} {:>12} {:>8}",
                "median[usec]", "ci95_lo", "ci95_hi", "outliers"
            );
        }
        let _ = writeln!(s, "{head}");
        for row in &r.rows {
            let _ = writeln!(s, "{}", line(r, row, sized, mb, cx.stats));
        }
        if r.rows.iter().any(|x| x.below_resolution == Some(true)) {
            let pooled = if r.aggregate {
                " (the repeats' samples pooled)"
            } else {
                ""
            };
            let _ = writeln!(
                s,
                "# below resolution: the 95% CI of the median of t{pooled} contains zero, or the mean t is not positive; see t_avg_us and the note in the JSON"
            );
        }
        s
    }

    fn footer(&self, report: &Report) -> String {
        let errors: u64 = report
            .results
            .iter()
            .flat_map(|r| &r.rows)
            .filter_map(|r| r.errors)
            .sum();
        if report.settings.check {
            format!("\n# Validation: {errors} errors\n")
        } else {
            String::new()
        }
    }
}

fn line(r: &BenchResult, row: &Row, sized: bool, mb: bool, stats: bool) -> String {
    let mut s = String::from(" ");
    if sized {
        let n = row.params.get("n").and_then(|v| v.as_u64()).unwrap_or(0);
        let _ = write!(s, "{n:>11} {:>12}", row.bytes);
    }
    let _ = write!(s, " {:>12}", row.repetitions);
    let below = row.below_resolution == Some(true);
    if r.aggregate && below {
        let _ = write!(s, " {:>14} {:>12} {:>12}", "below res.", "-", "-");
    } else if r.aggregate {
        let _ = write!(
            s,
            " {} {} {}",
            fixed(row.t_avg_us, 14, 3),
            fixed(row.t_min_us, 12, 3),
            fixed(row.t_max_us, 12, 3)
        );
    } else if below {
        let _ = write!(s, " {:>14}", "below res.");
    } else {
        let _ = write!(s, " {}", fixed(row.t_avg_us, 14, 3));
    }
    if mb {
        match row.mbytes_per_sec {
            Some(v) if !below && row.t_avg_us > 0.0 => {
                let _ = write!(s, " {v:>12.2}");
            }
            _ => {
                let _ = write!(s, " {:>12}", "-");
            }
        }
    }
    if let Some(e) = row.errors {
        let _ = write!(s, " {e:>8}");
    }
    if stats {
        let _ = write!(
            s,
            " {:>14} {:>12} {:>12} {:>8}",
            opt(row.t_median_us, 3),
            opt(row.ci95_lo_us, 3),
            opt(row.ci95_hi_us, 3),
            row.outliers.map_or("-".into(), |o| o.to_string())
        );
    }
    if let Some(n) = row.note.as_ref().filter(|_| !below) {
        let _ = write!(s, "  # {n}");
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::table::fixtures::*;
    use serde_json::json;

    fn construct(name: &str, sized: bool) -> BenchResult {
        let rows = if sized {
            [1u64, 10, 100]
                .iter()
                .map(|&n| {
                    let mut r = row(4 * n as usize, 2.0 + n as f64 / 50.0);
                    r.params.insert("n".into(), json!(n));
                    r.mbytes_per_sec = Some(4.0 * n as f64 / 1.048576 / r.t_max_us);
                    r
                })
                .collect()
        } else {
            vec![row(0, 0.8)]
        };
        let mut r = result(name, "mpitest", "collective", 4, rows);
        r.dt_us = Some(0.035);
        r.db_us = Some(1.25);
        r
    }

    /// A below-resolution row: t near zero, its CI around zero.
    fn below(r: &mut Row) {
        r.t_avg_us = 0.012;
        r.t_min_us = -0.4;
        r.t_max_us = 0.5;
        r.t_median_us = Some(0.01);
        r.ci95_lo_us = Some(-0.08);
        r.ci95_hi_us = Some(0.11);
        r.below_resolution = Some(true);
        r.mbytes_per_sec = None;
        r.note = Some("below resolution: the 95% CI of the median contains zero".into());
    }

    #[test]
    fn header_repeats_aggregates_skips_and_footer() {
        let cx = SectionCx {
            rank_rows: None,
            world: 4,
            stats: true,
            repeats: 2,
        };
        let seed: Vec<String> = "m1 M100 K10 T100 t100000 R2"
            .split(' ')
            .map(String::from)
            .collect();
        let args = crate::bench::mpitest::front::parse(&seed).unwrap();
        let plan = crate::plan::Plan::build(&args, vec!["mpibench".into()], 4, 4).unwrap();
        let mut report = report(4);
        let mut a = construct("BLOCKING SEND", true);
        a.repeat = Some(1);
        // No valid sample at N = 100: no figure, a note.
        let null = &mut a.rows[2];
        (null.t_avg_us, null.t_min_us, null.t_max_us) = (f64::NAN, f64::NAN, f64::NAN);
        (null.t_median_us, null.ci95_lo_us, null.ci95_hi_us) = (None, None, None);
        null.mbytes_per_sec = None;
        null.note = Some("no valid sample: all 1000 started late; statistics are null".into());
        let mut b = construct("BARRIER", false);
        b.repeat = Some(2);
        below(&mut b.rows[0]);
        let mut skip = result("SEND & RECV", "mpitest", "point-to-point", 1, Vec::new());
        skip.repeat = Some(1);
        skip.skipped = Some("SEND & RECV needs at least 2 processes".into());
        let mut agg = construct("BLOCKING SEND", true);
        agg.aggregate = true;
        let mut agg_b = construct("BARRIER", false);
        agg_b.aggregate = true;
        below(&mut agg_b.rows[0]);
        report.results = vec![a, b, skip, agg, agg_b];
        let mut s = Mpitest.header(&report, &plan.heading());
        for r in &report.results {
            s += &Mpitest.section(r, &cx);
        }
        s += &Mpitest.footer(&report);
        insta::assert_snapshot!(s);
    }
}
