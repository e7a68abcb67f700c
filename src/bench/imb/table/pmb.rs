//! PMB/IMB-style tables (PMB §6).

use std::fmt::Write;

use crate::report::table::{fixed, hosts_line, opt, run_lines, Format, Heading, SectionCx};
use crate::results::{BenchResult, Report, Row};

const RULE: &str = "#----------------------------------------------------------------";

/// PMB-MPI1 / IMB-MPI1 tables (PMB §6).
pub struct Pmb;

impl Format for Pmb {
    fn header(&self, report: &Report, plan: &Heading) -> String {
        header(report, plan)
    }
    fn section(&self, r: &BenchResult, cx: &SectionCx) -> String {
        section(r, cx)
    }
    fn footer(&self, report: &Report) -> String {
        footer(report)
    }
}

fn header(report: &Report, plan: &Heading) -> String {
    let sizes = &plan.sizes;
    let mut s = String::new();
    let _ = writeln!(s, "{RULE}");
    let _ = writeln!(
        s,
        "#    mpibench {}, PMB-MPI1 / IMB-MPI1 compatible",
        report.mpibench_version
    );
    let _ = writeln!(s, "{RULE}");
    s.push_str(&run_lines(report, "# "));
    let _ = writeln!(s, "#");
    let _ = writeln!(
        s,
        "# Minimum message length in bytes:   {}",
        sizes.first().copied().unwrap_or(0)
    );
    let _ = writeln!(
        s,
        "# Maximum message length in bytes:   {}",
        sizes.last().copied().unwrap_or(0)
    );
    let _ = writeln!(s, "#");
    let _ = writeln!(s, "# MPI_Datatype                   :   MPI_BYTE");
    let _ = writeln!(s, "# MPI_Datatype for reductions    :   MPI_FLOAT");
    let _ = writeln!(s, "# MPI_Op                         :   MPI_SUM");
    let _ = writeln!(
        s,
        "# Synchronisation                :   {}",
        report.settings.sync
    );
    let _ = writeln!(
        s,
        "# Timing                         :   {}",
        report.settings.timing
    );
    if report.settings.check {
        let _ = writeln!(
            s,
            "# Validation                     :   every transfer checked (--check)"
        );
    }
    let _ = writeln!(s, "#");
    let _ = writeln!(s, "# List of Benchmarks to run:");
    let _ = writeln!(s, "#");
    for b in &plan.benchmarks {
        let name = b.rsplit('/').next().unwrap_or(b);
        let _ = writeln!(s, "# {}{name}", if plan.multi { "Multi-" } else { "" });
    }
    s
}

fn is_single(r: &BenchResult) -> bool {
    r.class == "single transfer" && r.mode == "primary"
}

fn columns(r: &BenchResult, throughput: bool, checked: bool, group: bool, stats: bool) -> String {
    let mut s = String::new();
    if group {
        s.push_str(&format!("{:>6} ", "group"));
    }
    if r.benchmark != "Barrier" {
        s.push_str(&format!("{:>12} ", "#bytes"));
    }
    s.push_str(&format!("{:>12} ", "#repetitions"));
    if is_single(r) {
        s.push_str(&format!("{:>12}", "t[usec]"));
    } else {
        s.push_str(&format!(
            "{:>12} {:>12} {:>12}",
            "t_min[usec]", "t_max[usec]", "t_avg[usec]"
        ));
    }
    if throughput {
        s.push_str(&format!(" {:>12}", "Mbytes/sec"));
    }
    if checked {
        s.push_str(&format!(" {:>8}", "errors"));
    }
    if stats {
        s.push_str(&format!(
            " {:>14} {:>12} {:>12} {:>8} {:>8}",
            "t_median[usec]", "ci95_lo", "ci95_hi", "outliers", "invalid"
        ));
        if r.rows.first().is_some_and(|x| x.t_global_us.is_some()) {
            s.push_str(&format!(" {:>14}", "t_global[usec]"));
        }
    }
    s
}

