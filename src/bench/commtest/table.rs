//! COMMTEST tables: per pattern and protocol, the packet sweep at fixed
//! volume (the maximum over processes of each one's elapsed time, the
//! minimum observed, the global elapsed time, bandwidth, spot estimates),
//! the fit t(k) = k·α + V/β under it; the fastest protocols at the end of
//! each pattern and in the footer; LogGP's series and parameters.

use std::fmt::Write;

use crate::bench::commtest::fit;
use crate::bench::commtest::loggp::gap_misfit;
use crate::report::table::{fixed, opt, titled_header, total_errors, Format, Heading, SectionCx};
use crate::report::view::ReportParts;
use crate::report::view::{num, size_label};
use crate::report::{ModelPoint, PartTable};
use crate::results::{BenchResult, Fit, LogGp, Report, Row};

pub struct Commtest;

const RULE: &str =
    "#------------------------------------------------------------------------------";

fn param_str<'r>(row: &'r Row, k: &str) -> &'r str {
    row.params.get(k).and_then(|v| v.as_str()).unwrap_or("")
}

fn param_u(row: &Row, k: &str) -> u64 {
    row.params.get(k).and_then(|v| v.as_u64()).unwrap_or(0)
}

fn prepost(row: &Row) -> bool {
    row.params.get("prepost").and_then(|v| v.as_bool()) == Some(true)
}

/// COMMTEST's parts of the HTML report: its fits and LogGP parameters as
/// tables, and the fitted line beside the measured series.
pub const PARTS: ReportParts = ReportParts {
    tables: Some(report_tables),
    model: Some(fit_at),
    identifiers: &[],
};

/// The report's tables of a COMMTEST result: its LogGP parameters and its
/// fits t(k) = k·α + V/β, one row each.
pub fn report_tables(r: &BenchResult) -> Vec<PartTable> {
    let opt = |v: Option<f64>| v.filter(|x| x.is_finite()).map_or(String::new(), num);
    let r2 = |v: Option<f64>| v.map_or(String::new(), |x| format!("{x:.4}"));
    let mut v = Vec::new();
    if let Some(g) = &r.figures.loggp {
        let inv_g = (g.big_g_us_per_byte > 0.0).then(|| 1.0 / (g.big_g_us_per_byte * 1.048576));
        v.push(PartTable {
            caption: "LogGP parameters (netgauge's method): L = PRTT(1,0,s_min)/2; g and G the \
                      intercept and slope of (PRTT(n,0,s) − PRTT(1,0,s))/(n − 1) against s; o_s \
                      and o_r at the smallest size.",
            head: &[
                "pair",
                "n",
                "L [µs]",
                "o_s [µs]",
                "o_r [µs]",
                "g [µs]",
                "G [µs/byte]",
                "1/G [MB/s]",
                "R²",
                "fit",
                "warnings",
            ],
            left: 1,
            rows: vec![{
                let why = gap_misfit(r.rows.len(), g.big_g_us_per_byte, g.r2);
                let fits = why.is_empty();
                let raw = |v: String| if fits { v } else { "–".to_string() };
                vec![
                    format!("0↔{}", g.partner),
                    g.n.to_string(),
                    num(g.l_us),
                    num(g.o_s_us),
                    num(g.o_r_us),
                    raw(num(g.g_us)),
                    raw(format!("{:.3e}", g.big_g_us_per_byte)),
                    raw(opt(inv_g)),
                    r2(g.r2),
                    fit_cell(&why),
                    g.warnings.join("; "),
                ]
            }],
        });
    }
    if !r.figures.fits.is_empty() {
        v.push(PartTable {
            caption: "Fits t(k) = k·α + V/β over each packet sweep (k packets of the volume V; \
                      MB = 2^20 bytes); the maximum achieved bandwidth is V over the minimum time. \
                      A line with R² below 0.9, fewer than 3 points, α < 0 or β below half the \
                      maximum is \"no linear fit\": its α and β stay in the JSON only.",
            head: &[
                "protocol",
                "prepost",
                "V",
                "points",
                "max [MB/s]",
                "at packets",
                "fit",
                "α [µs]",
                "β [MB/s]",
                "R²",
            ],
            left: 1,
            rows: r
                .figures
                .fits
                .iter()
                .map(|f| {
                    let why = f.misfit();
                    let fits = why.is_empty();
                    vec![
                        format!("{} {}", f.protocol, f.name),
                        if f.prepost { "yes" } else { "no" }.to_string(),
                        size_label(f.volume),
                        f.points.to_string(),
                        num(f.max_mbs),
                        f.t_min_packets.to_string(),
                        fit_cell(&why),
                        if fits { num(f.alpha_us) } else { "–".into() },
                        if fits { opt(f.beta_mbs) } else { "–".into() },
                        r2(f.r2),
                    ]
                })
                .collect(),
        });
    }
    v
}

