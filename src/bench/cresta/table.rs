//! CRESTA's output (D4.5.2 §5): gnuplot-ready blocks, one per collective,
//! scenario and t_delay or t_calc: `#` lines saying what the block is, a
//! title line, `Data  ranks  average (us)  min (us)  max (us)  stdDev (us)`
//! and one row per (m, P), rows of one m together; blocks are separated by
//! two blank lines (gnuplot's `index`), message sizes within a block by one.
//! `--stats` adds median, CI, start skew and the valid/invalid counts after
//! the seed's columns, `--check` an errors column. Blocks of the derived
//! figures follow: scenario 2's T − t_delay against scenario 1's T, and
//! scenario 3's overlap by both definitions. A block spans every process
//! count, so they are printed at the end of the run.

use std::fmt::Write;

use serde_json::Value;

use crate::bench::cresta::{self as c, SUITE};
use crate::report::table::{opt, run_lines, Format, Heading, SectionCx};
use crate::report::view::ReportParts;
use crate::results::{BenchResult, Report, Row};

pub struct Cresta;

/// CRESTA's part of the HTML report: its scenario names a series, it is
/// never an axis of a figure.
pub const PARTS: ReportParts = ReportParts {
    identifiers: &[c::SCENARIO],
    ..ReportParts::NONE
};

const RULE: &str = "#------------------------------------------------------------------------";
pub const HEADER: &str = "Data  ranks  average (us)  min (us)  max (us)  stdDev (us)";

impl Format for Cresta {
    fn header(&self, report: &Report, plan: &Heading) -> String {
        let mut s = String::new();
        let _ = writeln!(s, "{RULE}");
        let _ = writeln!(
            s,
            "# CRESTA Collectives Microbenchmark Suite (D4.5.2) on mpibench {}",
            report.mpibench_version
        );
        let _ = writeln!(s, "{RULE}");
        s.push_str(&run_lines(report, "# "));
        if let Some(p) = &plan.frontend {
            let _ = writeln!(
                s,
                "# Parameters            : COLL P_min nreps m_min m_max delay delay_P = {p}"
            );
        }
        for line in [
            "# Time to completion    : T = max(t_end) - min(t_start) over the participants, per repetition,",
            "#                         on synchronised clocks, every repetition starting at an agreed time",
            "# Scenario 1            : start - issue - sync - stop",
            "# Scenario 2            : participant D: start - delay(t_delay) - issue - sync - stop; the others: scenario 1",
            "# Scenario 3            : start - issue - calc(t_calc) - sync - stop (blocking collectives: calc after the call)",
            "# Data                  : m bytes of MPI_BYTE in the outbound buffer; reductions: MPI_UNSIGNED_CHAR with MPI_SUM;",
            "#                         Alltoall, Scatter, Reduce_scatter_block: blocks of m/P to each participant",
            "# Delayed participant   : D numbered from 1 (delay_P): 1 = the first, P = the last",
            "# Output                : blocks for gnuplot (index n), printed when every process count has run",
        ] {
            let _ = writeln!(s, "{line}");
        }
        s
    }

    fn section(&self, _r: &BenchResult, _cx: &SectionCx) -> String {
        String::new()
    }

    fn footer(&self, report: &Report) -> String {
        self.summary(
            report,
            &SectionCx {
                rank_rows: None,
                world: report.world_size,
                stats: false,
                repeats: 1,
            },
        )
    }

    fn summary(&self, report: &Report, cx: &SectionCx) -> String {
        let results: Vec<&BenchResult> = report
            .results
            .iter()
            .filter(|r| r.suite == SUITE && !r.aggregate)
            .collect();
        let mut names: Vec<&str> = Vec::new();
        for r in &results {
            if !names.contains(&r.benchmark.as_str()) {
                names.push(&r.benchmark);
            }
        }
        let mut s = String::new();
        for name in names {
            let mut mine: Vec<&BenchResult> = results
                .iter()
                .copied()
                .filter(|r| r.benchmark == name)
                .collect();
            mine.sort_by_key(|r| r.processes);
            s.push_str(&benchmark(name, &mine, cx.stats, report.settings.check));
        }
        if report.settings.check {
            let errors: u64 = results
                .iter()
                .flat_map(|r| &r.rows)
                .filter_map(|r| r.errors)
                .sum();
            let _ = writeln!(s, "\n# Validation: {errors} errors");
        }
        s
    }
}

