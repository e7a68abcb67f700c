//! `mpibench report`: one self-contained HTML page (inline SVG and CSS; no
//! scripts, no fonts or anything else fetched) from one or more runs.
//!
//! Per run, a header (library, hosts, command, settings, status); then one
//! section per benchmark with its warnings in plain words, its figures (see
//! `view::sections`: time against size, bandwidth, time against each numeric
//! parameter with fitted lines, time against process count with min–max bars,
//! bars for categories, heatmaps of matrices) and its numbers as a table.
//! Several runs are overlaid, one colour per run.

use std::fmt::Write;

use anyhow::Result;

use super::plot::{self, hex};
use super::view::{
    self, bytes_label, headline, loop_timed, num, param_value, PartsOf, Run, Section, Warning,
};
use super::PartTable;
use crate::results::{BenchResult, Report, Row};

/// The report of `reports` (e.g. one run's `Report` after each benchmark:
/// `html::render(std::slice::from_ref(&report), parts)`), with the suites'
/// parts of it (`parts`).
pub fn render(reports: &[Report], parts: PartsOf) -> Result<String> {
    let runs = view::runs(
        reports
            .iter()
            .enumerate()
            .map(|(i, r)| (format!("run {}", i + 1), r))
            .collect(),
    );
    render_runs(&runs, parts)
}

pub fn esc(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            // The double quote, written so that line-based readers pair
            // the string literals around it.
            '\u{22}' => o.push_str("&quot;"),
            '\'' => o.push_str("&#39;"),
            // Control characters (terminal escapes from a results file) are
            // not text; tab and line breaks are kept.
            c if c.is_control() && !matches!(c, '\t' | '\n' | '\r') => o.push(' '),
            c => o.push(c),
        }
    }
    o
}

