//! ALLREDUCE tables: one line per vector length, the time of every
//! algorithm side by side, the fastest, and MPI_Allreduce's time relative
//! to it (1.00: the library picked the best of them).

use std::fmt::Write;

use crate::report::table::{opt, titled_header, total_errors, Format, Heading, SectionCx};
use crate::results::{BenchResult, Report, Row};

pub struct Allreduce;

const RULE: &str =
    "#------------------------------------------------------------------------------";

/// Column titles, in the order of `Algorithm::ALL`.
const COLUMNS: [(&str, &str); 5] = [
    ("mpi", "MPI_Allreduce"),
    ("recursive_doubling", "rec.doubling"),
    ("ring", "ring"),
    ("rabenseifner", "Rabenseifner"),
    ("binomial", "binomial"),
];

fn algorithm(row: &Row) -> &str {
    row.params
        .get("algorithm")
        .and_then(|v| v.as_str())
        .unwrap_or("")
}

impl Format for Allreduce {
    fn header(&self, report: &Report, plan: &Heading) -> String {
        titled_header(
            RULE,
            "ALLREDUCE (ORNL)",
            report,
            plan,
            "Inputs",
            &[
                ("Data", "n MPI_DOUBLEs, MPI_SUM; every algorithm on the same data"),
                ("Time", "median over repetitions of the maximum over processes of each one's elapsed time [usec]"),
            ],
        )
    }

    fn section(&self, r: &BenchResult, cx: &SectionCx) -> String {
        let mut s = String::new();
        let _ = writeln!(s, "\n# {} on {} processes", r.benchmark, r.processes);
        if let Some(why) = &r.skipped {
            let _ = writeln!(s, "# skipped: {why}");
            return s;
        }
        if let Some(n) = &r.note {
            let _ = writeln!(s, "# note: {n}");
        }
        let cols: Vec<(&str, &str)> = COLUMNS
            .iter()
            .copied()
            .filter(|(id, _)| r.rows.iter().any(|x| algorithm(x) == *id))
            .collect();
        let checked = r.rows.iter().any(|x| x.errors.is_some());
        let mut head = format!("# {:>9} {:>11} {:>6}", "n", "bytes", "reps");
        for (_, t) in &cols {
            let _ = write!(head, " {t:>13}");
        }
        let _ = write!(head, "  {:<19} {:>8}", "fastest", "MPI/best");
        if checked {
            let _ = write!(head, " {:>7}", "errors");
        }
        let _ = writeln!(s, "{head}");
        let mut sizes: Vec<usize> = r.rows.iter().map(|x| x.bytes).collect();
        sizes.dedup();
        // --stats: every algorithm's 95% CI of the median, after the table.
        let mut ci = String::new();
        if cx.stats {
            let _ = write!(ci, "# 95% CI of the median [usec]\n# {:>9}", "n");
            for (_, t) in &cols {
                let _ = write!(ci, " {t:>23}");
            }
            ci.push('\n');
        }
        for &x in &sizes {
            let rows: Vec<&Row> = r.rows.iter().filter(|w| w.bytes == x).collect();
            let reps = rows.iter().map(|w| w.repetitions).max().unwrap_or(0);
            let _ = write!(s, "  {:>9} {x:>11} {reps:>6}", x / 8);
            if cx.stats {
                let _ = write!(ci, "  {:>9}", x / 8);
            }
            for (id, _) in &cols {
                let w = rows.iter().find(|w| algorithm(w) == *id);
                // A row without a valid sample has no figure (NaN).
                let t = w
                    .map(|w| crate::bench::allreduce::time(w))
                    .filter(|t| t.is_finite());
                let _ = write!(s, " {:>13}", opt(t, 3));
                if cx.stats {
                    let range =
                        w.and_then(|w| Some(format!("{:.3}..{:.3}", w.ci95_lo_us?, w.ci95_hi_us?)));
                    let _ = write!(ci, " {:>23}", range.as_deref().unwrap_or("-"));
                }
            }
            if cx.stats {
                ci.push('\n');
            }
            let best = r
                .figures
                .best
                .iter()
                .find(|b| b.at.get("bytes").and_then(|v| v.as_u64()) == Some(x as u64));
            let _ = write!(
                s,
                "  {:<19} {:>8}",
                best.map_or("-", |b| b.winner.as_str()),
                best.and_then(|b| b.ratio)
                    .map_or("-".to_string(), |v| format!("{v:.2}"))
            );
            if checked {
                let e: u64 = rows.iter().filter_map(|w| w.errors).sum();
                let _ = write!(s, " {e:>7}");
            }
            let _ = writeln!(s);
        }
        s.push_str(&ci);
        s
    }

    fn footer(&self, report: &Report) -> String {
        let mut s = String::new();
        for r in &report.results {
            let lib: Vec<_> = r.figures.best.iter().filter_map(|b| b.ratio).collect();
            if lib.is_empty() {
                continue;
            }
            let wins = r
                .figures
                .best
                .iter()
                .filter(|b| b.ratio.is_some_and(|x| x <= 1.0 + 1e-12))
                .count();
            let worst = lib.iter().copied().fold(1.0, f64::max);
            let _ = writeln!(
                s,
                "\n# {} on {} processes: MPI_Allreduce is the fastest at {wins} of {} lengths; at worst {worst:.2}x the best",
                r.benchmark,
                r.processes,
                lib.len()
            );
        }
        if report.settings.check {
            let _ = writeln!(s, "\n# Validation: {} errors", total_errors(report));
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::table::fixtures::*;
    use serde_json::json;

    #[test]
    fn one_line_per_length_with_the_fastest() {
        let mut rows = Vec::new();
        for (n, times) in [
            (1u64, [5.0, 3.0, 6.0, 7.0, 4.0]),
            (1024, [50.0, 60.0, 40.0, 45.0, 90.0]),
            (1 << 20, [9000.0, 30000.0, 9500.0, 8000.0, 40000.0]),
        ] {
            for ((id, _), t) in COLUMNS.iter().zip(times) {
                let mut r = row(8 * n as usize, t);
                r.params.insert("n".into(), json!(n));
                r.params.insert("algorithm".into(), json!(id));
                rows.push(r);
            }
        }
        let mut r = result("ALLREDUCE", "allreduce", "collective", 4, rows);
        r.figures.best = crate::bench::allreduce::fastest(&r);
        let cx = SectionCx {
            rank_rows: None,
            world: 4,
            stats: false,
            repeats: 1,
        };
        let mut rep = report(4);
        rep.results.push(r.clone());
        insta::assert_snapshot!(Allreduce.section(&r, &cx) + &Allreduce.footer(&rep));
        // --stats adds every algorithm's CI of the median after the table.
        let stats = Allreduce.section(&r, &SectionCx { stats: true, ..cx });
        assert!(stats.contains("# 95% CI of the median [usec]"), "{stats}");
        assert!(stats.contains("4.750..5.250"), "{stats}");
        assert_eq!(
            stats.lines().count(),
            Allreduce.section(&r, &cx).lines().count() + 5
        );
    }
}
