//! IMB-P2P 2021's tables, as IMB-P2P 2021.11 prints them: its own header
//! block, and per benchmark "#bytes #repetitions t[usec] Mbytes/sec
//! Msg/sec" in 12-character columns (Mbytes: 10^6 bytes); a benchmark that
//! cannot run on the process count gets IMB-P2P's "invalid" line.

use std::fmt::Write;

use super::patterns::{grid2, grid3};
use crate::bench::imb::table::imb2021::{self, Sys};
use crate::report::table::{printable, Format, Heading, SectionCx};
use crate::results::{BenchResult, Report};

pub const RULE60: &str = "#------------------------------------------------------------";
const RULE64: &str = "#----------------------------------------------------------------";

pub struct ImbP2p;

impl Format for ImbP2p {
    fn header(&self, report: &Report, plan: &Heading) -> String {
        header(report, plan, &Sys::current())
    }
    fn section(&self, r: &BenchResult, _cx: &SectionCx) -> String {
        section(r)
    }
    fn footer(&self, _report: &Report) -> String {
        "\n\n# All processes entering MPI_Finalize\n\n".to_string()
    }
}

fn header(report: &Report, plan: &Heading, sys: &Sys) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "{RULE60}");
    let _ = writeln!(
        s,
        "#    Intel(R) MPI Benchmarks 2021.11, IMB-P2P part (mpibench {}, compatible output)",
        report.mpibench_version
    );
    let _ = writeln!(s, "{RULE60}");
    s.push_str(&imb2021::sys_lines(report, sys));
    s.push_str("# MPI Thread Environment:\n#\n# Calling sequence was:\n#\n");
    let calling = plan
        .frontend
        .clone()
        .unwrap_or_else(|| plan.command.join(" "));
    let _ = writeln!(s, "# {}", printable(&calling));
    s.push_str("#\n# List of Benchmarks to run:\n#\n");
    for b in &plan.benchmarks {
        let name = b.rsplit('/').next().unwrap_or(b);
        let _ = writeln!(s, "# {name}");
    }
    // IMB-P2P: the least and the largest of the lengths (in any order).
    let min = plan.sizes.iter().min().copied().unwrap_or(0);
    let max = plan.sizes.iter().max().copied().unwrap_or(0);
    let _ = writeln!(s, "#\n# Minimum message length in bytes:   {min}");
    let _ = writeln!(s, "# Maximum message length in bytes:   {max}\n#");
    s
}

/// The title of a benchmark's block: the stencils name their grid (z x y x x).
fn title(name: &str, q: usize) -> String {
    match (name, grid2(q), grid3(q)) {
        ("Stencil2D", Some((x, y)), _) => format!("{name} ({y} x {x})"),
        ("Stencil3D", _, Some((x, y, z))) => format!("{name} ({z} x {y} x {x})"),
        _ => name.to_string(),
    }
}

/// IMB-P2P's line for a benchmark the process count cannot run (its
/// wording differs between benchmarks).
fn invalid(name: &str, q: usize) -> String {
    match name {
        "PingPing" => format!("\n# !! Benchmark {name} invalid for {q} processes !!\n"),
        "SendRecv_Replace" => format!("\n# !! Benchmark {name} is invalid for {q} process !!\n"),
        _ => format!("\n# !! Benchmark {name} is invalid for {q} processes !!\n"),
    }
}