const CSS: &str = "
:root{color-scheme:light}
body{font-family:system-ui,-apple-system,'Segoe UI',Roboto,'DejaVu Sans',sans-serif;margin:0;color:#222;background:#fafafa}
main{max-width:1760px;margin:0 auto;padding:1em 1.5em 3em}
h1{font-size:1.6em;margin:.2em 0}
h2{font-size:1.25em;margin:1.6em 0 .4em;padding-top:.6em;border-top:1px solid #ddd}
.sub{color:#666;font-size:.9em}
table{border-collapse:collapse;font-size:.82em;background:#fff}
th,td{border:1px solid #ddd;padding:.2em .5em;text-align:right;white-space:nowrap}
th{background:#f0f0f0;position:sticky;top:0}
td.l,th.l{text-align:left;white-space:normal}
table.runs td{text-align:left;white-space:normal;vertical-align:top}
.sw{display:inline-block;width:.9em;height:.9em;border-radius:2px;vertical-align:-.1em;margin-right:.3em}
.ok{color:#1a7f37;font-weight:600}.bad{color:#b42318;font-weight:600}
ul.warn{background:#fff8e6;border:1px solid #f0c36d;border-radius:4px;padding:.5em 1em .5em 2em;margin:.5em 0}
ul.warn li{margin:.15em 0}
.figs{display:flex;flex-wrap:wrap;gap:1em}
figure{margin:0;background:#fff;border:1px solid #e3e3e3;border-radius:4px;padding:4px;flex:1 1 560px;max-width:810px}
figure svg{display:block;width:100%;height:auto}
details.lib summary{color:#666;font-size:.85em}
details.lib div{font-size:.8em;color:#555;max-width:40em}
figcaption{font-size:.8em;color:#555;padding:.2em .4em}
details{margin:.6em 0}
summary{cursor:pointer;color:#0b5cad}
nav ol{columns:4 14em;font-size:.9em}
code{font-size:.9em;background:#f0f0f0;padding:0 .2em;border-radius:2px}
footer{color:#777;font-size:.8em;margin-top:3em}
";

fn swatch(run: usize, runs: usize) -> String {
    if runs > 1 {
        format!(
            "<span class=\"sw\" style=\"background:{}\"></span>",
            hex(run, 0)
        )
    } else {
        String::new()
    }
}

fn status(r: &Report) -> String {
    let s = r.status.as_deref().unwrap_or("");
    match (s, r.complete) {
        ("ok", true) => "<span class=\"ok\">complete</span>".into(),
        ("validation_errors", _) => "<span class=\"bad\">validation errors</span>".into(),
        ("aborted", _) => "<span class=\"bad\">aborted</span>".into(),
        (_, true) => format!("complete ({})", esc(s)),
        (_, false) => format!(
            "<span class=\"bad\">INCOMPLETE</span> (status {})",
            esc(if s.is_empty() { "unknown" } else { s })
        ),
    }
}

fn settings(r: &Report) -> String {
    let st = &r.settings;
    let mut v = vec![format!("sync {}", st.sync), format!("timing {}", st.timing)];
    if st.check {
        v.push("every transfer checked".into());
    }
    if let Some(i) = st.iter {
        v.push(format!("{i} repetitions"));
    } else {
        v.push(format!(
            "repetitions {}–{}, at most {} s per length",
            st.min_iter, st.max_iter, st.time_limit_s
        ));
    }
    if let Some(p) = st.precision {
        v.push(format!("precision ±{}%", p * 100.0));
    }
    if let Some(w) = st.window_us {
        v.push(format!("window {w} µs"));
    }
    if st.root_shift {
        v.push("root shift".into());
    }
    if let Some(t) = st.timeout_s {
        v.push(format!("timeout {t} s"));
    }
    v.push(format!("large messages: {}", st.large_messages));
    esc(&v.join(", "))
}

fn header(out: &mut String, runs: &[Run<'_>]) {
    let _ = writeln!(out, "<header><h1>mpibench report</h1>");
    let _ = writeln!(
        out,
        "<p class=\"sub\">{} run{}; lines are medians of per-repetition times (per-call timing) or t_avg (loop timing, as PMB); shaded bands are the median's 95% CI, or p5–p95.</p>",
        runs.len(),
        if runs.len() == 1 { "" } else { "s" }
    );
    let _ = writeln!(out, "<table class=\"runs\"><tr><th class=\"l\">run</th><th class=\"l\">MPI library</th><th class=\"l\">hosts (ranks)</th><th class=\"l\">command</th><th class=\"l\">started</th><th class=\"l\">settings</th><th class=\"l\">status</th></tr>");
    for (i, r) in runs.iter().enumerate() {
        let rep = r.report;
        let hosts: Vec<String> = rep
            .hosts
            .iter()
            .enumerate()
            .map(|(k, h)| match rep.ranks_per_host.get(k) {
                Some(n) => format!("{h} ({n})"),
                None => h.clone(),
            })
            .collect();
        let _ = writeln!(
            out,
            "<tr><td>{}<b>{}</b><br><span class=\"sub\">{}</span></td><td><b>{}</b> <span class=\"sub\">MPI {}.{}, mpibench {}</span><details class=\"lib\"><summary>library details</summary><div>{}</div></details></td><td>{}<br><span class=\"sub\">{} ranks</span>{}</td><td><code>{}</code></td><td>{}</td><td>{}</td><td>{}</td></tr>",
            swatch(i, runs.len()),
            esc(&r.short),
            esc(&r.source),
            esc(&view::library_name(&rep.mpi.library)),
            rep.mpi.version[0],
            rep.mpi.version[1],
            esc(&rep.mpibench_version),
            esc(&rep.mpi.library),
            esc(&hosts.join(", ")),
            rep.world_size,
            context_cell(rep),
            esc(&rep.command.join(" ")),
            esc(&rep.started),
            settings(rep),
            status(rep),
        );
    }
    let _ = writeln!(out, "</table></header>");
}

/// The run's context under its hosts: cores and binding, the machine, the
/// MPI settings (the table header's lines), folded.
fn context_cell(rep: &crate::results::Report) -> String {
    let lines = crate::report::table::context_lines(rep, "");
    if lines.is_empty() {
        return String::new();
    }
    let rows: Vec<String> = lines.lines().map(|l| esc(l.trim())).collect();
    format!(
        "<details class=\"lib\"><summary>machine</summary><div>{}</div></details>",
        rows.join("<br>")
    )
}

fn warnings(out: &mut String, w: &[Warning]) {
    if w.is_empty() {
        return;
    }
    let _ = writeln!(out, "<ul class=\"warn\">");
    for x in w {
        let _ = writeln!(out, "<li>{}</li>", esc(&x.to_string()));
    }
    let _ = writeln!(out, "</ul>");
}

/// Inline SVG with an accessible name.
/// A self-contained page of the report's style around `body` (HTML),
/// with `footer` (HTML) under it: inline CSS, no scripts, nothing fetched.
pub fn page(title: &str, body: &str, footer: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>{}</title><style>{CSS}</style></head><body><main>\n{body}<footer>{footer}</footer></main></body></html>\n",
        esc(title)
    )
}

/// One figure as the report draws it: its SVG inline in a `<figure>`.
pub fn figure(f: &view::Figure) -> Result<String> {
    Ok(format!(
        "<figure id=\"{}\">{}</figure>",
        f.id,
        inline_svg(&plot::svg(f)?, &f.title)
    ))
}

fn inline_svg(svg: &str, title: &str) -> String {
    svg.replacen(
        "<svg ",
        &format!("<svg role=\"img\" aria-label=\"{}\" ", esc(title)),
        1,
    )
}

type Cell<'x> = Box<dyn Fn(usize, &BenchResult, &Row) -> Option<String> + 'x>;

/// A column of the numbers table: its head, whether it holds words
/// (left-aligned), and its cell of a row (run index, result, row).
type Column<'x> = (String, bool, Cell<'x>);

/// One row of the numbers table: run index, result, row.
type TableRow<'r> = (usize, &'r BenchResult, &'r Row);

fn col<'x>(
    head: impl Into<String>,
    left: bool,
    cell: impl Fn(usize, &BenchResult, &Row) -> Option<String> + 'x,
) -> Column<'x> {
    (head.into(), left, Box::new(cell))
}

/// A section's numbers: one line per row of its results, in the columns
/// that some row fills.
fn table(out: &mut String, s: &Section<'_>, runs: &[Run<'_>]) {
    let rows: Vec<TableRow<'_>> = s
        .results
        .iter()
        .flat_map(|&(i, r)| r.rows.iter().map(move |row| (i, r, row)))
        .collect();
    if rows.is_empty() {
        return;
    }
    let mut cols = key_columns(&rows, runs);
    cols.extend(stat_columns());
    cols.extend(count_columns());
    cols.extend(clock_columns());
    cols.push(col("remarks", true, move |i, res, r| {
        remarks(runs, i, res, r)
    }));
    write_table(out, &rows, &cols);
}

/// A finite number with about four significant digits.
fn finite(v: f64) -> Option<String> {
    v.is_finite().then(|| num(v))
}

/// A column of a statistic every row has, left empty for a result that
/// measures the instruments (its times are not transfers).
fn timed(stat: fn(&Row) -> f64) -> impl Fn(usize, &BenchResult, &Row) -> Option<String> {
    move |_, res, r| {
        (!res.measures_instruments())
            .then(|| finite(stat(r)))
            .flatten()
    }
}

/// A column of a figure some rows have.
fn some(stat: fn(&Row) -> Option<f64>) -> impl Fn(usize, &BenchResult, &Row) -> Option<String> {
    move |_, _, r| stat(r).and_then(finite)
}

/// A column of a range "lo–hi" some rows have.
fn range(
    ends: fn(&Row) -> (Option<f64>, Option<f64>),
) -> impl Fn(usize, &BenchResult, &Row) -> Option<String> {
    move |_, _, r| match ends(r) {
        (Some(a), Some(b)) if a.is_finite() && b.is_finite() => {
            Some(format!("{}–{}", num(a), num(b)))
        }
        _ => None,
    }
}

/// What a row is: its run (with several), process count, rank, size and
/// parameters (in order of first appearance).
fn key_columns<'x>(rows: &[TableRow<'_>], runs: &'x [Run<'_>]) -> Vec<Column<'x>> {
    let mut keys: Vec<String> = Vec::new();
    for (_, _, row) in rows {
        for k in row.params.keys() {
            if !keys.contains(k) {
                keys.push(k.clone());
            }
        }
    }
    let mut cols = Vec::new();
    if runs.len() > 1 {
        cols.push(col("run", true, move |i, _, _| {
            Some(format!("{}{}", swatch(i, runs.len()), esc(&runs[i].short)))
        }));
    }
    cols.push(col("P", false, |_, r, _| Some(r.processes.to_string())));
    if rows.iter().any(|(_, _, r)| r.rank.is_some()) {
        cols.push(col("rank", false, |_, _, r| r.rank.map(|x| x.to_string())));
    }
    if rows.iter().any(|(_, _, r)| r.bytes > 0) {
        cols.push(col("bytes", false, |_, _, r| {
            Some(esc(&bytes_label(r.bytes as f64)))
        }));
    }
    for k in keys {
        let head = esc(&k);
        cols.push(col(head, false, move |_, _, r| {
            r.params.get(&k).map(|v| esc(&param_cell(v)))
        }));
    }
    cols
}

/// The repetitions and the point statistics of a row.
fn stat_columns<'x>() -> Vec<Column<'x>> {
    vec![
        col("reps", false, |_, _, r| Some(r.repetitions.to_string())),
        col("t_min [µs]", false, timed(|r| r.t_min_us)),
        col("t_max [µs]", false, timed(|r| r.t_max_us)),
        col("t_avg [µs]", false, timed(|r| r.t_avg_us)),
        col("median [µs]", false, some(|r| r.t_median_us)),
        col("95% CI", false, range(|r| (r.ci95_lo_us, r.ci95_hi_us))),
        col("p5–p95", false, range(|r| (r.t_p5_us, r.t_p95_us))),
        col("MB/s", false, some(|r| r.mbytes_per_sec)),
        col("t_global [µs]", false, some(|r| r.t_global_us)),
    ]
}

/// What a row counted: validation errors, late and outlying samples, samples.
fn count_columns<'x>() -> Vec<Column<'x>> {
    vec![
        col("errors", false, |_, _, r| r.errors.map(|e| e.to_string())),
        col("invalid", false, |_, _, r| {
            r.invalid.filter(|&x| x > 0).map(|e| e.to_string())
        }),
        col("outliers", false, |_, _, r| {
            r.outliers.map(|e| e.to_string())
        }),
        col("samples", false, |_, _, r| {
            r.samples_n
                .or(r.samples_us.as_ref().map(|s| s.len() as u64))
                .map(|n| n.to_string())
        }),
    ]
}

/// The clock figures of a row (the clock and overhead benchmarks').
fn clock_columns<'x>() -> Vec<Column<'x>> {
    vec![
        col("offset [µs]", false, some(|r| r.offset_us)),
        col("drift [ppm]", false, some(|r| r.drift_ppm)),
        col("residual [µs]", false, some(|r| r.residual_us)),
        col("tick [µs]", false, some(|r| r.tick_us)),
        col("resolution [µs]", false, some(|r| r.resolution_us)),
        col("DT [µs]", false, some(|r| r.overhead_us)),
        col("faults / rep", false, some(|r| r.page_faults)),
    ]
}

/// A row's remarks: stopped on a bound, below resolution, disturbed, no
/// valid sample, its note.
fn remarks(runs: &[Run<'_>], i: usize, res: &BenchResult, r: &Row) -> Option<String> {
    let mut v = Vec::new();
    if r.stopped_on_bound == Some(true) {
        v.push("stopped on a bound".to_string());
    }
    if r.below_resolution == Some(true) {
        v.push("below resolution".to_string());
    }
    if r.disturbed == Some(true) {
        v.push("DISTURBED".to_string());
    }
    if r.faulted == Some(true) {
        v.push("PAGE FAULTS".to_string());
    }
    if !res.measures_instruments()
        && r.rank.is_none()
        && headline(loop_timed(runs[i].report, res), r).is_none()
    {
        v.push("no valid sample".to_string());
    }
    if let Some(n) = &r.note {
        v.push(n.clone());
    }
    (!v.is_empty()).then(|| esc(&v.join("; ")))
}

/// Writes the table: the columns some row fills, one line per row.
fn write_table(out: &mut String, rows: &[TableRow<'_>], cols: &[Column<'_>]) {
    let cells: Vec<Vec<Option<String>>> = rows
        .iter()
        .map(|(i, r, row)| cols.iter().map(|c| (c.2)(*i, r, row)).collect())
        .collect();
    let keep: Vec<bool> = (0..cols.len())
        .map(|c| cells.iter().any(|r| r[c].is_some()))
        .collect();
    let _ = writeln!(
        out,
        "<details><summary>Numbers ({} rows)</summary><table><tr>",
        rows.len()
    );
    for (c, k) in cols.iter().zip(&keep) {
        if *k {
            let _ = write!(
                out,
                "<th{}>{}</th>",
                if c.1 { " class=\"l\"" } else { "" },
                c.0
            );
        }
    }
    let _ = writeln!(out, "</tr>");
    for r in &cells {
        out.push_str("<tr>");
        for ((v, k), c) in r.iter().zip(&keep).zip(cols) {
            if *k {
                // End tags of td and tr are optional in HTML: large tables stay small.
                let _ = write!(
                    out,
                    "<td{}>{}",
                    if c.1 { " class=\"l\"" } else { "" },
                    v.as_deref().unwrap_or("")
                );
            }
        }
        out.push('\n');
    }
    let _ = writeln!(out, "</table></details>");
}

/// A parameter in the table: whole numbers and words as written, other
/// numbers (measured values) with about four significant digits.
fn param_cell(v: &serde_json::Value) -> String {
    match v.as_f64() {
        Some(x) if v.is_f64() && x.fract() != 0.0 => num(x),
        _ => param_value(v),
    }
}

/// A small table: a header row and rows of cells (already escaped);
/// the first `left` columns left-aligned.
fn small_table(out: &mut String, caption: &str, head: &[&str], rows: &[Vec<String>], left: usize) {
    if rows.is_empty() {
        return;
    }
    let _ = write!(out, "<p class=\"sub\">{}</p><table><tr>", esc(caption));
    for (i, h) in head.iter().enumerate() {
        let _ = write!(
            out,
            "<th{}>{}</th>",
            if i < left { " class=\"l\"" } else { "" },
            esc(h)
        );
    }
    out.push_str("</tr>\n");
    for r in rows {
        out.push_str("<tr>");
        for (i, c) in r.iter().enumerate() {
            let _ = write!(out, "<td{}>{c}", if i < left { " class=\"l\"" } else { "" });
        }
        out.push('\n');
    }
    out.push_str("</table>\n");
}

/// The tables the results' suites derive from them (COMMTEST's fits and
/// LogGP parameters), one per caption, with a row per result and entry.
fn derived(out: &mut String, s: &Section<'_>, runs: &[Run<'_>], parts: PartsOf) {
    let who = |i: usize, r: &BenchResult| {
        let p = format!("P={}", r.processes);
        if runs.len() > 1 {
            format!("{}{} {p}", swatch(i, runs.len()), esc(&runs[i].short))
        } else {
            p
        }
    };
    let mut tables: Vec<(PartTable, Vec<Vec<String>>)> = Vec::new();
    for &(i, r) in &s.results {
        let Some(make) = parts(&r.suite).tables else {
            continue;
        };
        for t in make(r) {
            let rows = t.rows.iter().map(|row| {
                std::iter::once(who(i, r))
                    .chain(row.iter().map(|c| esc(c)))
                    .collect::<Vec<_>>()
            });
            match tables.iter_mut().find(|(k, _)| k.caption == t.caption) {
                Some((_, all)) => all.extend(rows),
                None => {
                    let rows = rows.collect();
                    tables.push((t, rows));
                }
            }
        }
    }
    for (t, rows) in &tables {
        let head: Vec<&str> = std::iter::once("run")
            .chain(t.head.iter().copied())
            .collect();
        small_table(out, t.caption, &head, rows, t.left + 1);
    }
}

/// The page for runs that already have names.
pub fn render_runs(runs: &[Run<'_>], parts: PartsOf) -> Result<String> {
    let sections = view::sections(runs, parts);
    let mut out = String::with_capacity(256 * 1024);
    let title = runs
        .iter()
        .map(|r| r.label.as_str())
        .collect::<Vec<_>>()
        .join(" vs ");
    let _ = writeln!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>mpibench report: {}</title><style>{CSS}</style></head><body><main>",
        esc(&title)
    );
    header(&mut out, runs);
    warnings(&mut out, &view::run_warnings(runs));
    let _ = writeln!(out, "<nav><h2>Benchmarks</h2><ol>");
    for s in &sections {
        let n: usize = s.warnings.len();
        let _ = writeln!(
            out,
            "<li><a href=\"#{}\">{}</a> <span class=\"sub\">{}{}</span></li>",
            s.id,
            esc(&s.title),
            esc(&s.suite),
            if n > 0 {
                format!(", {n} warning{}", if n == 1 { "" } else { "s" })
            } else {
                String::new()
            }
        );
    }
    let _ = writeln!(out, "</ol></nav>");
    for s in &sections {
        let _ = writeln!(
            out,
            "<section id=\"{}\"><h2>{} <span class=\"sub\">{} · {}</span></h2>",
            s.id,
            esc(&s.title),
            esc(&s.suite),
            esc(&s
                .results
                .first()
                .map_or(String::new(), |r| r.1.class.clone()))
        );
        warnings(&mut out, &s.warnings);
        if !s.figures.is_empty() {
            let _ = writeln!(out, "<div class=\"figs\">");
            for f in &s.figures {
                // The notes are inside the SVG, under the legend.
                let _ = writeln!(out, "{}", figure(f)?);
            }
            let _ = writeln!(out, "</div>");
        }
        let groups: usize = s.results.iter().map(|r| r.1.group_rows.len()).sum();
        if groups > 0 {
            let _ = writeln!(
                out,
                "<p class=\"sub\">Per-group rows (--multi-detail) of {groups} groups are in the JSON file.</p>"
            );
        }
        derived(&mut out, s, runs, parts);
        table(&mut out, s, runs);
        let _ = writeln!(out, "</section>");
    }
    let _ = writeln!(
        out,
        "<footer>Written by mpibench {} (<code>mpibench report</code>). Self-contained: no scripts, no fonts or images fetched.</footer></main></body></html>",
        env!("CARGO_PKG_VERSION")
    );
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::plot::tests::{report, result, row};

    #[test]
    fn page_is_self_contained_and_warns() {
        let mut a = report(
            "Open MPI v4.1.4 <x>",
            "per-call",
            vec![
                result(
                    "imb",
                    "PingPong",
                    2,
                    (0..6).map(|k| row(1 << k, 1.0 + k as f64)).collect(),
                ),
                result("imb", "Bcast", 2, vec![row(8, 1.0)]),
                result("imb", "Bcast", 4, vec![row(8, 2.0)]),
            ],
        );
        a.complete = false;
        a.status = Some("running".into());
        a.results[0].rows[1].below_resolution = Some(true);
        a.results[0].rows[2].t_avg_us = f64::NAN;
        a.results[0].rows[2].t_median_us = None;
        a.results[0].note = Some("lengths above 1 GiB skipped: memory limit".into());
        a.results[1].rows[0].invalid = Some(3);
        a.results[2].rows[0].stopped_on_bound = Some(true);
        a.results[2].rows[0].errors = Some(2);
        a.results[0].rows[3].disturbed = Some(true);
        a.results[0].rows[3].note =
            Some("disturbed: a stall of 20.1 s, 176000x the pace of 114 us per repetition".into());
        let html = render(
            std::slice::from_ref(&a),
            crate::plugin::lookup::report_parts,
        )
        .unwrap();
        assert!(html.starts_with("<!DOCTYPE html>"));
        for banned in ["<script", "<link", "@import", "url(", "src="] {
            assert!(!html.contains(banned), "{banned}");
        }
        assert!(html.contains("Open MPI v4.1.4 &lt;x&gt;"));
        assert!(html.contains("INCOMPLETE"));
        for w in [
            "did not finish",
            "below the clock&#39;s resolution",
            "no valid sample",
            "memory limit",
            "started late",
            "stopped on a bound",
            "validation errors",
            "DISTURBED",
            "a stall of 20.1 s",
        ] {
            assert!(html.contains(w), "missing warning: {w}");
        }
        // PingPong: latency; Bcast: one size, two process counts: time against P.
        assert_eq!(html.matches("<svg").count(), 2);
    }

    #[test]
    fn loggp_and_fit_tables() {
        use crate::results::{Fit, LogGp};
        let mut r = result(
            "commtest",
            "loggp",
            2,
            vec![row(1, 0.7), row(2, 0.7), row(4, 0.7)],
        );
        r.rows[0]
            .params
            .insert("o_s_us".into(), 0.7134999995273006.into());
        r.rows[0].params.insert("n".into(), 10.into());
        r.measured_params = vec!["o_s_us".into()];
        r.figures.loggp = Some(LogGp {
            partner: 1,
            n: 10,
            l_us: 0.357,
            o_s_us: 0.054,
            o_r_us: 0.05,
            g_us: 0.393,
            big_g_us_per_byte: 4.818e-5,
            r2: Some(0.9153),
            warnings: vec!["s = 64 bytes: short delay".into()],
            ..LogGp::default()
        });
        let mut s = result("commtest", "SWAP", 2, vec![]);
        s.figures.fits = vec![Fit {
            protocol: "(0,3)".into(),
            name: "nonblocking send and receive".into(),
            volume: 2 << 20,
            points: 7,
            alpha_us: 2.206,
            beta_mbs: Some(46900.0),
            ..Fit::default()
        }];
        // A line that does not fit: no α or β in its row, the reasons instead.
        s.figures.fits.push(Fit {
            protocol: "(0,1)".into(),
            name: "blocking send, nonblocking receive".into(),
            volume: 2 << 20,
            points: 7,
            alpha_us: 0.508,
            beta_mbs: Some(7860.8),
            r2: Some(0.26),
            max_mbs: 14614.1,
            ..Fit::default()
        });
        let html = render(
            &[report("Open MPI v4.1.4", "per-call", vec![r, s])],
            crate::plugin::lookup::report_parts,
        )
        .unwrap();
        for cell in [
            "<td>0.357",
            "<td>0.054",
            "<td>0.050",
            "<td>0.393",
            "<td>4.818e-5",
            "<td>19794",
            "short delay",
            "<td>2.206",
            "<td>46900",
            "<td>2 MiB",
            "no linear fit: R^2 = 0.2600 below 0.90<td>–<td>–",
        ] {
            assert!(html.contains(cell), "{cell}");
        }
        assert!(!html.contains("<td>0.508") && !html.contains("<td>7861"));
        assert!(html.contains("<th>L [µs]</th><th>o_s [µs]</th><th>o_r [µs]</th><th>g [µs]</th>"));
        // Measured values in the numbers table: four digits, not seventeen.
        assert!(html.contains("<td>0.713") && !html.contains("0.71349"));
        assert!(html.contains("<td>10\n") || html.contains("<td>10<"));
    }

    #[test]
    fn runs_are_overlaid_with_one_colour_each() {
        let rows = |t: f64| (0..6).map(|k| row(1 << k, t)).collect::<Vec<_>>();
        let a = report(
            "Open MPI v4.1.4",
            "per-call",
            vec![result("imb", "PingPong", 2, rows(1.0))],
        );
        let mut b = report(
            "MPICH Version: 4.0.2",
            "loop",
            vec![result("imb", "PingPong", 2, rows(2.0))],
        );
        b.hosts = vec!["node02".into()];
        let html = render(&[a, b], crate::plugin::lookup::report_parts).unwrap();
        assert_eq!(html.matches("<svg").count(), 1);
        assert!(html.contains("A: Open MPI v4.1.4 @ node01"));
        assert!(html.contains("B: MPICH 4.0.2 @ node02"));
        assert!(html.contains(&hex(0, 0)) && html.contains(&hex(1, 0)));
    }
}
