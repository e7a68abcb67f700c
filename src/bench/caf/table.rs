//! cafbench-style tables: its section headers ("Point-to-point",
//! "Synchronisation", "3D Halo Swaps"), per ping-pong the lines
//! `count blksize stride ndata nextent nrep time latency bwidth`, per
//! synchronisation type the overhead's median with its 95% CI (or "below
//! resolution"), per halo size `ndata nrep time latency bwidth`, and
//! "All results validated" where every transfer was checked.

use std::fmt::Write;

use crate::bench::caf::{section, PingPongKind, Section, Settings, SyncKind};
use crate::comm::rma::{RmaSync, WindowKind};
use crate::contract::axis::SweepCx;
use crate::report::table::{run_lines, Format, Heading, SectionCx};
use crate::results::{BenchResult, Report, Row};

pub struct Caf;

const RULE: &str = " ------------------";

impl Format for Caf {
    fn header(&self, report: &Report, plan: &Heading) -> String {
        let mut s = String::new();
        let _ = writeln!(
            s,
            "{RULE}\n CAF Benchmark\n\n numimages = {:>12}\n{RULE}\n",
            report.world_size
        );
        let _ = writeln!(
            s,
            "# mpibench {}: the EPCC Fortran coarray micro-benchmarks on MPI one-sided communication",
            report.mpibench_version
        );
        s.push_str(&run_lines(report, "# "));
        let set = Settings::of(&SweepCx {
            sizes: &plan.sizes,
            axes: &plan.axes,
            q: report.world_size,
        });
        for w in &set.windows {
            let _ = writeln!(
                s,
                "# Coarrays              : windows of MPI_DOUBLE made by {} (--window {})",
                w.call(),
                w.name()
            );
        }
        for r in &set.rmas {
            let (all, images) = r.mapping();
            let _ = writeln!(
                s,
                "# sync all              : {all} (--rma-sync {})",
                r.name()
            );
            let _ = writeln!(s, "# sync images           : {images}");
        }
        let reps = match (plan.precision, plan.iter) {
            (Some(r), _) => {
                format!("until the median's 95% CI is within +-{r} of it (--precision)")
            }
            (None, Some(n)) => format!("{n} (--iter)"),
            _ => "doubled until a run takes 2/3 .. 4/3 of the target time of 0.5 s (cafbench)"
                .to_string(),
        };
        let _ = writeln!(s, "# Repetitions           : {reps}");
        let _ = writeln!(
            s,
            "# Validation            : {}",
            if plan.check {
                "every put and get (--check); halo swaps and the sync lock word always"
            } else {
                "halo swaps and the sync lock word (always); --check validates every put and get"
            }
        );
        s
    }

    fn between(&self, prev: Option<&BenchResult>, next: &BenchResult) -> String {
        let sec = section(&next.benchmark);
        match (prev.map(|p| section(&p.benchmark)), sec) {
            (Some(a), b) if a == b => String::new(),
            (_, Some(b)) => {
                let line = format!(" {}", "-".repeat(b.title().len()));
                format!("\n{line}\n {}\n{line}\n", b.title())
            }
            _ => String::new(),
        }
    }

    fn section(&self, r: &BenchResult, _cx: &SectionCx) -> String {
        let mut s = String::new();
        if let Some(why) = &r.skipped {
            let _ = writeln!(s, "\n {}: skipped: {why}", r.benchmark);
            return s;
        }
        match section(&r.benchmark) {
            Some(Section::Synchronisation) => sync(r, &mut s),
            Some(Section::Halo) => halo(r, &mut s),
            _ => p2p(r, &mut s),
        }
        if let Some(h) = crate::report::table::hosts_line_across(r) {
            let _ = writeln!(s, " hosts: {h}");
        }
        if let Some(l) = crate::report::table::sat_out_line(r) {
            let _ = writeln!(s, " {l}");
        }
        if let Some(n) = &r.note {
            let _ = writeln!(s, " note: {n}");
        }
        s
    }

    fn footer(&self, report: &Report) -> String {
        let mut s = format!("\n{RULE}\n Benchmark finished\n{RULE}\n");
        let checked = report
            .results
            .iter()
            .flat_map(|r| &r.rows)
            .any(|r| r.errors.is_some());
        if checked {
            let errors: u64 = report
                .results
                .iter()
                .flat_map(|r| &r.rows)
                .filter_map(|r| r.errors)
                .sum();
            let _ = writeln!(s, " Validation: {errors} errors");
        }
        s
    }
}