/// "fits", or "no linear fit: " and the reasons.
fn fit_cell(why: &[String]) -> String {
    if why.is_empty() {
        "fits".to_string()
    } else {
        format!("no linear fit: {}", why.join("; "))
    }
}

/// The fit t(k) = k·α + V/β that belongs to a row of `res`: the entry of
/// the result's `fits` (one result per pattern) with the row's protocol,
/// prepost and volume (its bytes), as `fit::derive` keys them.
pub fn fit_for<'r>(res: &'r BenchResult, row: &Row) -> Option<&'r Fit> {
    let protocol = row.params.get("protocol")?.as_str()?;
    res.figures
        .fits
        .iter()
        .find(|f| f.protocol == protocol && f.prepost == prepost(row) && f.volume == row.bytes)
}

/// The fit's time at a row's packet count, with the fit as its legend.
pub fn fit_at(res: &BenchResult, row: &Row) -> Option<ModelPoint> {
    let f = fit_for(res, row).filter(|f| f.misfit().is_empty())?;
    let k = row.params.get("packets")?.as_f64()?;
    Some(ModelPoint {
        t_us: f.model_us(k)?,
        label: format!(
            "fit: α={} µs, β={} MB/s{}",
            num(f.alpha_us),
            f.beta_mbs.map_or("–".to_string(), num),
            f.r2.map(|r| format!(", R²={r:.4}")).unwrap_or_default()
        ),
    })
}

impl Format for Commtest {
    fn header(&self, report: &Report, plan: &Heading) -> String {
        titled_header(
            RULE,
            "COMMTEST (ORNL)",
            report,
            plan,
            "Inputs",
            &[
                (
                    "Time",
                    "t = median over iterations of the maximum over processes of each one's",
                ),
                (
                    "",
                    "own elapsed time; t_min = its minimum; t_glob = median of first process",
                ),
                ("", "starting to last finishing (synchronised clocks);"),
                ("", "'!' marks rows where the two differ by more than 10%"),
                (
                    "",
                    "(--stats: t's 95% CI and t_max = maximum over processes of each one's mean)",
                ),
                (
                    "Model",
                    "t(k) = k*alpha + V/beta for k packets of V/k bytes; MB = 2^20 bytes",
                ),
            ],
        )
    }

    fn section(&self, r: &BenchResult, cx: &SectionCx) -> String {
        if let Some(l) = &r.figures.loggp {
            return loggp_section(r, l);
        }
        let mut s = String::new();
        let iters = r.rows.first().map_or(0, |x| x.repetitions);
        let vol = r.rows.first().map_or(0, |x| x.bytes);
        let _ = writeln!(
            s,
            "\n# {} on {} processes: {}, V = {vol} bytes, {iters} iterations",
            r.benchmark,
            r.processes,
            r.placement.as_deref().unwrap_or("-"),
        );
        if let Some(why) = &r.skipped {
            let _ = writeln!(s, "# skipped: {why}");
            return s;
        }
        if let Some(h) = crate::report::table::hosts_line_across(r) {
            let _ = writeln!(s, "# hosts: {h}");
        }
        if let Some(l) = crate::report::table::sat_out_line(r) {
            let _ = writeln!(s, "# {l}");
        }
        if let Some(n) = &r.note {
            let _ = writeln!(s, "# note: {n}");
        }
        let checked = r.rows.iter().any(|x| x.errors.is_some());
        let mut i = 0;
        while i < r.rows.len() {
            let first = &r.rows[i];
            let key = |x: &Row| (x.bytes, prepost(x), param_str(x, "protocol").to_string());
            let k0 = key(first);
            let mut j = i;
            while j < r.rows.len() && key(&r.rows[j]) == k0 {
                j += 1;
            }
            let fit = r
                .figures
                .fits
                .iter()
                .find(|f| f.protocol == k0.2 && f.prepost == k0.1 && f.volume == k0.0);
            let volumes = r.rows.iter().any(|x| x.bytes != vol);
            block(&mut s, &r.rows[i..j], fit, checked, cx.stats, volumes);
            i = j;
        }
        for b in &r.figures.best {
            let k = b.at.get("packets").and_then(|v| v.as_u64()).unwrap_or(0);
            let bytes =
                b.at.get("packet_bytes")
                    .and_then(|v| v.as_u64())
                    .unwrap_or(0);
            let pre = if b.at.get("prepost").and_then(|v| v.as_bool()) == Some(true) {
                ", prepost"
            } else {
                ""
            };
            let _ = writeln!(
                s,
                "# fastest at {k} packet{} of {bytes} bytes{pre}: {} ({:.3} usec)",
                if k == 1 { "" } else { "s" },
                b.winner,
                b.t_us
            );
        }
        s
    }