fn section(r: &BenchResult) -> String {
    let q = r.processes;
    // IMB-P2P's line where the process count cannot run it; any other
    // reason (the memory limit) under the benchmark's own heading.
    match &r.skipped {
        Some(why) if why.contains("is invalid for") => return invalid(&r.benchmark, q),
        Some(why) => {
            return format!(
                "\n{RULE64}\n# Benchmarking {}\n# #processes = {q}\n{RULE64}\n# skipped: {}\n",
                title(&r.benchmark, q),
                printable(why)
            )
        }
        None => {}
    }
    let mut s = String::new();
    let _ = writeln!(s, "\n{RULE64}");
    let _ = writeln!(s, "# Benchmarking {}", title(&r.benchmark, q));
    let _ = writeln!(s, "# #processes = {q}");
    let _ = writeln!(s, "{RULE64}");
    let checked = r.rows.iter().any(|x| x.errors.is_some());
    let _ = write!(
        s,
        " {:>12} {:>12} {:>12} {:>12} {:>12}",
        "#bytes", "#repetitions", "t[usec]", "Mbytes/sec", "Msg/sec"
    );
    if checked {
        let _ = write!(s, " {:>12}", "defects");
    }
    s.push('\n');
    let num = |v: Option<f64>, prec: usize| match v.filter(|v| v.is_finite()) {
        Some(v) => format!(" {v:>12.prec$}"),
        None => format!(" {:>12}", "n/a"),
    };
    for row in &r.rows {
        let _ = write!(s, " {:>12} {:>12}", row.bytes, row.repetitions);
        s += &num(Some(row.t_avg_us), 2);
        s += &num(row.mbytes_per_sec, 2);
        s += &num(row.msg_per_sec, 0);
        if checked {
            s += &num(row.errors.map(|e| e as f64), 2);
        }
        s.push('\n');
    }
    if let Some(n) = &r.note {
        let _ = writeln!(s, "# {}", printable(n));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::imb::table::imb2021::fixtures::sys;
    use crate::report::table::fixtures::*;

    fn p2p(name: &str, q: usize, bytes: &[usize]) -> BenchResult {
        let rows = bytes
            .iter()
            .map(|&b| {
                let mut x = row(b, 2.5);
                x.repetitions = 200;
                x.errors = None;
                x.t_avg_us = 0.25;
                x.mbytes_per_sec = Some(b as f64 / 0.25);
                x.msg_per_sec = Some(3926997.0);
                x
            })
            .collect();
        result(name, super::super::SUITE, "parallel transfer", q, rows)
    }

    #[test]
    fn sections_as_imb_p2p_prints_them() {
        let mut s = section(&p2p("PingPong", 2, &[0, 1, 4194304]));
        s += &section(&p2p("Stencil2D", 4, &[0, 8]));
        s += &section(&p2p("Stencil3D", 8, &[8]));
        let mut skipped = p2p("Stencil2D", 2, &[]);
        skipped.skipped = Some("Stencil2D is invalid for 2 processes".into());
        s += &section(&skipped);
        let mut skipped = p2p("PingPing", 3, &[]);
        skipped.skipped = Some("PingPing is invalid for 3 processes".into());
        s += &section(&skipped);
        let mut skipped = p2p("Unirandom", 2, &[]);
        skipped.skipped =
            Some("points from 5368709120 bytes skipped: above the limit (--mem)".into());
        s += &section(&skipped);
        insta::assert_snapshot!(s);
    }

    #[test]
    fn the_header_is_imb_p2ps() {
        let args = crate::cli::RunArgs {
            benchmarks: vec!["PingPong".into(), "Stencil2D".into()],
            suite: Some(super::super::SUITE.into()),
            time: 10.0,
            sweep: crate::cli::Sweep {
                sizes: Some("0,1,2,4".into()),
                ..Default::default()
            },
            front: crate::cli::FrontSet {
                frontend: Some("./IMB-P2P -iter 200 PingPong Stencil2D".into()),
                ..Default::default()
            },
            ..Default::default()
        };
        let h = header(&report(4), &plan(&args, 4).heading(), &sys());
        assert!(
            h.starts_with(&format!(
                "{RULE60}\n#    Intel(R) MPI Benchmarks 2021.11, IMB-P2P part (mpibench"
            )),
            "{h}"
        );
        assert!(h.contains("# MPI Thread Environment:\n#\n# Calling sequence was:\n#\n# ./IMB-P2P -iter 200 PingPong Stencil2D\n#\n# List of Benchmarks to run:\n#\n# PingPong\n# Stencil2D\n#\n# Minimum message length in bytes:   0\n# Maximum message length in bytes:   4\n#\n"), "{h}");
    }
}