fn param<'a>(row: &'a Row, k: &str) -> &'a str {
    row.params.get(k).and_then(|v| v.as_str()).unwrap_or("")
}

fn num(row: &Row, k: &str) -> u64 {
    row.params.get(k).and_then(|v| v.as_u64()).unwrap_or(0)
}

/// Fortran's Gw.d edit descriptor, as cafbench prints its times.
fn g(x: f64, w: usize, d: usize) -> String {
    if !x.is_finite() {
        return format!("{:>w$}", "-");
    }
    let a = x.abs();
    let body = if a == 0.0 {
        format!("{:.*}    ", d - 1, 0.0)
    } else if (0.1..10f64.powi(d as i32)).contains(&a) {
        let k = a.log10().floor() as i32 + 1;
        let dec = (d as i32 - k).max(0) as usize;
        format!("{x:.dec$}    ")
    } else {
        let e = a.log10().floor() as i32 + 1;
        let m = x / 10f64.powi(e);
        let mut digits = format!("{:.d$}", m.abs());
        let mut e = e;
        if digits.starts_with('1') {
            // Rounding carried into the next power of ten.
            digits = format!("{:.d$}", m.abs() / 10.0);
            e += 1;
        }
        let sign = if x < 0.0 { "-" } else { "" };
        format!(
            "{sign}{digits}E{}{:02}",
            if e < 0 { '-' } else { '+' },
            e.abs()
        )
    };
    format!("{body:>w$}")
}

/// Whether every row of the block was validated, and its errors.
fn validation(rows: &[&Row]) -> Option<u64> {
    rows.iter()
        .map(|r| r.errors)
        .collect::<Option<Vec<u64>>>()
        .map(|v| v.iter().sum())
}

fn verdict(s: &mut String, rows: &[&Row], prefix: &str) {
    match validation(rows) {
        Some(0) => {
            let _ = writeln!(s, "\n {prefix}All results validated");
        }
        Some(e) => {
            let _ = writeln!(s, "\n {prefix}ERROR: validation failed: {e} errors");
        }
        None => {}
    }
}

/// Rows in groups of equal params `keys`, in order.
fn groups<'a>(rows: &'a [Row], keys: &[&str]) -> Vec<Vec<&'a Row>> {
    let mut out: Vec<Vec<&Row>> = Vec::new();
    for row in rows {
        let same = out.last().is_some_and(|g| {
            keys.iter()
                .all(|k| g[0].params.get(*k) == row.params.get(*k))
        });
        if same {
            out.last_mut().expect("a group").push(row);
        } else {
            out.push(vec![row]);
        }
    }
    out
}

fn window_line(row: &Row) -> String {
    let (w, m) = (param(row, "window"), param(row, "rma_sync"));
    if w.is_empty() {
        return String::new();
    }
    let call = WindowKind::from_name(w).map_or("", |k| k.call());
    match RmaSync::from_name(m) {
        Some(m) => format!(" (window: {call}; rma-sync: {})", m.name()),
        None => format!(" (window: {call})"),
    }
}

fn p2p(r: &BenchResult, s: &mut String) {
    for rows in groups(&r.rows, &["window", "rma_sync", "pingpong", "sync"]) {
        let first = rows[0];
        let kind = PingPongKind::from_name(param(first, "pingpong"));
        let q = r.processes;
        let pairs = match kind {
            Some(PingPongKind::Single) | None => {
                format!(
                    "Single ping-pong: image1, image2 = 0, {}",
                    q.saturating_sub(1)
                )
            }
            Some(PingPongKind::Multiple) => {
                format!(
                    "Multiple ping-pong: images i, i+{} for i < {}",
                    q / 2,
                    q / 2
                )
            }
            Some(PingPongKind::Crossing) => format!(
                "Crossing ping-pong: images i, i+{} for i < {}, every other pair reversed",
                q / 2,
                q / 2
            ),
        };
        let sync = match SyncKind::from_name(param(first, "sync")) {
            Some(k) => k.statement(),
            None => "none",
        };
        let maxndata = match num(first, "maxndata") {
            0 => rows.iter().map(|x| num(x, "ndata")).max().unwrap_or(0),
            m => m,
        };
        let _ = writeln!(s, "\n ----------------------------------");
        let _ = writeln!(s, " {pairs}");
        let _ = writeln!(s, " benchmarking: {}", r.benchmark);
        let _ = writeln!(s, " synchronisation: {sync}{}", window_line(first));
        let _ = writeln!(s, " maxndata: {maxndata}");
        let checked = validation(&rows).is_some();
        let _ = writeln!(
            s,
            " {}\n",
            if checked {
                "verifying data"
            } else {
                "NOT verifying data"
            }
        );
        let _ = writeln!(
            s,
            " count   blksize stride  ndata   nextent nrep    time      latency   bwidth\n"
        );
        for row in &rows {
            let nrep = row.repetitions;
            let latency = row.t_max_us * 1e-6;
            let time = latency * 2.0 * nrep as f64;
            let _ = writeln!(
                s,
                " {:>7} {:>7} {:>7} {:>7} {:>7} {:>6} {} {} {}{}",
                num(row, "count"),
                num(row, "blksize"),
                num(row, "stride"),
                num(row, "ndata"),
                num(row, "nextent"),
                nrep,
                g(time, 10, 3),
                g(latency, 10, 3),
                g(row.mbytes_per_sec.unwrap_or(f64::NAN), 11, 4),
                row.errors
                    .filter(|&e| e > 0)
                    .map_or(String::new(), |e| format!("  errors: {e}"))
            );
        }
        verdict(s, &rows, "");
    }
}