    fn footer(&self, report: &Report) -> String {
        let mut s = String::new();
        let mut head = false;
        for r in report.results.iter().filter(|r| !r.figures.best.is_empty()) {
            if !head {
                let _ = writeln!(s, "\n# Summary: the fastest protocol per pattern");
                head = true;
            }
            for b in &r.figures.best {
                let k = b.at.get("packets").and_then(|v| v.as_u64()).unwrap_or(0);
                let pre = b.at.get("prepost").and_then(|v| v.as_bool()) == Some(true);
                let _ = writeln!(
                    s,
                    "#   {:<8} P={:<3} {:<7} {:>5} packet{}: {} ({:.3} usec)",
                    r.benchmark,
                    r.processes,
                    if pre { "prepost" } else { "basic" },
                    k,
                    if k == 1 { " " } else { "s" },
                    b.winner,
                    b.t_us
                );
            }
        }
        for r in report.results.iter() {
            if let Some(l) = &r.figures.loggp {
                let _ = writeln!(
                    s,
                    "\n# LogGP (0<->{}): L = {:.3} usec, o_s = {:.3} usec, o_r = {:.3} usec, g = {:.3} usec, G = {:.6} usec/byte",
                    l.partner, l.l_us, l.o_s_us, l.o_r_us, l.g_us, l.big_g_us_per_byte
                );
            }
        }
        if report.settings.check {
            let _ = writeln!(s, "\n# Validation: {} errors", total_errors(report));
        }
        s
    }
}

/// One protocol's packet sweep and its fit.
fn block(s: &mut String, rows: &[Row], fit: Option<&Fit>, checked: bool, stats: bool, v: bool) {
    let first = &rows[0];
    let _ = writeln!(
        s,
        "#\n# {} {}{}{}",
        param_str(first, "protocol"),
        param_str(first, "protocol_name"),
        if prepost(first) { ", prepost" } else { "" },
        if v {
            format!(", V = {} bytes", first.bytes)
        } else {
            String::new()
        }
    );
    let mut head = format!(
        "# {:>7} {:>11} {:>13} {:>13} {:>13} {:>10} {:>12} {:>12}",
        "packets",
        "bytes/pkt",
        "t[usec]",
        "t_min[usec]",
        "t_glob[usec]",
        "MB/s",
        "a_spot[usec]",
        "b_spot[MB/s]"
    );
    if stats {
        let _ = write!(
            head,
            " {:>11} {:>11} {:>13}",
            "ci95_lo", "ci95_hi", "t_max[usec]"
        );
    }
    if checked {
        let _ = write!(head, " {:>7}", "errors");
    }
    let _ = writeln!(s, "{head}");
    for row in rows {
        let k = param_u(row, "packets");
        let spot = fit.and_then(|f| f.spots.iter().find(|sp| sp.packets[1] == k));
        let t = fit::time(row);
        let mark = if row.discrepant == Some(true) {
            "!"
        } else {
            " "
        };
        let _ = write!(
            s,
            "  {k:>7} {:>11} {} {} {:>12}{mark} {:>10} {:>12} {:>12}",
            param_u(row, "packet_bytes"),
            fixed(t, 13, 3),
            fixed(fit::min_time(row), 13, 3),
            opt(row.t_global_us, 3),
            opt(fit::mbs(row.bytes, t), 2),
            opt(spot.map(|x| x.alpha_us), 3),
            spot.map_or("-".to_string(), |x| opt(x.beta_mbs, 1)),
        );
        if stats {
            let _ = write!(
                s,
                " {:>11} {:>11} {}",
                opt(row.ci95_lo_us, 3),
                opt(row.ci95_hi_us, 3),
                fixed(row.t_max_us, 13, 3)
            );
        }
        if let Some(e) = row.errors {
            let _ = write!(s, " {e:>7}");
        }
        if let Some(n) = &row.note {
            let _ = write!(s, "  # {n}");
        }
        let _ = writeln!(s);
    }
    if let Some(f) = fit {
        let _ = writeln!(s, "{}", fit_lines(f));
    }
}