/// The table has a throughput column: some row has a figure.
fn has_throughput(r: &BenchResult) -> bool {
    r.rows.iter().any(|x| x.mbytes_per_sec.is_some())
}

fn line(r: &BenchResult, row: &Row, group: Option<usize>, stats: bool) -> String {
    let mut s = String::new();
    if let Some(g) = group {
        s.push_str(&format!("{g:>6} "));
    }
    if r.benchmark != "Barrier" {
        s.push_str(&format!("{:>12} ", row.bytes));
    }
    s.push_str(&format!("{:>12} ", row.repetitions));
    if is_single(r) {
        s.push_str(&fixed(row.t_max_us, 12, 2));
    } else {
        s.push_str(&format!(
            "{} {} {}",
            fixed(row.t_min_us, 12, 2),
            fixed(row.t_max_us, 12, 2),
            fixed(row.t_avg_us, 12, 2)
        ));
    }
    if has_throughput(r) {
        // "-" where this row has none (no valid sample, no positive time).
        s.push_str(&format!(
            " {}",
            fixed(row.mbytes_per_sec.unwrap_or(f64::NAN), 12, 2)
        ));
    }
    if let Some(e) = row.errors {
        s.push_str(&format!(" {e:>8}"));
    }
    if stats {
        let f = |v: Option<f64>| opt(v, 2);
        let n = |v: Option<u64>| v.map_or("-".to_string(), |v| v.to_string());
        s.push_str(&format!(
            " {:>14} {:>12} {:>12} {:>8} {:>8}",
            f(row.t_median_us),
            f(row.ci95_lo_us),
            f(row.ci95_hi_us),
            n(row.outliers),
            n(row.invalid)
        ));
        if row.t_global_us.is_some() {
            s.push_str(&format!(" {:>14}", f(row.t_global_us)));
        }
    }
    if row.stopped_on_bound == Some(true) {
        s.push_str("  (stopped on a bound)");
    }
    s
}

/// The clock tools' tables: one line per rank.
fn clock_section(r: &BenchResult) -> String {
    let mut s = String::new();
    let f = |v: Option<f64>| v.map_or("-".to_string(), |v| format!("{v:.4}"));
    if r.benchmark == "timing" {
        let _ = writeln!(
            s,
            "{:>6} {:>12} {:>16} {:>12}",
            "#rank", "tick[usec]", "resolution[usec]", "DT[usec]"
        );
        for row in &r.rows {
            let _ = writeln!(
                s,
                "{:>6} {:>12} {:>16} {:>12}",
                row.rank.unwrap_or(0),
                f(row.tick_us),
                f(row.resolution_us),
                f(row.overhead_us)
            );
        }
    } else {
        let _ = writeln!(
            s,
            "{:>6} {:>14} {:>12} {:>14}",
            "#rank", "offset[usec]", "drift[ppm]", "residual[usec]"
        );
        for row in &r.rows {
            let _ = writeln!(
                s,
                "{:>6} {:>14} {:>12} {:>14}",
                row.rank.unwrap_or(0),
                f(row.offset_us),
                f(row.drift_ppm),
                f(row.residual_us)
            );
        }
    }
    s
}