fn param(row: &Row, k: &str) -> Option<f64> {
    row.params.get(k).and_then(Value::as_f64)
}

fn scenario(row: &Row) -> u64 {
    row.params
        .get(c::SCENARIO)
        .and_then(Value::as_u64)
        .unwrap_or(1)
}

/// The swept value of a row's scenario (t_delay or t_calc; 0 in scenario 1).
fn swept(row: &Row) -> f64 {
    match scenario(row) {
        2 => param(row, c::T_DELAY).unwrap_or(0.0),
        3 => param(row, c::T_CALC).unwrap_or(0.0),
        _ => 0.0,
    }
}

fn us(v: f64) -> String {
    if v.fract() == 0.0 {
        format!("{v:.0}")
    } else {
        format!("{v}")
    }
}

/// Every block of one collective over its process counts.
fn benchmark(name: &str, rs: &[&BenchResult], stats: bool, check: bool) -> String {
    let mut s = String::new();
    let title = c::title(name);
    for r in rs {
        if let Some(why) = &r.skipped {
            let _ = writeln!(s, "\n# {name} on {} processes: skipped: {why}", r.processes);
        }
        if let Some(n) = &r.note {
            let _ = writeln!(s, "\n# {name} on {} processes: {n}", r.processes);
        }
    }
    let rows: Vec<(usize, &Row)> = rs
        .iter()
        .flat_map(|r| r.rows.iter().map(move |x| (r.processes, x)))
        .collect();
    let mut keys: Vec<(u64, f64)> = Vec::new();
    for (_, row) in &rows {
        let k = (scenario(row), swept(row));
        if !keys.contains(&k) {
            keys.push(k);
        }
    }
    keys.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.total_cmp(&b.1)));
    for &(sc, v) in &keys {
        let mut block: Vec<(usize, &Row)> = rows
            .iter()
            .copied()
            .filter(|(_, x)| scenario(x) == sc && swept(x) == v)
            .collect();
        block.sort_by_key(|(q, x)| (x.bytes, *q));
        s.push_str(&times(name, &title, sc, v, &block, stats, check));
    }
    for sc in [2, 3] {
        let mut block: Vec<(usize, &Row)> = rows
            .iter()
            .copied()
            .filter(|(_, x)| scenario(x) == sc)
            .collect();
        if block.is_empty() {
            continue;
        }
        block.sort_by(|(qa, a), (qb, b)| {
            swept(a)
                .total_cmp(&swept(b))
                .then(a.bytes.cmp(&b.bytes))
                .then(qa.cmp(qb))
        });
        s.push_str(&derived(name, &title, sc, &block));
    }
    s
}