/// The fit's two lines under a sweep: the fit and the best achieved, or,
/// when the line does not fit (`Fit::misfit`), the best achieved first and
/// the reasons, the fit's numbers left to the JSON.
fn fit_lines(f: &Fit) -> String {
    let best = format!(
        "max achieved {:.1} MB/s ({} packet{}, t = {:.3} usec)",
        f.max_mbs,
        f.t_min_packets,
        if f.t_min_packets == 1 { "" } else { "s" },
        f.t_min_us
    );
    let why = f.misfit();
    let first = if why.is_empty() {
        format!(
            "# fit: alpha = {:.3} usec/message, beta = {} MB/s, R^2 = {}; {best}",
            f.alpha_us,
            opt(f.beta_mbs, 1),
            opt(f.r2, 4),
        )
    } else {
        format!(
            "# {best}; no linear fit: {} (alpha and beta are raw fields of the JSON's fits)",
            why.join("; ")
        )
    };
    let why = f.misfit_min();
    let second = if why.is_empty() {
        format!(
            "# fit to t_min: alpha = {:.3} usec/message, beta = {} MB/s, R^2 = {}",
            f.alpha_min_us,
            opt(f.beta_min_mbs, 1),
            opt(f.r2_min, 4)
        )
    } else {
        format!("# fit to t_min: no linear fit: {}", why.join("; "))
    };
    format!("{first}\n{second}")
}