fn sync(r: &BenchResult, s: &mut String) {
    for rows in groups(&r.rows, &["window", "rma_sync"]) {
        sync_block(r, &rows, s);
    }
}

fn sync_block(r: &BenchResult, rows: &[&Row], s: &mut String) {
    let first = rows[0];
    let outer = first.samples_n.unwrap_or(0);
    let inner = (first.repetitions as u64).checked_div(outer).unwrap_or(0);
    let delay = first
        .params
        .get("delay_us")
        .and_then(|v| v.as_f64())
        .unwrap_or(0.0);
    let _ = writeln!(s, "\n cafsync: Synchronisation type: {}", r.benchmark);
    let _ = writeln!(
        s,
        " cafsync: outerreps, innercount, delay = {outer} {inner} {delay} us{}",
        window_line(first)
    );
    let _ = writeln!(
        s,
        "\n {:>10} {:>22} {:>27} {:>9}",
        "neighbours", "sync time [usec]", "95% CI [usec]", "outliers"
    );
    for row in rows {
        let below = row.below_resolution == Some(true)
            || row.t_median_us.is_none_or(|m| m <= 0.0)
            || row.ci95_hi_us.is_some_and(|h| h <= 0.0);
        let fig = if below {
            "below resolution".to_string()
        } else {
            format!("{:.3}", row.t_median_us.unwrap_or(0.0))
        };
        let ci = match (row.ci95_lo_us, row.ci95_hi_us) {
            (Some(lo), Some(hi)) => format!("[{lo:.3}, {hi:.3}]"),
            _ => "-".to_string(),
        };
        let _ = writeln!(
            s,
            " {:>10} {:>22} {:>27} {:>9}",
            num(row, "neighbours"),
            fig,
            ci,
            row.outliers.map_or("-".to_string(), |o| o.to_string())
        );
    }
    if rows.iter().any(|x| x.below_resolution == Some(true)) {
        let _ = writeln!(
            s,
            " below resolution: the 95% CI of the median difference contains zero (no negative overhead is printed)"
        );
    }
}

