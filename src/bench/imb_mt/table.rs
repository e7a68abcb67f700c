//! IMB-MT 2021's tables, as IMB-MT 2021.11 prints them: its four-line
//! banner, and per benchmark "# #processes = P (threads: T)", the window
//! of UniBandMT and BiBandMT, and the columns its flags choose, each 13
//! characters wide; #bytes is X × T.

use std::fmt::Write;

use super::patterns::{Bandwidth, Op};
use crate::report::table::{printable, Format, Heading, SectionCx};
use crate::results::{BenchResult, Report, Row};

/// `-noheader`: no banner (a plan axis the front end sets).
pub const NOHEADER_AXIS: &str = "mt_noheader";

const BANNER_RULE: &str = "#------------------------------------------------------------------";
const RULE: &str = "#-----------------------------------------------------------------------------";
/// IMB-MT's field width.
const W: usize = 13;

pub struct ImbMt;

impl Format for ImbMt {
    fn header(&self, report: &Report, plan: &Heading) -> String {
        if plan.axes.contains_key(NOHEADER_AXIS) {
            return String::new();
        }
        header(&report.mpibench_version)
    }
    fn section(&self, r: &BenchResult, _cx: &SectionCx) -> String {
        section(r)
    }
    fn footer(&self, _report: &Report) -> String {
        "\n".to_string()
    }
}

fn header(version: &str) -> String {
    format!(
        "{BANNER_RULE}\n#    Intel(R) MPI Benchmarks 2021.11, MT part (mpibench {version}, compatible output)\n{BANNER_RULE}\n#\n"
    )
}

/// The columns of a benchmark (IMB-MT's OUT_* flags).
fn columns(op: Op) -> Vec<&'static str> {
    let mut c = Vec::new();
    if op.sized() {
        c.push("#bytes");
    }
    c.push("#repetitions");
    if op.bandwidth() != Some(Bandwidth::Cumulative) {
        c.extend(["t_min[usec]", "t_max[usec]"]);
    }
    c.push("t_avg[usec]");
    match op.bandwidth() {
        Some(Bandwidth::Pair(_)) => c.push("Mbytes/sec"),
        Some(Bandwidth::Cumulative) => c.extend(["Mbytes/sec", "Msg/sec"]),
        None => {}
    }
    c
}

fn param(row: &Row, k: &str) -> Option<u64> {
    row.params.get(k).and_then(|v| v.as_u64())
}

fn section(r: &BenchResult) -> String {
    let Some(op) = Op::of(&r.benchmark) else {
        return String::new();
    };
    let mut s = String::new();
    let _ = writeln!(s, "\n{RULE}");
    let _ = writeln!(s, "# Benchmarking {}", r.benchmark);
    if let Some(why) = &r.skipped {
        let _ = writeln!(s, "# skipped: {}\n{RULE}", printable(why));
        return s;
    }
    let done: Vec<&Row> = r.rows.iter().filter(|x| x.t_avg_us.is_finite()).collect();
    let Some(first) = done.first() else {
        let _ = writeln!(s, "# NO SUCCESSFUL EXECUTIONS\n{RULE}\n");
        return s;
    };
    let threads = param(first, "threads").unwrap_or(1) as usize;
    let active = param(first, "active_processes").unwrap_or(r.processes as u64);
    let _ = writeln!(s, "# #processes = {active} (threads: {threads})");
    if let Some(w) = param(first, "window_size") {
        let _ = writeln!(s, "# window_size = {w}");
    }
    let _ = writeln!(s, "{RULE}");
    let checked = r.rows.iter().any(|x| x.errors.is_some());
    let mut cols = columns(op);
    if checked {
        cols.push("defects");
    }
    for c in &cols {
        let _ = write!(s, "{c:>W$}");
    }
    s.push('\n');
    for row in done {
        for c in &cols {
            let cell = match *c {
                "#bytes" => (row.bytes * threads).to_string(),
                "#repetitions" => row.repetitions.to_string(),
                "t_min[usec]" => format!("{:.2}", row.t_min_us),
                "t_max[usec]" => format!("{:.2}", row.t_max_us),
                "t_avg[usec]" => format!("{:.2}", row.t_avg_us),
                "Mbytes/sec" => row
                    .mbytes_per_sec
                    .map_or("n/a".into(), |v| format!("{v:.2}")),
                "Msg/sec" => row.msg_per_sec.map_or("n/a".into(), |v| format!("{v:.0}")),
                _ => row.errors.unwrap_or(0).to_string(),
            };
            let _ = write!(s, "{cell:>W$}");
        }
        s.push('\n');
    }
    if let Some(n) = r.rows.iter().find_map(|x| x.note.as_ref()) {
        let _ = writeln!(s, "# {}", printable(n));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::table::fixtures::*;

    fn mt(name: &str, q: usize, bytes: &[usize], threads: u64) -> BenchResult {
        let rows = bytes
            .iter()
            .map(|&b| {
                let mut x = row(b, 0.5);
                x.repetitions = 200;
                x.errors = None;
                x.t_min_us = 0.38;
                x.t_max_us = 0.62;
                x.params.insert("threads".into(), threads.into());
                x.params
                    .insert("active_processes".into(), (q as u64).into());
                if name.contains("Band") {
                    x.params.insert("window_size".into(), 64u64.into());
                    x.msg_per_sec = Some(1945649.0);
                }
                if !name.contains("Barrier") && !name.contains("cast") {
                    x.mbytes_per_sec = Some(b as f64 / 0.62);
                }
                x
            })
            .collect();
        result(name, super::super::SUITE, "parallel transfer", q, rows)
    }

    #[test]
    fn sections_as_imb_mt_prints_them() {
        let mut s = header("0.1.0");
        s += &section(&mt("PingPongMT", 2, &[4, 16384], 1));
        s += &section(&mt("UniBandMT", 2, &[4], 2));
        s += &section(&mt("BarrierMT", 3, &[0], 1));
        s += &section(&mt("BcastMT", 4, &[32], 1));
        let mut none = mt("PingPingMT", 1, &[4], 1);
        none.rows[0].t_avg_us = f64::NAN;
        s += &section(&none);
        let mut checked = mt("ReduceMT", 2, &[4], 1);
        checked.rows[0].errors = Some(0);
        s += &section(&checked);
        insta::assert_snapshot!(s);
    }

    #[test]
    fn columns_follow_imb_mts_flags() {
        assert_eq!(
            columns(Op::PingPong),
            [
                "#bytes",
                "#repetitions",
                "t_min[usec]",
                "t_max[usec]",
                "t_avg[usec]",
                "Mbytes/sec"
            ]
        );
        assert_eq!(
            columns(Op::BiBand),
            [
                "#bytes",
                "#repetitions",
                "t_avg[usec]",
                "Mbytes/sec",
                "Msg/sec"
            ]
        );
        assert_eq!(
            columns(Op::Barrier),
            ["#repetitions", "t_min[usec]", "t_max[usec]", "t_avg[usec]"]
        );
        assert_eq!(columns(Op::AllReduce).len(), 5);
        assert_eq!(RULE.len(), 78);
        assert_eq!(BANNER_RULE.len(), 67);
    }
}