fn loggp_section(r: &BenchResult, l: &LogGp) -> String {
    let mut s = String::new();
    let reps = r.rows.first().map_or(0, |x| x.repetitions);
    let _ = writeln!(
        s,
        "\n# loggp between rank 0 and rank {}: n = {}, medians of {reps} round trips per series (netgauge's PRTT method)",
        l.partner, l.n
    );
    let _ = writeln!(
        s,
        "# {:>9} {:>12} {:>12} {:>12} {:>10} {:>12} {:>10} {:>10}",
        "s[bytes]",
        "PRTT(1,0,s)",
        "PRTT(n,0,s)",
        "PRTT(n,d,s)",
        "d[usec]",
        "g+G*s[usec]",
        "o_s[usec]",
        "o_r[usec]"
    );
    let f = |row: &Row, k: &str| row.params.get(k).and_then(|v| v.as_f64()).unwrap_or(0.0);
    for row in &r.rows {
        let _ = writeln!(
            s,
            "  {:>9} {:>12.3} {:>12.3} {:>12.3} {:>10.3} {:>12.3} {:>10.3} {:>10.3}",
            row.bytes,
            f(row, "prtt_1_0_us"),
            f(row, "prtt_n_0_us"),
            f(row, "prtt_n_d_us"),
            f(row, "d_us"),
            f(row, "gap_us"),
            f(row, "o_s_us"),
            f(row, "o_r_us"),
        );
    }
    let bw = (l.big_g_us_per_byte > 0.0).then(|| 1.0 / l.big_g_us_per_byte / 1.048576);
    let why = gap_misfit(r.rows.len(), l.big_g_us_per_byte, l.r2);
    let gap = if why.is_empty() {
        format!(
            "g = {:.3} usec, G = {:.6} usec/byte (1/G = {} MB/s), R^2 = {}",
            l.g_us,
            l.big_g_us_per_byte,
            opt(bw, 1),
            opt(l.r2, 4)
        )
    } else {
        format!(
            "g + G*s: no linear fit: {} (g and G are raw fields of the JSON's loggp)",
            why.join("; ")
        )
    };
    let _ = writeln!(
        s,
        "# L = {:.3} usec, o_s = {:.3} usec, o_r = {:.3} usec, {gap}",
        l.l_us, l.o_s_us, l.o_r_us,
    );
    for w in &l.warnings {
        let _ = writeln!(s, "# warning: {w}");
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::table::fixtures::*;
    use crate::results::LogGp;
    use serde_json::json;

    fn sweep(protocol: &str, name: &str, pre: bool, alpha: f64) -> Vec<Row> {
        let v = 8192usize;
        [1u64, 2, 4]
            .iter()
            .map(|&k| {
                let t = k as f64 * alpha + v as f64 / 1.048576 / 2000.0;
                let mut r = row(v, t);
                r.t_max_us = t;
                r.repetitions = 20;
                r.samples_us = Some(vec![t * 0.97, t]);
                r.t_global_us = Some(if k == 4 { t * 1.2 } else { t * 1.01 });
                r.discrepant = Some(k == 4);
                r.mbytes_per_sec = Some(v as f64 / 1.048576 / t);
                for (key, val) in [
                    ("pattern", json!("SWAP")),
                    ("protocol", json!(protocol)),
                    ("protocol_name", json!(name)),
                    ("packets", json!(k)),
                    ("packet_bytes", json!(v as u64 / k)),
                    ("prepost", json!(pre)),
                    ("distance", json!(1)),
                ] {
                    r.params.insert(key.into(), val);
                }
                r
            })
            .collect()
    }

    #[test]
    fn swap_table_with_fits_and_summary() {
        let mut rows = sweep("(0,3)", "nonblocking send and receive", false, 1.5);
        rows.extend(sweep("(1,0)", "simple", false, 2.5));
        rows.extend(sweep("(0,3)", "nonblocking send and receive", true, 1.0));
        let mut r = result("SWAP", "commtest", "parallel transfer", 2, rows);
        r.placement = Some("r<->r^1".into());
        crate::bench::commtest::fit::derive(&mut r);
        let cx = SectionCx {
            rank_rows: None,
            world: 2,
            stats: false,
            repeats: 1,
        };
        let mut rep = report(2);
        rep.results.push(r.clone());
        let s = Commtest.section(&r, &cx) + &Commtest.footer(&rep);
        insta::assert_snapshot!(s);
    }

    /// A line that does not fit leads with the best achieved and says why;
    /// its α and β are not printed.
    #[test]
    fn a_fit_that_does_not_fit_leads_with_the_best_achieved() {
        let f = Fit {
            volume: 256 << 10,
            points: 7,
            alpha_us: 0.508,
            beta_mbs: Some(7860.8),
            r2: Some(0.26),
            t_min_us: 17.105,
            t_min_packets: 1,
            max_mbs: 14614.1,
            alpha_min_us: 0.3,
            beta_min_mbs: Some(14000.0),
            r2_min: Some(0.97),
            ..Fit::default()
        };
        let text = fit_lines(&f);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines[0],
            "# max achieved 14614.1 MB/s (1 packet, t = 17.105 usec); no linear fit: R^2 = 0.2600 below 0.90 (alpha and beta are raw fields of the JSON's fits)"
        );
        assert!(!lines[0].contains("7860"));
        assert!(
            lines[1].starts_with("# fit to t_min: alpha = 0.300"),
            "{}",
            lines[1]
        );
    }

    #[test]
    fn loggp_table() {
        let rows = [1usize, 1024, 4096]
            .iter()
            .map(|&s| {
                let mut r = row(s, 3.0);
                r.repetitions = 200;
                for (k, v) in [
                    ("prtt_1_0_us", 3.0 + s as f64 * 0.001),
                    ("prtt_n_0_us", 9.0 + s as f64 * 0.01),
                    ("prtt_n_d_us", 33.0),
                    ("d_us", 3.0),
                    ("gap_us", 0.6),
                    ("o_s_us", 0.4),
                    ("o_r_us", 0.3),
                ] {
                    r.params.insert(k.into(), json!(v));
                }
                r
            })
            .collect();
        let mut r = result("loggp", "commtest", "single transfer", 2, rows);
        r.figures.loggp = Some(LogGp {
            partner: 1,
            n: 10,
            l_us: 1.5,
            o_s_us: 0.4,
            o_r_us: 0.3,
            g_us: 0.6,
            big_g_us_per_byte: 0.0002,
            r2: Some(0.99),
            warnings: vec!["s = 1024 bytes: the delay d = 3.000 us is shorter than g + G*s = 3.100 us (measured at s), so o_s there is underestimated".into()],
            ..LogGp::default()
        });
        let cx = SectionCx {
            rank_rows: None,
            world: 2,
            stats: false,
            repeats: 1,
        };
        insta::assert_snapshot!(Commtest.section(&r, &cx));
    }
}
