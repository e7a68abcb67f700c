//! The guidelines' tables: per guideline and process count, one line per
//! size with both sides' medians, the ratio, the p-value and the verdict;
//! then the monotony lines; at the end, the violations of the whole run.
//! The HTML report gets the same verdicts as one table
//! ([`report_tables`]).

use std::fmt::Write;

use super::verdict::{ALPHA, TOLERANCE};
use crate::report::table::{titled_header, Format, Heading, SectionCx};
use crate::report::view::ReportParts;
use crate::report::PartTable;
use crate::results::{BenchResult, GuidelineVerdict, Report};

pub struct Guidelines;

const RULE: &str =
    "#------------------------------------------------------------------------------";

fn p_text(p: Option<f64>) -> String {
    match p {
        None => "-".into(),
        Some(p) if p < 1e-4 => "<1e-4".into(),
        Some(p) => format!("{p:.4}"),
    }
}

fn line(v: &GuidelineVerdict, first: String) -> String {
    format!(
        "{first} {:>12.3} {:>12.3} {:>7.2} {:>8}  {}",
        v.t_collective_us,
        v.t_mockup_us,
        v.ratio,
        p_text(v.p_value),
        if v.verdict == "violated" {
            "VIOLATED".to_string()
        } else {
            v.verdict.clone()
        }
    )
}

/// The run's verdicts that say "violated", over all results.
fn violations(report: &Report) -> Vec<&GuidelineVerdict> {
    report
        .results
        .iter()
        .filter(|r| !r.aggregate)
        .flat_map(|r| &r.figures.guidelines)
        .filter(|v| v.verdict == "violated")
        .collect()
}

impl Format for Guidelines {
    fn header(&self, report: &Report, plan: &Heading) -> String {
        let verdict = format!(
            "violated: ratio > {:.2} and one-sided Mann-Whitney p < {ALPHA}; holds: ratio <= {:.2}; else inconclusive",
            1.0 + TOLERANCE,
            1.0 + TOLERANCE
        );
        titled_header(
            RULE,
            "Self-consistent performance guidelines (Traeff, Gropp, Thakur; PGMPI)",
            report,
            plan,
            "Rules",
            &[
                (
                    "Time",
                    "median over repetitions of the maximum over processes [usec]",
                ),
                ("Ratio", "collective / mock-up"),
                ("Verdict", verdict.as_str()),
            ],
        )
    }

    fn section(&self, r: &BenchResult, _cx: &SectionCx) -> String {
        let mut s = String::new();
        let g = super::guideline(&r.benchmark);
        let rule = g.map_or(r.benchmark.as_str(), |g| g.rule());
        let _ = writeln!(
            s,
            "\n# {} on {} processes: {rule}",
            r.benchmark, r.processes
        );
        if let Some(why) = &r.skipped {
            let _ = writeln!(s, "# skipped: {why}");
            return s;
        }
        if let Some(g) = g {
            let _ = writeln!(s, "# {}", g.n);
        }
        if let Some(n) = &r.note {
            let _ = writeln!(s, "# note: {n}");
        }
        let errors: u64 = r.rows.iter().filter_map(|w| w.errors).sum();
        let checked = r.rows.iter().any(|w| w.errors.is_some());
        let _ = writeln!(
            s,
            "# {:>10} {:>12} {:>12} {:>7} {:>8}  verdict",
            "bytes", "collective", "mock-up", "ratio", "p-value"
        );
        let (pairs, mono): (Vec<&GuidelineVerdict>, Vec<&GuidelineVerdict>) = r
            .figures
            .guidelines
            .iter()
            .partition(|v| v.guideline != "monotony");
        for v in pairs {
            let _ = writeln!(s, "{}", line(v, format!("  {:>10}", v.bytes)));
        }
        if !mono.is_empty() {
            let _ = writeln!(s, "# monotony: {}", mono[0].rule);
            let _ = writeln!(
                s,
                "# {:>10} {:>12} {:>12} {:>7} {:>8}  verdict",
                "n -> n'", "t(n)", "t(n')", "ratio", "p-value"
            );
            for v in mono {
                let n = format!("{}->{}", v.bytes, v.mockup_bytes.unwrap_or(0));
                let _ = writeln!(s, "{}", line(v, format!("  {n:>10}")));
            }
        }
        if checked {
            let _ = writeln!(s, "# validation errors: {errors}");
        }
        s
    }

    fn footer(&self, report: &Report) -> String {
        let all: Vec<&GuidelineVerdict> = report
            .results
            .iter()
            .filter(|r| !r.aggregate)
            .flat_map(|r| &r.figures.guidelines)
            .collect();
        let count = |v: &str| all.iter().filter(|x| x.verdict == v).count();
        let mut s = format!(
            "\n# {} verdicts: {} hold, {} violated, {} inconclusive\n",
            all.len(),
            count("holds"),
            count("violated"),
            count("inconclusive")
        );
        let shared = crate::report::table::shared_cores_line(report);
        if let Some(l) = &shared {
            let _ = writeln!(
                s,
                "# {l}: every verdict of this run judges the scheduler as much as MPI; a VIOLATED line is marked (shared cores)"
            );
        }
        for v in violations(report) {
            let at = match v.mockup_bytes {
                Some(b) => format!("{} -> {b} bytes", v.bytes),
                None => format!("{} bytes", v.bytes),
            };
            let _ = writeln!(
                s,
                "# VIOLATED {} on {} processes at {at}: {} is {:.2}x {} (p {}){}",
                v.guideline,
                v.processes,
                v.collective,
                v.ratio,
                v.mockup,
                p_text(v.p_value),
                if shared.is_some() {
                    " (shared cores)"
                } else {
                    ""
                }
            );
        }
        s
    }
}

/// The guidelines' part of the HTML report: each result's verdicts as a table.
pub const PARTS: ReportParts = ReportParts {
    tables: Some(report_tables),
    ..ReportParts::NONE
};

/// The HTML report's table of one result's verdicts.
pub fn report_tables(r: &BenchResult) -> Vec<PartTable> {
    if r.figures.guidelines.is_empty() {
        return Vec::new();
    }
    vec![PartTable {
        caption: "Self-consistent performance guidelines",
        head: &[
            "guideline",
            "collective",
            "mock-up",
            "verdict",
            "bytes",
            "t collective [us]",
            "t mock-up [us]",
            "ratio",
            "p-value",
        ],
        left: 4,
        rows: r
            .figures
            .guidelines
            .iter()
            .map(|v| {
                vec![
                    v.guideline.clone(),
                    v.collective.clone(),
                    v.mockup.clone(),
                    v.verdict.clone(),
                    v.bytes.to_string(),
                    format!("{:.3}", v.t_collective_us),
                    format!("{:.3}", v.t_mockup_us),
                    format!("{:.2}", v.ratio),
                    p_text(v.p_value),
                ]
            })
            .collect(),
    }]
}