/// One benchmark at one process count.
fn section(r: &BenchResult, cx: &SectionCx) -> String {
    let (world, stats) = (cx.world, cx.stats);
    let mut s = String::new();
    let name = if r.mode == "multi" {
        format!("Multi-{}", r.benchmark)
    } else {
        r.benchmark.clone()
    };
    let _ = writeln!(s, "\n{RULE}");
    let _ = writeln!(s, "# Benchmarking {name}");
    if let Some(k) = r.repeat {
        let _ = writeln!(s, "# repeat {k} of {}", cx.repeats);
    } else if r.aggregate {
        let _ = writeln!(s, "# aggregate of {} repeats: t_min/t_max/t_avg = min, max, mean over the repeats of t_avg", cx.repeats);
    }
    if let Some(why) = &r.skipped {
        let _ = writeln!(s, "# skipped: {why}");
        let _ = writeln!(s, "{RULE}");
        return s;
    }
    if r.class == "clock" {
        let _ = writeln!(s, "# #processes = {}", r.processes);
        let _ = writeln!(s, "{RULE}");
        s.push_str(&clock_section(r));
        return s;
    }
    if let Some(note) = &r.note {
        let _ = writeln!(s, "# note: {note}");
    }
    if r.mode == "multi" {
        let _ = writeln!(
            s,
            "# ( {} groups of {} processes each running simultaneously )",
            r.groups, r.processes
        );
        for g in 0..r.groups {
            let ranks: Vec<String> = (g * r.processes..(g + 1) * r.processes)
                .map(|k| format!("{k:>5}"))
                .collect();
            let _ = writeln!(s, "# Group {g:>2}: {}", ranks.join(""));
        }
    } else {
        let _ = writeln!(s, "# #processes = {}", r.processes);
    }
    // PMB's count: the processes outside the groups (ranks that sat out
    // inside a group have a line of their own).
    let grouped = r.groups.max(1) * r.processes;
    if world > grouped {
        let _ = writeln!(
            s,
            "# ( {} additional processes waiting in MPI_Barrier)",
            world - grouped
        );
    }
    if let Some(l) = crate::report::table::sat_out_line(r) {
        let _ = writeln!(s, "# {l}");
    }
    if let Some(h) = hosts_line(r) {
        let _ = writeln!(s, "# hosts: {h}");
    }
    let _ = writeln!(s, "{RULE}");
    let throughput = has_throughput(r);
    let checked = r.rows.first().is_some_and(|x| x.errors.is_some());
    if r.group_rows.is_empty() {
        let _ = writeln!(s, "{}", columns(r, throughput, checked, false, stats));
        for row in &r.rows {
            let _ = writeln!(s, "{}", line(r, row, None, stats));
            if let Some(n) = &row.note {
                let _ = writeln!(s, "#   ^ {n}");
            }
        }
    } else {
        let _ = writeln!(s, "{}", columns(r, throughput, checked, true, stats));
        for (i, row) in r.rows.iter().enumerate() {
            for g in &r.group_rows {
                let _ = writeln!(s, "{}", line(r, &g.rows[i], Some(g.group), stats));
            }
            let _ = writeln!(
                s,
                "{}",
                line(r, row, None, stats).replacen("", &format!("{:>6} ", "max"), 1)
            );
        }
    }
    s
}