/// The seed's block of T for one scenario and t_delay / t_calc.
fn times(
    name: &str,
    title: &str,
    sc: u64,
    v: f64,
    block: &[(usize, &Row)],
    stats: bool,
    check: bool,
) -> String {
    let mut s = String::from("\n\n");
    let what = match sc {
        2 => {
            let mut d: Vec<String> = Vec::new();
            for (q, x) in block {
                if let Some(r) = x.params.get(c::DELAYED_RANK).and_then(Value::as_u64) {
                    // The seed numbers participants from 1 (D = 1 .. P).
                    let who = format!("D = {} of P = {q}, rank {r}", r + 1);
                    if !d.contains(&who) {
                        d.push(who);
                    }
                }
            }
            format!(
                "scenario 2: participant {} delayed by t_delay = {} us before issuing",
                d.join("; "),
                us(v)
            )
        }
        3 => format!(
            "scenario 3: calc(t_calc = {} us) between issue and sync",
            us(v)
        ),
        _ => "scenario 1: the collective only".to_string(),
    };
    let _ = writeln!(s, "# {name}, {what}");
    let skews: Vec<f64> = block.iter().filter_map(|(_, x)| x.skew_us).collect();
    let skew = match crate::stats::min_max_avg(&skews) {
        None => String::new(),
        Some((lo, hi, _)) => format!("; start skew (median per row) {lo:.2} .. {hi:.2} us"),
    };
    let _ = writeln!(
        s,
        "# T = max(t_end) - min(t_start) over the repetitions (us){skew}"
    );
    if sc == 1 {
        let _ = writeln!(s, "{title}:");
    } else {
        let axis = if sc == 2 { "t_delay" } else { "t_calc" };
        let _ = writeln!(s, "{title}, scenario {sc}, {axis} = {} us:", us(v));
    }
    let mut head = HEADER.to_string();
    if stats {
        head.push_str("  median (us)  ci95_lo (us)  ci95_hi (us)  skew (us)  valid  invalid");
    }
    if check {
        head.push_str("  errors");
    }
    let _ = writeln!(s, "{head}");
    let mut last = None;
    for (q, x) in block {
        if last.is_some_and(|b| b != x.bytes) {
            s.push('\n');
        }
        last = Some(x.bytes);
        let ok = x.valid.unwrap_or(1) > 0;
        let f = |v: f64| if ok { format!("{v:.6}") } else { "-".into() };
        let _ = write!(
            s,
            "{:<5} {:<6} {:<13} {:<10} {:<11} {}",
            x.bytes,
            q,
            f(x.t_avg_us),
            f(x.t_min_us),
            f(x.t_max_us),
            x.t_stddev_us
                .filter(|_| ok)
                .map_or("-".into(), |v| format!("{v:.6}"))
        );
        if stats {
            let _ = write!(
                s,
                "  {:<11} {:<13} {:<13} {:<10} {:<6} {}",
                opt(x.t_median_us, 6),
                opt(x.ci95_lo_us, 6),
                opt(x.ci95_hi_us, 6),
                opt(x.skew_us, 3),
                x.valid.map_or("-".into(), |v| v.to_string()),
                x.invalid.map_or("-".into(), |v| v.to_string())
            );
        }
        if check {
            let _ = write!(s, "  {}", x.errors.map_or("-".into(), |e| e.to_string()));
        }
        s.push('\n');
        if let Some(n) = &x.note {
            let _ = writeln!(s, "# {n}");
        }
    }
    s
}

