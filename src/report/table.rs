//! PMB/IMB-style tables on stdout (PMB §6).

use std::fmt::Write;

use crate::results::{BenchResult, Report, Row};

const RULE: &str = "#----------------------------------------------------------------";

/// The run header: date, hosts, MPI library, command and what will run.
pub fn header(report: &Report, sizes: &[usize], benchmarks: &[String], multi: bool) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "{RULE}");
    let _ = writeln!(
        s,
        "#    mpibench {}, PMB-MPI1 / IMB-MPI1 compatible",
        report.mpibench_version
    );
    let _ = writeln!(s, "{RULE}");
    let _ = writeln!(s, "# Date                  : {}", report.started);
    let hosts: Vec<String> = report
        .hosts
        .iter()
        .zip(&report.ranks_per_host)
        .map(|(h, n)| format!("{h} ({n} ranks)"))
        .collect();
    let _ = writeln!(s, "# Hosts                 : {}", hosts.join(", "));
    let _ = writeln!(s, "# Processes             : {}", report.world_size);
    let _ = writeln!(s, "# MPI library           : {}", report.mpi.library);
    let _ = writeln!(
        s,
        "# MPI version           : {}.{}",
        report.mpi.version[0], report.mpi.version[1]
    );
    let _ = writeln!(s, "# Command               : {}", report.command.join(" "));
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
    for b in benchmarks {
        let _ = writeln!(s, "# {}{b}", if multi { "Multi-" } else { "" });
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
        s.push_str(&format!("{:>12.2}", row.t_max_us));
    } else {
        s.push_str(&format!(
            "{:>12.2} {:>12.2} {:>12.2}",
            row.t_min_us, row.t_max_us, row.t_avg_us
        ));
    }
    if let Some(mb) = row.mbytes_per_sec {
        s.push_str(&format!(" {mb:>12.2}"));
    }
    if let Some(e) = row.errors {
        s.push_str(&format!(" {e:>8}"));
    }
    if stats {
        let f = |v: Option<f64>| v.map_or("-".to_string(), |v| format!("{v:.2}"));
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
pub fn section(r: &BenchResult, world: usize, stats: bool) -> String {
    let mut s = String::new();
    let name = if r.mode == "multi" {
        format!("Multi-{}", r.benchmark)
    } else {
        r.benchmark.clone()
    };
    let _ = writeln!(s, "\n{RULE}");
    let _ = writeln!(s, "# Benchmarking {name}");
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
    if world > r.active {
        let _ = writeln!(
            s,
            "# ( {} additional processes waiting in MPI_Barrier)",
            world - r.active
        );
    }
    let _ = writeln!(s, "{RULE}");
    let throughput = r.rows.first().is_some_and(|x| x.mbytes_per_sec.is_some());
    let checked = r.rows.first().is_some_and(|x| x.errors.is_some());
    if r.group_rows.is_empty() {
        let _ = writeln!(s, "{}", columns(r, throughput, checked, false, stats));
        for row in &r.rows {
            let _ = writeln!(s, "{}", line(r, row, None, stats));
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
pub fn footer(report: &Report) -> String {
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