/// Closing lines: total errors and exit status.
fn footer(report: &Report) -> String {
    let errors: u64 = report
        .results
        .iter()
        .flat_map(|r| &r.rows)
        .filter_map(|r| r.errors)
        .sum();
    if report.settings.check {
        format!("\n# Validation: {errors} errors\n# All processes entering MPI_Finalize\n")
    } else {
        "\n# All processes entering MPI_Finalize\n".to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::table::fixtures::*;

    fn cx(stats: bool) -> SectionCx {
        SectionCx {
            rank_rows: None,
            world: 4,
            stats,
            repeats: 1,
        }
    }

    #[test]
    fn pingpong_table() {
        let mut r = result(
            "PingPong",
            "imb",
            "single transfer",
            2,
            vec![row(0, 0.21), row(1024, 0.5)],
        );
        r.rows[1].mbytes_per_sec = Some(1953.13);
        r.rows[0].mbytes_per_sec = Some(0.0);
        r.active = 2;
        insta::assert_snapshot!(section(&r, &cx(false)));
    }

    #[test]
    fn hosts_of_the_ranks_in_the_header() {
        let mut r = result("PingPong", "imb", "single transfer", 2, vec![row(8, 3.8)]);
        r.active = 2;
        r.ranks = vec![0, 2];
        r.hosts = vec!["node1".into(), "node2".into()];
        r.pair = Some("inter".into());
        r.pairs = Some("inter".into());
        let s = section(&r, &cx(false));
        assert!(
            s.contains(
                "# hosts: node1 (rank 0), node2 (rank 2); pairs inter-host (--pairs inter)\n"
            ),
            "{s}"
        );
        // A collective on one host says nothing more.
        let mut b = result("Bcast", "imb", "collective", 2, vec![row(8, 1.0)]);
        b.ranks = vec![0, 1];
        b.hosts = vec!["vm".into(), "vm".into()];
        assert!(!section(&b, &cx(false)).contains("# hosts"));
    }

    #[test]
    fn collective_table_with_stats_and_notes() {
        let mut r = result(
            "Allreduce",
            "imb",
            "collective",
            4,
            vec![row(0, 1.5), row(3, 1.6), row(4, 1.7)],
        );
        r.rows[1].note =
            Some("3 bytes hold 0 MPI_FLOAT (L = X/4): the call reduces 0 bytes".into());
        r.rows[2].t_median_us = None;
        r.rows[2].valid = Some(0);
        r.rows[2].invalid = Some(1000);
        r.rows[2].note = Some("no valid sample: all 1000 started late; statistics are null".into());
        insta::assert_snapshot!(section(&r, &cx(true)));
    }

    #[test]
    fn clock_tools_one_line_per_rank() {
        let rank = |k: usize, f: &dyn Fn(&mut Row)| {
            let mut r = Row {
                rank: Some(k),
                ..Row::default()
            };
            f(&mut r);
            r
        };
        let timing = (0..3)
            .map(|k| {
                rank(k, &|r: &mut Row| {
                    r.tick_us = Some(1e-3);
                    r.resolution_us = Some(0.025 + k as f64 * 0.001);
                    r.overhead_us = (k != 2).then_some(0.0215);
                })
            })
            .collect();
        let mut t = result("timing", "clock", "clock", 3, timing);
        t.class = "clock".into();
        let sync = (0..3)
            .map(|k| {
                rank(k, &|r: &mut Row| {
                    r.offset_us = Some(-12.5 * k as f64 + 0.0);
                    r.drift_ppm = (k > 0).then_some(0.75 * k as f64);
                    r.residual_us = Some(0.1 * k as f64);
                })
            })
            .collect();
        let mut c = result("clocksync", "clock", "clock", 3, sync);
        c.class = "clock".into();
        insta::assert_snapshot!(section(&t, &cx(false)) + &section(&c, &cx(false)));
    }

    #[test]
    fn a_throughput_without_figure_is_a_dash() {
        let mut r = result(
            "Sendrecv",
            "imb",
            "parallel transfer",
            2,
            vec![row(0, 1.0), row(1024, 2.0)],
        );
        r.rows[0].mbytes_per_sec = None;
        r.rows[1].mbytes_per_sec = Some(976.56);
        let s = section(&r, &cx(false));
        let data: Vec<&str> = s
            .lines()
            .filter(|l| !l.is_empty() && !l.contains('#'))
            .collect();
        assert_eq!(data.len(), 2, "{s}");
        let f0: Vec<&str> = data[0].split_whitespace().collect();
        let f1: Vec<&str> = data[1].split_whitespace().collect();
        assert_eq!(f0.len(), f1.len(), "{s}");
        assert_eq!(f0[5], "-", "{s}");
    }

    #[test]
    fn barrier_and_skips() {
        let mut b = result("Barrier", "imb", "collective", 2, vec![row(0, 0.16)]);
        b.rows[0].errors = None;
        let mut s = section(&b, &cx(false));
        let mut skip = result("PingPong", "imb", "single transfer", 2, vec![]);
        skip.skipped = Some("PingPong needs at least 2 processes, this run has 1".into());
        s.push_str(&section(&skip, &cx(false)));
        insta::assert_snapshot!(s);
    }
}