/// The figures that put scenario 2 or 3 against scenario 1.
fn derived(name: &str, title: &str, sc: u64, block: &[(usize, &Row)]) -> String {
    let mut s = String::from("\n\n");
    let o = |x: &Row, k: &str, p: usize| opt(param(x, k), p);
    if sc == 2 {
        let _ = writeln!(
            s,
            "# {name}, scenario 2 against scenario 1: T - t_delay is the part of the delay that was not absorbed"
        );
        let _ = writeln!(
            s,
            "# (averages of T, us); delay achieved: the busy-wait of D as measured"
        );
        let _ = writeln!(s, "{title}, scenario 2 against scenario 1:");
        let _ = writeln!(
            s,
            "t_delay (us)  delay achieved (us)  Data  ranks  T-t_delay (us)  T scenario 1 (us)"
        );
        for (q, x) in block {
            let _ = writeln!(
                s,
                "{:<13} {:<20} {:<5} {:<6} {:<15} {}",
                us(swept(x)),
                o(x, c::T_DELAY_ACHIEVED, 3),
                x.bytes,
                q,
                o(x, c::T_MINUS_DELAY, 6),
                o(x, c::T_SC1, 6)
            );
        }
    } else {
        for line in [
            format!("# {name}, scenario 3 overlap (%), t_pure = T of scenario 1, t_overall = T of scenario 3 (averages),"),
            "# t_cpu = calc achieved (mean over the participants, at most t_overall), t_test = 0 (calc makes no MPI call):".to_string(),
            "#   OSU 7:   max(0, 100 - 100*(t_overall - (t_cpu - t_test))/t_pure)".to_string(),
            "#   IMB-NBC: 100*max(0, min(1, (t_pure + t_cpu - t_overall)/min(t_pure, t_cpu)))".to_string(),
        ] {
            let _ = writeln!(s, "{line}");
        }
        let _ = writeln!(s, "{title}, scenario 3 overlap:");
        let _ = writeln!(
            s,
            "t_calc (us)  calc achieved (us)  Data  ranks  T scenario 1 (us)  T (us)  overlap OSU (%)  overlap IMB-NBC (%)"
        );
        for (q, x) in block {
            let ok = x.valid.unwrap_or(1) > 0;
            let _ = writeln!(
                s,
                "{:<12} {:<19} {:<5} {:<6} {:<18} {:<7} {:<16} {}",
                us(swept(x)),
                o(x, c::T_CALC_ACHIEVED, 3),
                x.bytes,
                q,
                o(x, c::T_SC1, 6),
                if ok {
                    format!("{:.6}", x.t_avg_us)
                } else {
                    "-".into()
                },
                o(x, c::OVERLAP_OSU, 1),
                o(x, c::OVERLAP_NBC, 1)
            );
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::table::fixtures::*;
    use serde_json::json;

    fn cresta_row(sc: u64, bytes: usize, t: f64, extra: &[(&str, Value)]) -> Row {
        let mut r = row(bytes, t);
        r.t_stddev_us = Some(t * 0.05);
        r.skew_us = Some(0.5 + t / 1000.0);
        r.params.insert(c::SCENARIO.into(), json!(sc));
        for (k, v) in extra {
            r.params.insert((*k).into(), v.clone());
        }
        r
    }

    fn bcast(q: usize) -> BenchResult {
        let f = q as f64;
        let rows = vec![
            cresta_row(1, 512, 10.0 * f, &[]),
            cresta_row(1, 4096, 20.0 * f, &[]),
            cresta_row(
                2,
                512,
                110.0 * f,
                &[
                    (c::T_DELAY, json!(100)),
                    (c::DELAYED_RANK, json!(q - 1)),
                    (c::T_DELAY_ACHIEVED, json!(100.02)),
                    (c::T_MINUS_DELAY, json!(10.0 * f)),
                    (c::T_SC1, json!(10.0 * f)),
                ],
            ),
            cresta_row(
                3,
                512,
                105.0 * f,
                &[
                    (c::T_CALC, json!(100)),
                    (c::T_CALC_ACHIEVED, json!(101.5)),
                    (c::T_SC1, json!(10.0 * f)),
                    (c::OVERLAP_OSU, json!(42.5)),
                    (c::OVERLAP_NBC, json!(55.0)),
                ],
            ),
        ];
        let mut r = result("Ibcast", SUITE, "collective", q, rows);
        r.method = Some("global-completion".into());
        r
    }

    #[test]
    fn blocks_span_process_counts() {
        let mut rep = report(4);
        rep.results = vec![bcast(2), bcast(4)];
        let mut skipped = result("Ibcast", SUITE, "collective", 1, Vec::new());
        skipped.skipped = Some("needs more participants".into());
        rep.results.insert(0, skipped);
        let cx = SectionCx {
            rank_rows: None,
            world: 4,
            stats: true,
            repeats: 1,
        };
        assert_eq!(Cresta.section(&rep.results[1], &cx), "");
        insta::assert_snapshot!(Cresta.summary(&rep, &cx));
    }

    #[test]
    fn plain_blocks_have_the_seed_columns() {
        let mut rep = report(4);
        rep.settings.check = false;
        rep.results = vec![bcast(2)];
        let s = Cresta.footer(&rep);
        assert!(s.contains(
            "\nIbroadcast:\nData  ranks  average (us)  min (us)  max (us)  stdDev (us)\n512   2"
        ));
        assert!(!s.contains("median (us)"));
        assert!(!s.contains("Validation"));
    }
}