fn halo(r: &BenchResult, s: &mut String) {
    for rows in groups(&r.rows, &["window", "rma_sync", "sync"]) {
        let first = rows[0];
        let sync = SyncKind::from_name(param(first, "sync")).map_or("none", |k| k.statement());
        let mode = r.benchmark.trim_start_matches("halo ");
        let _ = writeln!(
            s,
            "\n cafhaloswap: synchronisation: {sync}{}",
            window_line(first)
        );
        let _ = writeln!(s, " cafhaloswap: transfer mode:   {mode}");
        let _ = writeln!(
            s,
            " cafhalodriver: codims = {}",
            param(first, "codims").replace('x', ", ")
        );
        let _ = writeln!(
            s,
            "\n {:>6} {:>9} {:>9} {:>10} {:>10} {:>11}",
            "n", "ndata", "nrep", "time", "latency", "bwidth"
        );
        for row in &rows {
            let nrep = row.repetitions;
            let latency = row.t_max_us * 1e-6;
            let _ = writeln!(
                s,
                " {:>6} {:>9} {:>9} {} {} {}{}",
                num(row, "n"),
                num(row, "ndata"),
                nrep,
                g(latency * nrep as f64, 10, 3),
                g(latency, 10, 3),
                g(row.mbytes_per_sec.unwrap_or(f64::NAN), 11, 4),
                row.errors
                    .filter(|&e| e > 0)
                    .map_or(String::new(), |e| format!("  errors: {e}"))
            );
        }
        verdict(s, &rows, "cafhaloswap: ");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::table::fixtures::*;
    use serde_json::json;

    fn p2p_rows(errors: Option<u64>) -> Vec<Row> {
        let mut v = Vec::new();
        for (kind, sync) in [("single", "global"), ("single", "p2p")] {
            for b in [1u64, 8, 65536] {
                let mut r = row((b * 8) as usize, 2.0 + b as f64 / 1000.0);
                r.repetitions = 100_000 / b as usize + 8;
                r.errors = errors;
                for (k, v) in [
                    ("mode", json!("put")),
                    ("pingpong", json!(kind)),
                    ("sync", json!(sync)),
                    ("count", json!(1)),
                    ("blksize", json!(b)),
                    ("stride", json!(b)),
                    ("ndata", json!(b)),
                    ("nextent", json!(b)),
                    ("window", json!("create")),
                    ("rma_sync", json!("lockall")),
                ] {
                    r.params.insert(k.into(), v);
                }
                r.mbytes_per_sec = Some(b as f64 * 8.0 / 1.048576 / r.t_max_us);
                v.push(r);
            }
        }
        v
    }

    #[test]
    fn point_to_point_blocks() {
        let cx = SectionCx {
            rank_rows: None,
            world: 4,
            stats: false,
            repeats: 1,
        };
        let r = result("put", "caf", "parallel transfer", 4, p2p_rows(Some(0)));
        let mut bad = result("get", "caf", "parallel transfer", 4, p2p_rows(Some(3)));
        bad.rows.truncate(3);
        let s = Caf.between(None, &r)
            + &Caf.section(&r, &cx)
            + &Caf.between(Some(&r), &bad)
            + &Caf.section(&bad, &cx);
        insta::assert_snapshot!(s);
    }

    #[test]
    fn synchronisation_and_halo_blocks() {
        let cx = SectionCx {
            rank_rows: None,
            world: 4,
            stats: false,
            repeats: 1,
        };
        let mut rows = Vec::new();
        for (n, med, lo, hi) in [(2u64, 3.25, 2.9, 3.6), (4, 0.4, -0.3, 1.1)] {
            let mut r = row(0, med);
            r.repetitions = 100 * 200;
            r.samples_n = Some(100);
            r.t_median_us = Some(med);
            r.ci95_lo_us = Some(lo);
            r.ci95_hi_us = Some(hi);
            r.below_resolution = Some(lo <= 0.0);
            r.errors = None;
            r.params.insert("neighbours".into(), json!(n));
            r.params.insert("delay_us".into(), json!(10.0));
            r.params.insert("window".into(), json!("create"));
            r.params.insert("rma_sync".into(), json!("lockall"));
            rows.push(r);
        }
        let ring = result("sync images ring", "caf", "collective", 4, rows);
        let mut hrows = Vec::new();
        for (n, sync) in [(10u64, "global"), (50, "global"), (10, "p2p")] {
            let nd = 6 * n * n;
            let mut r = row((nd * 8) as usize, 20.0 * n as f64);
            r.repetitions = 1000;
            r.mbytes_per_sec = Some(nd as f64 * 8.0 / 1.048576 / r.t_max_us);
            for (k, v) in [
                ("n", json!(n)),
                ("ndata", json!(nd)),
                ("sync", json!(sync)),
                ("codims", json!("2x2x1")),
                ("window", json!("allocate")),
                ("rma_sync", json!("fence")),
            ] {
                r.params.insert(k.into(), v);
            }
            hrows.push(r);
        }
        let halo = result("halo put-put", "caf", "parallel transfer", 4, hrows);
        let s = Caf.between(None, &ring)
            + &Caf.section(&ring, &cx)
            + &Caf.between(Some(&ring), &halo)
            + &Caf.section(&halo, &cx)
            + &Caf.section(
                &crate::engine::skipped(
                    crate::bench::caf::find("sync images random")
                        .unwrap()
                        .info(),
                    2,
                    false,
                    "sync images random needs at least 4 processes".into(),
                ),
                &cx,
            );
        insta::assert_snapshot!(s);
    }

    #[test]
    fn fortran_g_format() {
        assert_eq!(g(0.502, 10, 3), " 0.502    ");
        assert_eq!(g(1.5, 10, 3), "  1.50    ");
        assert_eq!(g(123.4, 11, 4), "  123.4    ");
        assert_eq!(g(2.03e-6, 10, 3), " 0.203E-05");
        assert_eq!(g(12345.6, 11, 4), " 0.1235E+05");
        assert_eq!(g(0.0999, 10, 3), " 0.999E-01");
    }
}
