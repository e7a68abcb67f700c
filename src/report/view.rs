//! What the plots, the gnuplot files and the HTML report show, derived from
//! `Report` values only (never MPI): runs, one section per benchmark, the
//! figures of each section and plain-word warnings. No formatting here.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::path::Path;

use anyhow::{Context, Result};
use serde_json::Value;

use super::{ModelPoint, PartTable};
use crate::results::Params;
use crate::results::{BenchResult, Report, Row};

/// A suite's parts of the HTML report.
#[derive(Clone, Copy)]
pub struct ReportParts {
    /// Tables derived from one result (COMMTEST's fits and LogGP).
    pub tables: Option<fn(&BenchResult) -> Vec<PartTable>>,
    /// The model fitted to a result's rows, at one row (COMMTEST's fits),
    /// drawn as a line beside the measured series.
    pub model: Option<fn(&BenchResult, &Row) -> Option<ModelPoint>>,
    /// Numeric parameters that name rather than measure (CRESTA's
    /// scenario): they split series, never an axis of a figure.
    pub identifiers: &'static [&'static str],
}

impl ReportParts {
    pub const NONE: ReportParts = ReportParts {
        tables: None,
        model: None,
        identifiers: &[],
    };
}

/// Each suite's parts of the report by the suite's name (of a result):
/// the registry's answer, which the commands pass down (the report
/// imports no suite and no registry); [`ReportParts::NONE`] for a suite
/// the build does not know.
pub type PartsOf = fn(&str) -> ReportParts;

/// One JSON results file, with the names the report gives it.
pub struct Run<'a> {
    /// "A", "B", ... (legends, tables).
    pub short: String,
    /// Library and host, e.g. "Open MPI v4.1.4 @ node01".
    pub label: String,
    /// Where it came from (file name).
    pub source: String,
    pub report: &'a Report,
}

/// Reads one results file.
pub fn load(path: &Path) -> Result<Report> {
    let bytes = crate::input::read_bounded(
        path,
        crate::input::RESULTS_CAP,
        "the results file",
        crate::input::Stdin::Allowed,
    )
    .map_err(anyhow::Error::msg)?;
    let name = if path.as_os_str() == "-" {
        "(stdin)".to_string()
    } else {
        format!("'{}'", path.display())
    };
    let text =
        std::str::from_utf8(&bytes).map_err(|_| anyhow::anyhow!("{name} is not UTF-8 text"))?;
    match super::validate::parse(text) {
        Ok(r) => Ok(r),
        Err(e @ super::validate::ParseError::Schema(_)) => Err(anyhow::anyhow!("{name}: {e}")),
        Err(e) => Err(e).with_context(|| format!("{name} is not an mpibench JSON results file")),
    }
}

/// Names runs "A", "B", ... and labels them by library and host; runs with
/// the same label get their file name appended.
pub fn runs(reports: Vec<(String, &Report)>) -> Vec<Run<'_>> {
    let mut out: Vec<Run<'_>> = reports
        .into_iter()
        .enumerate()
        .map(|(i, (source, report))| Run {
            short: short_name(i),
            label: run_label(report),
            source,
            report,
        })
        .collect();
    let labels: Vec<String> = out.iter().map(|r| r.label.clone()).collect();
    for r in &mut out {
        if labels.iter().filter(|l| **l == r.label).count() > 1 {
            r.label = format!("{} ({})", r.label, r.source);
        }
    }
    out
}

fn short_name(i: usize) -> String {
    let letters = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ";
    if i < letters.len() {
        (letters[i] as char).to_string()
    } else {
        format!("R{}", i + 1)
    }
}

/// "Open MPI v4.1.4" from "Open MPI v4.1.4, package: ...", "MPICH 4.0.2"
/// from "MPICH Version:\t4.0.2\nMPICH Release date: ...".
pub fn library_name(library: &str) -> String {
    let first = library.lines().next().unwrap_or("").trim();
    let first = first.split(',').next().unwrap_or("").trim();
    let mut words: Vec<&str> = Vec::new();
    let mut after_version = false;
    for w in first.split_whitespace() {
        if w.eq_ignore_ascii_case("version:") {
            after_version = true;
            continue;
        }
        words.push(w);
        if after_version {
            // MPICH: "MPICH Version: 4.0.2 MPICH Release date: ..." on one line.
            break;
        }
    }
    if words.is_empty() {
        "unknown MPI".to_string()
    } else {
        words.join(" ")
    }
}

/// "Open MPI v4.1.4 @ node01" (+ "+3 hosts" when there are more).
pub fn run_label(r: &Report) -> String {
    let host = match r.hosts.len() {
        0 => "?".to_string(),
        1 => r.hosts[0].clone(),
        n => format!("{} +{} hosts", r.hosts[0], n - 1),
    };
    format!("{} @ {host}", library_name(&r.mpi.library))
}

/// True when the result's rows were timed as PMB does (one clock pair
/// around all repetitions): their statistics are over per-rank averages.
pub fn loop_timed(report: &Report, r: &BenchResult) -> bool {
    match r.method.as_deref() {
        Some(m) => m == "pmb-loop" || m == "loop",
        None => report.settings.timing == "loop",
    }
}

fn finite(v: f64) -> Option<f64> {
    v.is_finite().then_some(v)
}

/// The one number a row is plotted and compared by: the median with
/// per-call style timing, t_avg with loop timing (or when there is no median).
pub fn headline(loop_timed: bool, row: &Row) -> Option<f64> {
    if loop_timed {
        finite(row.t_avg_us)
    } else {
        row.t_median_us
            .filter(|v| v.is_finite())
            .or(finite(row.t_avg_us))
    }
}

/// The error band of a per-call row: the median's 95% CI, else p5–p95.
pub fn band(loop_timed: bool, row: &Row) -> Option<((f64, f64), &'static str)> {
    if loop_timed {
        return None;
    }
    let pair = |a: Option<f64>, b: Option<f64>| match (a, b) {
        (Some(a), Some(b)) if a.is_finite() && b.is_finite() => Some((a, b)),
        _ => None,
    };
    pair(row.ci95_lo_us, row.ci95_hi_us)
        .map(|p| (p, "95% CI of the median"))
        .or_else(|| pair(row.t_p5_us, row.t_p95_us).map(|p| (p, "p5–p95")))
}

/// Parameters of `res`'s rows that are measured rather than chosen: those
/// it declares in `measured_params` (LogGP's PRTT medians, the figures a
/// kernel reports) and, for files written before that field, names with
/// "achieved" or "measured" (CRESTA's `t_calc_achieved_us`). Never an axis,
/// never part of a match key.
pub fn measured_param(res: &BenchResult, key: &str) -> bool {
    res.measured_params.iter().any(|k| k == key)
        || key.contains("achieved")
        || key.contains("measured")
}

/// The chosen (not measured) parameters of a row of `res`.
pub fn chosen_params(res: &BenchResult, row: &Row) -> Params {
    row.params
        .iter()
        .filter(|(k, _)| !measured_param(res, k))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

/// A parameter value as written by the user: numbers plainly, strings unquoted.
pub fn param_value(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Number(n) => n.to_string(),
        Value::Bool(b) => b.to_string(),
        Value::Null => "null".to_string(),
        other => other.to_string(),
    }
}

/// "key=value, ..." of parameters (give it the chosen ones), leaving out `skip`.
pub fn params_label(params: &BTreeMap<String, Value>, skip: &[&str]) -> String {
    params
        .iter()
        .filter(|(k, _)| !skip.contains(&k.as_str()))
        .map(|(k, v)| format!("{k}={}", param_value(v)))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Bytes with binary suffixes: 0, 512, 1 KiB, 4 MiB, 2 GiB (plain when not a round multiple).
pub fn bytes_label(b: f64) -> String {
    const UNITS: [(&str, f64); 4] = [
        ("TiB", 1099511627776.0),
        ("GiB", 1073741824.0),
        ("MiB", 1048576.0),
        ("KiB", 1024.0),
    ];
    for (u, f) in UNITS {
        if b >= f {
            let v = b / f;
            return if (v - v.round()).abs() < 1e-9 {
                format!("{} {u}", v.round())
            } else {
                let n = format!("{v:.3}");
                format!("{} {u}", n.trim_end_matches('0').trim_end_matches('.'))
            };
        }
    }
    if (b - b.round()).abs() < 1e-9 {
        format!("{}", b.round())
    } else {
        format!("{b:.2}")
    }
}

/// "512 B", "1 KiB": a message size with its unit.
pub fn size_label(bytes: usize) -> String {
    let l = bytes_label(bytes as f64);
    if l.ends_with('B') {
        l
    } else {
        format!("{l} B")
    }
}

/// A number with about four significant digits.
pub fn num(v: f64) -> String {
    if !v.is_finite() {
        return "–".to_string();
    }
    let a = v.abs();
    if a == 0.0 {
        "0".to_string()
    } else if a >= 1e6 {
        format!("{v:.3e}")
    } else if a >= 1000.0 {
        format!("{v:.0}")
    } else if a >= 100.0 {
        format!("{v:.1}")
    } else if a >= 10.0 {
        format!("{v:.2}")
    } else if a >= 0.01 {
        format!("{v:.3}")
    } else {
        format!("{v:.2e}")
    }
}

// ------------------------------------------------------------------ figures

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scale {
    Linear,
    /// log2 (message sizes: ticks at powers of two).
    Log2,
    Log10,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ticks {
    Number,
    Bytes,
    /// Integer positions name `Axis::categories`.
    Category,
}

#[derive(Debug, Clone)]
pub struct Axis {
    pub label: String,
    pub scale: Scale,
    pub ticks: Ticks,
    pub categories: Vec<String>,
    /// Tick values (original units) to use instead of computed ones, e.g. process counts.
    pub fixed_ticks: Vec<f64>,
}

impl Axis {
    fn new(label: &str, scale: Scale, ticks: Ticks) -> Axis {
        Axis {
            label: label.to_string(),
            scale,
            ticks,
            categories: Vec::new(),
            fixed_ticks: Vec::new(),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Lines with markers, optional error bands, min–max bars and fit lines.
    Lines,
    /// Grouped bars (x = category index), one bar per run, error bars from `band`.
    Bars,
    /// One heatmap (`Figure::heat`).
    Heatmap,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Point {
    pub x: f64,
    pub y: f64,
    /// Error band (CI or p5–p95) around y.
    pub band: Option<(f64, f64)>,
    /// Min–max bar (over ranks) around y.
    pub range: Option<(f64, f64)>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Style {
    Data,
    /// A fitted model: a thin dashed line without markers.
    Fit,
}

#[derive(Debug, Clone)]
pub struct Series {
    pub label: String,
    /// Palette index: the run's with several runs, else one per series.
    pub color: usize,
    /// 0 = the palette colour; higher = darker/lighter variants.
    pub shade: usize,
    pub marker: usize,
    pub style: Style,
    pub points: Vec<Point>,
}

#[derive(Debug, Clone)]
pub struct Heat {
    /// Rows are senders, columns receivers; None where there is no value.
    pub cells: Vec<Vec<Option<f64>>>,
    pub unit: String,
}

#[derive(Debug, Clone)]
pub struct Figure {
    /// File-name safe and unique within the report.
    pub id: String,
    pub title: String,
    pub kind: Kind,
    pub x: Axis,
    pub y: Axis,
    pub series: Vec<Series>,
    pub heat: Option<Heat>,
    /// Runs shown (short name, label, palette index) for the legend.
    pub runs: Vec<(String, String, usize)>,
    /// What bands and bars mean, what was left out.
    pub notes: Vec<String>,
}

// ----------------------------------------------------------------- sections

/// Everything the report shows about one benchmark (suite, name, mode) over all runs.
pub struct Section<'a> {
    pub id: String,
    pub title: String,
    pub suite: String,
    pub mode: String,
    /// (run index, result) in run order, then process count order.
    pub results: Vec<(usize, &'a BenchResult)>,
    pub figures: Vec<Figure>,
    pub warnings: Vec<Warning>,
}

/// Groups the results of all runs into sections, in order of first appearance.
pub fn sections<'a>(runs: &[Run<'a>], parts: PartsOf) -> Vec<Section<'a>> {
    let mut order: Vec<(String, String, String)> = Vec::new();
    type Key = (String, String, String);
    let mut by_key: BTreeMap<Key, Vec<(usize, &'a BenchResult)>> = BTreeMap::new();
    for (i, run) in runs.iter().enumerate() {
        let report: &'a Report = run.report;
        for r in &report.results {
            let key = (r.suite.clone(), r.benchmark.clone(), r.mode.clone());
            if !by_key.contains_key(&key) {
                order.push(key.clone());
            }
            by_key.entry(key).or_default().push((i, r));
        }
    }
    let mut ids = BTreeSet::new();
    order
        .into_iter()
        .map(|key| {
            let mut results = by_key.remove(&key).unwrap_or_default();
            results.sort_by_key(|(i, r)| (*i, r.processes));
            let (suite, benchmark, mode) = key;
            let mut id = slug(&format!("{suite}-{benchmark}-{mode}"));
            while !ids.insert(id.clone()) {
                id.push('_');
            }
            let title = if mode == "multi" {
                format!("Multi-{benchmark}")
            } else {
                benchmark.clone()
            };
            let mut s = Section {
                id,
                title,
                suite,
                mode,
                results,
                figures: Vec::new(),
                warnings: Vec::new(),
            };
            s.figures = figures(&s, runs, parts);
            s.warnings = section_warnings(&s, runs);
            s
        })
        .collect()
}

/// Lower-case ASCII letters, digits and '-' only.
pub fn slug(s: &str) -> String {
    let mut out = String::new();
    for c in s.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if !out.ends_with('-') {
            out.push('-');
        }
    }
    out.trim_matches('-').to_string()
}

/// One row with what a figure needs.
struct Item<'a> {
    run: usize,
    res: &'a BenchResult,
    row: &'a Row,
    /// The row's chosen parameters (measured ones left out).
    params: Params,
    y: f64,
    band: Option<((f64, f64), &'static str)>,
}

fn items<'a>(s: &Section<'a>, runs: &[Run]) -> Vec<Item<'a>> {
    let mut v = Vec::new();
    for &(run, res) in &s.results {
        if res.measures_instruments() {
            continue;
        }
        let lt = loop_timed(runs[run].report, res);
        for row in &res.rows {
            if row.rank.is_some() {
                continue;
            }
            if let Some(y) = headline(lt, row) {
                v.push(Item {
                    run,
                    res,
                    row,
                    params: chosen_params(res, row),
                    y,
                    band: band(lt, row),
                });
            }
        }
    }
    v
}

/// Series in order of first appearance, keyed by (run, sub-key).
struct Grouper<'a, 'b> {
    keys: Vec<(usize, String)>,
    members: Vec<Vec<&'b Item<'a>>>,
}

impl<'a, 'b> Grouper<'a, 'b> {
    fn new() -> Self {
        Grouper {
            keys: Vec::new(),
            members: Vec::new(),
        }
    }
    fn add(&mut self, run: usize, key: String, it: &'b Item<'a>) {
        match self.keys.iter().position(|k| k.0 == run && k.1 == key) {
            Some(i) => self.members[i].push(it),
            None => {
                self.keys.push((run, key));
                self.members.push(vec![it]);
            }
        }
    }
}

/// Turns groups into series: colour per run with several runs, per series otherwise.
fn make_series(
    g: Grouper<'_, '_>,
    runs: &[Run],
    n_runs: usize,
    point: impl Fn(&Item<'_>) -> Option<Point>,
) -> Vec<Series> {
    make_series_with(g, runs, n_runs, point, |_, _| None)
}

/// As `make_series`, each data series followed by the series `extra` makes
/// of it and its rows (a fitted line), if any.
fn make_series_with(
    g: Grouper<'_, '_>,
    runs: &[Run],
    n_runs: usize,
    point: impl Fn(&Item<'_>) -> Option<Point>,
    extra: impl Fn(&Series, &[&Item<'_>]) -> Option<Series>,
) -> Vec<Series> {
    let mut per_run_count: BTreeMap<usize, usize> = BTreeMap::new();
    let mut out = Vec::new();
    for (i, ((run, key), members)) in g.keys.into_iter().zip(g.members).enumerate() {
        let mut points: Vec<Point> = members.iter().filter_map(|it| point(it)).collect();
        if points.is_empty() {
            continue;
        }
        points.sort_by(|a, b| a.x.total_cmp(&b.x));
        let sub = per_run_count.entry(run).or_insert(0);
        let (color, shade, marker) = if n_runs > 1 {
            (run, *sub, *sub)
        } else {
            (i, 0, i)
        };
        *sub += 1;
        let label = match (n_runs > 1, key.is_empty()) {
            (true, true) => runs[run].short.clone(),
            (true, false) => format!("{} · {key}", runs[run].short),
            (false, true) => runs[run].short.clone(),
            (false, false) => key,
        };
        let data = Series {
            label,
            color,
            shade,
            marker,
            style: Style::Data,
            points,
        };
        let more = extra(&data, &members);
        out.push(data);
        out.extend(more);
    }
    out
}

fn distinct_f64(v: impl Iterator<Item = f64>) -> Vec<f64> {
    let mut d: Vec<f64> = v.filter(|x| x.is_finite()).collect();
    d.sort_by(f64::total_cmp);
    d.dedup();
    d
}

/// Log10 when the values span more than a factor `f` and are positive.
fn auto_scale(vals: &[f64], f: f64) -> Scale {
    let pos: Vec<f64> = vals.iter().copied().filter(|v| *v > 0.0).collect();
    if pos.len() == vals.len() && !pos.is_empty() {
        let (lo, hi) = pos
            .iter()
            .fold((f64::INFINITY, 0.0f64), |(a, b), &v| (a.min(v), b.max(v)));
        if hi / lo >= f {
            return Scale::Log10;
        }
    }
    Scale::Linear
}

/// At most this many series in one figure; the rest are in the table.
const MAX_SERIES: usize = 12;

/// Keeps the first `MAX_SERIES` data series, each with the fitted lines
/// that follow it.
fn cap(fig: &mut Figure) {
    let n = fig.series.iter().filter(|s| s.style == Style::Data).count();
    if n > MAX_SERIES {
        let mut kept = 0;
        fig.series.retain(|s| {
            if s.style == Style::Data {
                kept += 1;
            }
            kept <= MAX_SERIES
        });
        fig.notes.push(format!(
            "{MAX_SERIES} of {n} series shown; all are in the table."
        ));
    }
}

fn run_legend(runs: &[Run], used: &BTreeSet<usize>, n_runs: usize) -> Vec<(String, String, usize)> {
    used.iter()
        .map(|&i| {
            (
                runs[i].short.clone(),
                runs[i].label.clone(),
                if n_runs > 1 { i } else { usize::MAX },
            )
        })
        .collect()
}

fn band_note(its: &[Item<'_>]) -> Option<String> {
    let kinds: BTreeSet<&str> = its.iter().filter_map(|i| i.band.map(|b| b.1)).collect();
    if kinds.is_empty() {
        None
    } else {
        Some(format!(
            "Shaded band: {}.",
            kinds.into_iter().collect::<Vec<_>>().join(" or ")
        ))
    }
}

fn y_label(its: &[Item<'_>], runs: &[Run]) -> String {
    let (mut med, mut avg) = (false, false);
    for it in its {
        if loop_timed(runs[it.run].report, it.res) || it.row.t_median_us.is_none() {
            avg = true;
        } else {
            med = true;
        }
    }
    match (med, avg) {
        (true, false) => "median time [µs]",
        (false, _) => "t_avg [µs]",
        (true, true) => "time [µs] (median; t_avg for loop timing)",
    }
    .to_string()
}

/// What the figures of a section are drawn from: its rows, and how its
/// parameters vary over them.
struct Shape<'a, 'x> {
    s: &'x Section<'a>,
    runs: &'x [Run<'x>],
    /// The suites' parts of the report (identifiers, fitted models).
    parts: PartsOf,
    its: Vec<Item<'a>>,
    legend: Vec<(String, String, usize)>,
    /// The process counts and message sizes of the section.
    procs: Vec<f64>,
    sizes: Vec<f64>,
    /// Parameters with one value in the whole section (they label no series).
    constant: Vec<String>,
    /// The others, and those of them the message size determines.
    varying: Vec<String>,
    size_bound: Vec<String>,
    /// Numeric parameters with three or more values: axes of their own.
    numeric_axes: Vec<String>,
    /// Another varying parameter splits series without an axis.
    categorical_varies: bool,
    /// Message size varies for one set of other parameters.
    sized: bool,
    ylab: String,
}

fn strs(v: &[String]) -> Vec<&str> {
    v.iter().map(String::as_str).collect()
}

fn join(parts: &[String]) -> String {
    parts
        .iter()
        .filter(|p| !p.is_empty())
        .cloned()
        .collect::<Vec<_>>()
        .join(", ")
}

fn pv(it: &Item<'_>, k: &str) -> String {
    it.params.get(k).map_or(String::new(), |v| v.to_string())
}

fn bytes_of(it: &Item<'_>) -> String {
    it.row.bytes.to_string()
}

impl<'a, 'x> Shape<'a, 'x> {
    fn of(s: &'x Section<'a>, runs: &'x [Run<'x>], parts: PartsOf) -> Shape<'a, 'x> {
        let its = items(s, runs);
        let used: BTreeSet<usize> = its.iter().map(|i| i.run).collect();
        let legend = run_legend(runs, &used, runs.len());
        let procs = distinct_f64(its.iter().map(|i| i.res.processes as f64));
        let sizes = distinct_f64(its.iter().map(|i| i.row.bytes as f64));
        // Parameters: the values each takes over the section.
        let mut values: BTreeMap<String, Vec<Value>> = BTreeMap::new();
        for it in &its {
            for (k, v) in &it.params {
                values.entry(k.clone()).or_default().push(v.clone());
            }
        }
        let distinct = |vs: &[Value]| vs.iter().map(|v| v.to_string()).collect::<BTreeSet<_>>();
        let constant: Vec<String> = values
            .iter()
            .filter(|(_, vs)| distinct(vs).len() == 1)
            .map(|(k, _)| k.clone())
            .collect();
        let varying: Vec<String> = values
            .keys()
            .filter(|k| !constant.contains(k))
            .cloned()
            .collect();
        // Parameters the message size determines (ALLREDUCE's element count n,
        // a halo's n and ndata): another name for the size, never a series of
        // their own.
        let size_bound: Vec<String> = varying
            .iter()
            .filter(|k| determines(&its, bytes_of, |it| pv(it, k)))
            .cloned()
            .collect();
        // Message size is an axis of its own when it varies for one set of other
        // parameters (IMB); not when the parameters determine it (COMMTEST's
        // packets · packet_bytes).
        let mut per_point: BTreeMap<(usize, usize, String), BTreeSet<usize>> = BTreeMap::new();
        for it in &its {
            per_point
                .entry((
                    it.run,
                    it.res.processes,
                    params_label(&it.params, &strs(&size_bound)),
                ))
                .or_default()
                .insert(it.row.bytes);
        }
        let sized = per_point
            .values()
            .any(|b| b.iter().filter(|&&x| x > 0).count() >= 2);
        // Numeric parameters with three or more values are axes; identifiers
        // (a rank, those the suite declares: CRESTA's scenario), two-valued
        // switches and the other varying parameters split series. A
        // size-bound parameter proportional to the size (ndata = bytes/8)
        // and one equal to an earlier axis on every row (a halo's nx = n)
        // draw no figure of their own.
        let mut numeric_axes: Vec<String> = Vec::new();
        let mut categorical_varies = false;
        for k in &varying {
            let vs = &values[k];
            let numeric = vs.iter().all(|v| v.is_number());
            let id_like = k.ends_with("rank")
                || its
                    .iter()
                    .any(|it| parts(&it.res.suite).identifiers.contains(&k.as_str()));
            if numeric && distinct(vs).len() > 2 && !id_like {
                let rescaled_size = size_bound.contains(k) && proportional_to_size(&its, k);
                let same_as_earlier = numeric_axes
                    .iter()
                    .any(|j| its.iter().all(|it| it.params.get(j) == it.params.get(k)));
                if !rescaled_size && !same_as_earlier {
                    numeric_axes.push(k.clone());
                }
            } else if !size_bound.contains(k) {
                categorical_varies = true;
            }
        }
        let ylab = y_label(&its, runs);
        Shape {
            s,
            runs,
            parts,
            its,
            legend,
            procs,
            sizes,
            constant,
            varying,
            size_bound,
            numeric_axes,
            categorical_varies,
            sized,
            ylab,
        }
    }

    fn id(&self, kind: &str) -> String {
        format!("{}-{kind}", self.s.id)
    }

    /// The process count, where it varies (or in Multi mode).
    fn p_key(&self, it: &Item<'_>) -> String {
        if self.procs.len() > 1 || self.s.mode == "multi" {
            format!("P={}", it.res.processes)
        } else {
            String::new()
        }
    }

    /// A series label of the parameters, without `skip` and the constant ones.
    fn plabel(&self, params: &BTreeMap<String, Value>, skip: &[&str]) -> String {
        let mut sk: Vec<&str> = skip.to_vec();
        sk.extend(self.constant.iter().map(String::as_str));
        params_label(params, &sk)
    }

    fn constant_note(&self) -> Option<String> {
        self.its.first().and_then(|it| {
            let l: Vec<String> = self
                .constant
                .iter()
                .filter_map(|k| it.params.get(k).map(|v| format!("{k}={}", param_value(v))))
                .collect();
            (!l.is_empty()).then(|| format!("All rows: {}.", l.join(", ")))
        })
    }

    fn lines(
        &self,
        id: String,
        title: String,
        x: Axis,
        y: Axis,
        series: Vec<Series>,
        notes: Vec<String>,
    ) -> Figure {
        let mut f = Figure {
            id,
            title,
            kind: Kind::Lines,
            x,
            y,
            series,
            heat: None,
            runs: self.legend.clone(),
            notes,
        };
        cap(&mut f);
        f
    }

    /// The rows of sized messages grouped into series by process count and
    /// the parameters the size does not determine.
    fn by_size(&self) -> Grouper<'a, '_> {
        let mut g = Grouper::new();
        for it in self.its.iter().filter(|i| i.row.bytes > 0) {
            g.add(
                it.run,
                join(&[
                    self.p_key(it),
                    self.plabel(&it.params, &strs(&self.size_bound)),
                ]),
                it,
            );
        }
        g
    }

    /// 1. Time against message size (log-log), with the error band.
    fn latency(&self) -> Figure {
        let series = make_series(self.by_size(), self.runs, self.runs.len(), |it| {
            Some(Point {
                x: it.row.bytes as f64,
                y: it.y,
                band: it.band.map(|b| b.0),
                range: None,
            })
        });
        let mut notes: Vec<String> = band_note(&self.its).into_iter().collect();
        if self.its.iter().any(|i| i.row.bytes == 0) {
            notes.push("0-byte rows are in the table (no place on a log axis).".into());
        }
        self.lines(
            self.id("latency"),
            format!("{}: time against message size", self.s.title),
            Axis::new("message size [bytes]", Scale::Log2, Ticks::Bytes),
            Axis::new(&self.ylab, Scale::Log10, Ticks::Number),
            series,
            notes,
        )
    }

    /// 2. Bandwidth against message size, where the suite defines a throughput.
    fn bandwidth(&self) -> Option<Figure> {
        if !self.its.iter().any(|i| i.row.mbytes_per_sec.is_some()) {
            return None;
        }
        let series = make_series(self.by_size(), self.runs, self.runs.len(), |it| {
            it.row
                .mbytes_per_sec
                .filter(|v| v.is_finite() && *v > 0.0)
                .map(|mb| Point {
                    x: it.row.bytes as f64,
                    y: mb,
                    band: None,
                    range: None,
                })
        });
        Some(self.lines(
            self.id("bandwidth"),
            format!("{}: bandwidth against message size", self.s.title),
            Axis::new("message size [bytes]", Scale::Log2, Ticks::Bytes),
            Axis::new(
                "bandwidth [MB/s] (MB = 2^20 bytes)",
                Scale::Log10,
                Ticks::Number,
            ),
            series,
            Vec::new(),
        ))
    }

    /// 3. Time against a numeric parameter (halo n, t_delay, t_calc, packets, ...).
    fn against(&self, k: &str) -> Figure {
        let its = &self.its;
        // Parameters that follow from the size and this one (COMMTEST's
        // packet_bytes = V/packets) split no series here; the size does
        // unless this parameter determines it.
        let by_size_and_k = |it: &Item<'_>| format!("{} {}", it.row.bytes, pv(it, k));
        let mut skip: Vec<&str> = self
            .varying
            .iter()
            .map(String::as_str)
            .filter(|&j| j != k && determines(its, by_size_and_k, |it| pv(it, j)))
            .collect();
        skip.push(k);
        let size_splits = self.sizes.len() > 1 && !determines(its, |it| pv(it, k), bytes_of);
        let size_key = |it: &Item<'_>| {
            if size_splits {
                size_label(it.row.bytes)
            } else {
                String::new()
            }
        };
        let mut g = Grouper::new();
        for it in its.iter().filter(|i| i.params.contains_key(k)) {
            g.add(
                it.run,
                join(&[self.p_key(it), size_key(it), self.plabel(&it.params, &skip)]),
                it,
            );
        }
        let at = |it: &Item<'_>| it.params.get(k).and_then(|v| v.as_f64());
        let series = make_series_with(
            g,
            self.runs,
            self.runs.len(),
            |it| {
                at(it).map(|x| Point {
                    x,
                    y: it.y,
                    band: it.band.map(|b| b.0),
                    range: None,
                })
            },
            |data, members| fit_series(data, members, &at, self.parts),
        );
        let xs: Vec<f64> = its.iter().filter_map(at).collect();
        let ys: Vec<f64> = its.iter().map(|i| i.y).collect();
        let mut notes: Vec<String> = band_note(its).into_iter().collect();
        if series.iter().any(|s| s.style == Style::Fit) {
            notes.push(
                "Dashed: the fitted model t(k) = k·α + V/β (k packets of the fixed volume V; β in MB/s, MB = 2^20 bytes)."
                    .into(),
            );
        }
        self.lines(
            self.id(&format!("vs-{}", slug(k))),
            format!("{}: time against {k}", self.s.title),
            Axis::new(k, auto_scale(&xs, 16.0), Ticks::Number),
            Axis::new(&self.ylab, auto_scale(&ys, 16.0), Ticks::Number),
            series,
            notes,
        )
    }

    /// 5. Time against process count, min–max bars over ranks (3 sizes).
    fn against_processes(&self) -> Figure {
        let chosen: Vec<f64> = if self.sized {
            let pos: Vec<f64> = self.sizes.iter().copied().filter(|b| *b > 0.0).collect();
            let mut c = vec![pos[0], pos[pos.len() / 2], pos[pos.len() - 1]];
            c.dedup();
            c
        } else {
            self.sizes.clone()
        };
        let mut g = Grouper::new();
        for it in self
            .its
            .iter()
            .filter(|i| chosen.contains(&(i.row.bytes as f64)))
        {
            let size = if self.sized {
                size_label(it.row.bytes)
            } else {
                String::new()
            };
            g.add(
                it.run,
                join(&[size, self.plabel(&it.params, &strs(&self.size_bound))]),
                it,
            );
        }
        let series = make_series(g, self.runs, self.runs.len(), |it| {
            let range = (it.row.t_min_us.is_finite()
                && it.row.t_max_us.is_finite()
                && it.row.t_max_us > it.row.t_min_us)
                .then_some((it.row.t_min_us, it.row.t_max_us));
            Some(Point {
                x: it.res.processes as f64,
                y: it.y,
                band: None,
                range,
            })
        });
        let ys: Vec<f64> = self.its.iter().map(|i| i.y).collect();
        let mut notes = vec!["Bars: t_min–t_max over ranks.".to_string()];
        if self.sized {
            notes.push("Three message sizes: the smallest, a middle and the largest.".into());
        }
        let mut x = Axis::new("processes", auto_scale(&self.procs, 16.0), Ticks::Number);
        if self.procs.len() <= 16 {
            x.fixed_ticks = self.procs.clone();
        }
        self.lines(
            self.id("vs-processes"),
            format!("{}: time against process count", self.s.title),
            x,
            Axis::new(&self.ylab, auto_scale(&ys, 16.0), Ticks::Number),
            series,
            notes,
        )
    }

    /// 4. Categories without a numeric axis (coarray sync kinds): bars with CIs.
    fn bars(&self) -> Figure {
        let by_params = self
            .its
            .iter()
            .any(|it| !self.plabel(&it.params, &[]).is_empty());
        let cat_of = |it: &Item<'_>| {
            if by_params {
                self.plabel(&it.params, &[])
            } else {
                format!("P={}", it.res.processes)
            }
        };
        let key_of = |it: &Item<'_>| {
            if by_params {
                self.p_key(it)
            } else {
                String::new()
            }
        };
        bar_figure(
            self.s,
            self.runs,
            &self.its,
            &cat_of,
            &key_of,
            &self.legend,
            &self.ylab,
        )
    }
}

/// 6. mpiGraph matrices: one heatmap per 2-D array of a result.
fn heatmaps(s: &Section<'_>, runs: &[Run]) -> Vec<Figure> {
    let mut figs = Vec::new();
    for &(run, res) in &s.results {
        let Some(Value::Object(m)) = &res.matrix else {
            continue;
        };
        for (k, v) in m {
            let Some(cells) = matrix_cells(v) else {
                continue;
            };
            let mut x = Axis::new("receiver rank", Scale::Linear, Ticks::Number);
            let mut y = Axis::new("sender rank", Scale::Linear, Ticks::Number);
            x.categories = (0..cells.first().map_or(0, |r| r.len()))
                .map(|i| i.to_string())
                .collect();
            y.categories = (0..cells.len()).map(|i| i.to_string()).collect();
            figs.push(Figure {
                id: format!(
                    "{}-{}-p{}-{}",
                    s.id,
                    slug(k),
                    res.processes,
                    runs[run].short
                )
                .to_lowercase(),
                title: format!(
                    "{}: {k} ({}, P={})",
                    s.title, runs[run].short, res.processes
                ),
                kind: Kind::Heatmap,
                x,
                y,
                series: Vec::new(),
                heat: Some(Heat {
                    cells,
                    unit: unit_of(k),
                }),
                runs: run_legend(runs, &BTreeSet::from([run]), runs.len()),
                notes: Vec::new(),
            });
        }
    }
    figs
}

/// The figures of one section (see the module doc of `report::html` for the list).
fn figures(s: &Section<'_>, runs: &[Run], parts: PartsOf) -> Vec<Figure> {
    let sh = Shape::of(s, runs, parts);
    let mut figs = Vec::new();
    if sh.sized {
        figs.push(sh.latency());
        figs.extend(sh.bandwidth());
    }
    for k in &sh.numeric_axes {
        figs.push(sh.against(k));
    }
    let bars = sh.categorical_varies && sh.numeric_axes.is_empty() && !sh.sized;
    if sh.procs.len() > 1 && !bars {
        figs.push(sh.against_processes());
    }
    if bars || (figs.is_empty() && !sh.its.is_empty()) {
        figs.push(sh.bars());
    }
    if let Some(n) = sh.constant_note() {
        for f in &mut figs {
            f.notes.push(n.clone());
        }
    }
    figs.extend(heatmaps(s, runs));
    figs
}

/// Grouped bars: one group per category, one bar per series (run, and
/// process count when the categories are parameters), error bars from the band.
fn bar_figure(
    s: &Section<'_>,
    runs: &[Run],
    its: &[Item<'_>],
    cat_of: &dyn Fn(&Item<'_>) -> String,
    key_of: &dyn Fn(&Item<'_>) -> String,
    legend: &[(String, String, usize)],
    ylab: &str,
) -> Figure {
    let mut cats: Vec<String> = Vec::new();
    let mut g = Grouper::new();
    for it in its {
        let c = cat_of(it);
        if !cats.contains(&c) {
            cats.push(c);
        }
        g.add(it.run, key_of(it), it);
    }
    let series = make_series(g, runs, runs.len(), |it| {
        Some(Point {
            x: cats.iter().position(|c| *c == cat_of(it)).unwrap_or(0) as f64,
            y: it.y,
            band: it.band.map(|b| b.0),
            range: None,
        })
    });
    let mut x = Axis::new("", Scale::Linear, Ticks::Category);
    x.categories = cats;
    Figure {
        id: format!("{}-bars", s.id),
        title: format!("{}: time by case", s.title),
        kind: Kind::Bars,
        x,
        y: Axis::new(ylab, Scale::Linear, Ticks::Number),
        series,
        heat: None,
        runs: legend.to_vec(),
        notes: band_note(its)
            .map(|n| vec![n.replace("Shaded band", "Error bars")])
            .unwrap_or_default(),
    }
}

fn unit_of(key: &str) -> String {
    if key.ends_with("_mbs") {
        "MB/s".into()
    } else if key.ends_with("_us") {
        "µs".into()
    } else {
        String::new()
    }
}

/// A 2-D array of numbers (or nulls), rectangular, at least 1×1.
fn matrix_cells(v: &Value) -> Option<Vec<Vec<Option<f64>>>> {
    let rows = v.as_array()?;
    let cells: Option<Vec<Vec<Option<f64>>>> = rows
        .iter()
        .map(|r| {
            r.as_array()?
                .iter()
                .map(|c| match c {
                    Value::Null => Some(None),
                    c => c.as_f64().map(Some),
                })
                .collect()
        })
        .collect();
    let cells = cells?;
    let w = cells.first()?.len();
    (w > 0 && cells.iter().all(|r| r.len() == w)).then_some(cells)
}

/// True when `to` is a function of `from` over the items: each value of
/// `from` goes with one value of `to`.
fn determines<'a>(
    its: &[Item<'a>],
    from: impl Fn(&Item<'a>) -> String,
    to: impl Fn(&Item<'a>) -> String,
) -> bool {
    let mut seen: BTreeMap<String, String> = BTreeMap::new();
    its.iter().all(|it| {
        let v = to(it);
        seen.entry(from(it)).or_insert_with(|| v.clone()) == &v
    })
}

/// True when parameter `k` is the message size in other units on every
/// row: k = c · bytes for one c (ALLREDUCE's n = bytes/8).
fn proportional_to_size(its: &[Item<'_>], k: &str) -> bool {
    let mut c: Option<f64> = None;
    its.iter().all(|it| {
        let Some(v) = it.params.get(k).and_then(|v| v.as_f64()) else {
            return false;
        };
        if it.row.bytes == 0 {
            return v == 0.0;
        }
        let r = v / it.row.bytes as f64;
        let c0 = *c.get_or_insert(r);
        (r - c0).abs() <= 1e-9 * c0.abs()
    })
}

/// The fitted line of a data series (its colour, next to it in the
/// legend): the model its suite fitted to the result (COMMTEST's fits), at
/// each of its rows, at x = `at` of the row; None without a model or with
/// fewer than two points.
fn fit_series(
    data: &Series,
    members: &[&Item<'_>],
    at: &dyn Fn(&Item<'_>) -> Option<f64>,
    parts: PartsOf,
) -> Option<Series> {
    let model = |it: &Item<'_>| {
        let m = parts(&it.res.suite).model?;
        m(it.res, it.row)
    };
    let label = members.iter().find_map(|it| model(it))?.label;
    let mut points: Vec<Point> = members
        .iter()
        .filter_map(|it| {
            Some(Point {
                x: at(it)?,
                y: model(it)?.t_us,
                band: None,
                range: None,
            })
        })
        .collect();
    if points.len() < 2 {
        return None;
    }
    points.sort_by(|a, b| a.x.total_cmp(&b.x));
    Some(Series {
        label,
        color: data.color,
        shade: data.shade,
        marker: data.marker,
        style: Style::Fit,
        points,
    })
}

// ----------------------------------------------------------------- warnings

/// Something the reader must know, in plain words, with what to do about it.
#[derive(Debug, Clone, PartialEq)]
pub enum Warning {
    Incomplete {
        run: String,
        status: String,
    },
    Aborted {
        run: String,
    },
    ValidationStatus {
        run: String,
    },
    Skipped {
        run: String,
        processes: usize,
        reason: String,
    },
    Note {
        run: String,
        processes: usize,
        note: String,
    },
    Validation {
        run: String,
        processes: usize,
        rows: usize,
        errors: u64,
    },
    Invalid {
        run: String,
        processes: usize,
        samples: u64,
    },
    StoppedOnBound {
        run: String,
        processes: usize,
        rows: usize,
    },
    BelowResolution {
        run: String,
        processes: usize,
        sizes: String,
    },
    NoValidSample {
        run: String,
        processes: usize,
        rows: usize,
    },
    RowNote {
        run: String,
        processes: usize,
        bytes: usize,
        note: String,
    },
    /// `--launches`: rows whose between-launch spread dominates.
    LaunchSpread {
        run: String,
        processes: usize,
        sizes: String,
    },
}

/// "1 process", "4 processes".
fn procs(n: usize) -> String {
    if n == 1 {
        "1 process".to_string()
    } else {
        format!("{n} processes")
    }
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Warning::Incomplete { run, status } => write!(
                f,
                "Run {run} did not finish (status \"{status}\"): it was killed, timed out or is still going. Only the benchmarks finished before that are shown."
            ),
            Warning::Aborted { run } => write!(
                f,
                "Run {run} was aborted (a rank failed or --timeout expired); see its stderr. The benchmarks finished before that are shown."
            ),
            Warning::ValidationStatus { run } => write!(
                f,
                "Run {run} found validation errors: some transfers delivered wrong data, so the affected timings do not measure a correct transfer."
            ),
            Warning::Skipped {
                run,
                processes,
                reason,
            } => {
                write!(f, "{run}, {}: not run: {reason}.", procs(*processes))
            }
            Warning::Note {
                run,
                processes,
                note,
            } => {
                write!(f, "{run}, {}: {note}", procs(*processes))
            }
            Warning::Validation {
                run,
                processes,
                rows,
                errors,
            } => write!(
                f,
                "{run}, {}: {errors} validation errors in {rows} rows: the received data was wrong. Do not trust these timings; rerun with --check --strict to find the rank.",
                procs(*processes)
            ),
            Warning::Invalid {
                run,
                processes,
                samples,
            } => write!(
                f,
                "{run}, {}: {samples} samples started late and were left out of the statistics. If there are many, widen the window (--window-us).",
                procs(*processes)
            ),
            Warning::StoppedOnBound {
                run,
                processes,
                rows,
            } => write!(
                f,
                "{run}, {}: {rows} rows stopped on a bound (--max-iter or --time) before reaching the --precision target; their CIs are wider than asked.",
                procs(*processes)
            ),
            Warning::BelowResolution {
                run,
                processes,
                sizes,
            } => write!(
                f,
                "{run}, {}: below the clock's resolution at {sizes}: these times are not meaningful; use loop timing or more repetitions.",
                procs(*processes)
            ),
            Warning::NoValidSample {
                run,
                processes,
                rows,
            } => write!(
                f,
                "{run}, {}: {rows} rows had no valid sample and are not plotted.",
                procs(*processes)
            ),
            Warning::RowNote {
                run,
                processes,
                bytes,
                note,
            } => {
                write!(f, "{run}, {}, {bytes} bytes: {note}", procs(*processes))
            }
            Warning::LaunchSpread {
                run,
                processes,
                sizes,
            } => write!(
                f,
                "{run}, {}: the launches differ by more than one launch's CI is wide at {sizes}: a CI from one launch overstates the precision; quote the between-launch CI, and compare runs with several launches each.",
                procs(*processes)
            ),
        }
    }
}

/// Warnings about whole runs (status, completeness).
pub fn run_warnings(runs: &[Run]) -> Vec<Warning> {
    let mut w = Vec::new();
    for r in runs {
        let run = format!("{} ({})", r.short, r.label);
        let status = r.report.status.clone().unwrap_or_default();
        match status.as_str() {
            "aborted" => w.push(Warning::Aborted { run }),
            "validation_errors" => w.push(Warning::ValidationStatus { run }),
            _ if !r.report.complete => w.push(Warning::Incomplete {
                run,
                status: if status.is_empty() {
                    "unknown".into()
                } else {
                    status
                },
            }),
            _ => {}
        }
    }
    w
}

fn section_warnings(s: &Section<'_>, runs: &[Run]) -> Vec<Warning> {
    let mut w = Vec::new();
    for &(i, r) in &s.results {
        let run = runs[i].short.clone();
        let processes = r.processes;
        if let Some(reason) = &r.skipped {
            w.push(Warning::Skipped {
                run: run.clone(),
                processes,
                reason: reason.trim_end_matches('.').to_string(),
            });
        }
        if let Some(note) = &r.note {
            w.push(Warning::Note {
                run: run.clone(),
                processes,
                note: note.clone(),
            });
        }
        let rows: Vec<&Row> = r.rows.iter().collect();
        let bad: Vec<&&Row> = rows.iter().filter(|x| x.errors.unwrap_or(0) > 0).collect();
        if !bad.is_empty() {
            w.push(Warning::Validation {
                run: run.clone(),
                processes,
                rows: bad.len(),
                errors: bad.iter().filter_map(|x| x.errors).sum(),
            });
        }
        let invalid: u64 = rows.iter().filter_map(|x| x.invalid).sum();
        if invalid > 0 {
            w.push(Warning::Invalid {
                run: run.clone(),
                processes,
                samples: invalid,
            });
        }
        let stopped = rows
            .iter()
            .filter(|x| x.stopped_on_bound == Some(true))
            .count();
        if stopped > 0 {
            w.push(Warning::StoppedOnBound {
                run: run.clone(),
                processes,
                rows: stopped,
            });
        }
        let below: Vec<String> = rows
            .iter()
            .filter(|x| x.below_resolution == Some(true))
            .map(|x| row_name(r, x))
            .collect();
        if !below.is_empty() {
            w.push(Warning::BelowResolution {
                run: run.clone(),
                processes,
                sizes: below.join("; "),
            });
        }
        let spread: Vec<String> = rows
            .iter()
            .filter(|x| x.launch_spread_dominates == Some(true))
            .map(|x| row_name(r, x))
            .collect();
        if !spread.is_empty() {
            w.push(Warning::LaunchSpread {
                run: run.clone(),
                processes,
                sizes: spread.join("; "),
            });
        }
        if !r.measures_instruments() {
            let lt = loop_timed(runs[i].report, r);
            let none = rows
                .iter()
                .filter(|x| x.rank.is_none() && headline(lt, x).is_none())
                .count();
            if none > 0 {
                w.push(Warning::NoValidSample {
                    run: run.clone(),
                    processes,
                    rows: none,
                });
            }
        }
        for x in &rows {
            if let Some(note) = &x.note {
                w.push(Warning::RowNote {
                    run: run.clone(),
                    processes,
                    bytes: x.bytes,
                    note: note.clone(),
                });
            }
        }
    }
    w
}

/// "1 KiB" or "1 KiB, n=10".
fn row_name(res: &BenchResult, r: &Row) -> String {
    let p = params_label(&chosen_params(res, r), &[]);
    if p.is_empty() {
        size_label(r.bytes)
    } else {
        format!("{}, {p}", size_label(r.bytes))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::plot::tests::{report, result, row, with};
    use serde_json::json;

    #[test]
    fn rows_whose_launches_differ_are_warned_about() {
        let mut wide = row(8, 1.0);
        wide.launch_spread_dominates = Some(true);
        let mut narrow = row(16, 1.0);
        narrow.launch_spread_dominates = Some(false);
        let r = report(
            "Open MPI",
            "per-call",
            vec![result("imb", "PingPong", 2, vec![wide, narrow])],
        );
        let runs = runs(vec![("r.json".to_string(), &r)]);
        let w: Vec<String> = sections(&runs, crate::plugin::lookup::report_parts)
            .iter()
            .flat_map(|s| s.warnings.iter().map(|w| w.to_string()))
            .collect();
        assert_eq!(
            w.iter()
                .filter(|w| w.contains("the launches differ"))
                .count(),
            1
        );
        assert!(
            w.iter().any(|w| w.contains("at 8 B") || w.contains("at 8")),
            "{w:?}"
        );
    }

    fn figure_ids(reports: &[Report]) -> Vec<String> {
        let runs = runs(reports.iter().map(|r| ("r.json".to_string(), r)).collect());
        sections(&runs, crate::plugin::lookup::report_parts)
            .iter()
            .flat_map(|s| s.figures.iter().map(|f| f.id.clone()))
            .collect()
    }

    fn the_figure(reports: &[Report], id: &str) -> Figure {
        let runs = runs(reports.iter().map(|r| ("r.json".to_string(), r)).collect());
        sections(&runs, crate::plugin::lookup::report_parts)
            .into_iter()
            .flat_map(|s| s.figures)
            .find(|f| f.id == id)
            .unwrap_or_else(|| panic!("no {id} in {:?}", figure_ids(reports)))
    }

    /// Which figures a section's shape draws: sizes and process counts give
    /// time against size and against processes; a throughput adds
    /// bandwidth; a categorical parameter alone gives bars.
    #[test]
    fn the_shape_chooses_the_figures() {
        let sized: Vec<BenchResult> = [2, 4]
            .into_iter()
            .map(|p| {
                let rows = (0..4)
                    .map(|e| {
                        let mut r = row(1 << e, p as f64 + e as f64);
                        r.mbytes_per_sec = Some(1.0);
                        r
                    })
                    .collect();
                result("imb", "Allreduce", p, rows)
            })
            .collect();
        let reports = [report("Open MPI v4.1.4", "loop", sized)];
        assert_eq!(
            figure_ids(&reports),
            [
                "imb-allreduce-primary-latency",
                "imb-allreduce-primary-bandwidth",
                "imb-allreduce-primary-vs-processes"
            ]
        );
        let f = the_figure(&reports, "imb-allreduce-primary-vs-processes");
        assert_eq!(f.x.fixed_ticks, [2.0, 4.0]);
        let kinds: Vec<Row> = ["fence", "lock", "pscw"]
            .iter()
            .map(|k| with(row(8, 1.0), json!({"sync": k})))
            .collect();
        let reports = [report(
            "Open MPI v4.1.4",
            "loop",
            vec![result("caf", "sync", 2, kinds)],
        )];
        assert_eq!(figure_ids(&reports), ["caf-sync-primary-bars"]);
        let f = the_figure(&reports, "caf-sync-primary-bars");
        assert_eq!(f.x.categories, ["sync=fence", "sync=lock", "sync=pscw"]);
    }

    /// ALLREDUCE rows carry n = bytes/8, one value per size: time against
    /// size, one series per algorithm; n is the size again, no figure.
    #[test]
    fn parameters_the_size_determines_split_no_series() {
        let rows: Vec<Row> = ["mpi", "recursive-doubling", "ring"]
            .iter()
            .enumerate()
            .flat_map(|(a, alg)| {
                (0..8).map(move |e| {
                    let n = 1usize << e;
                    with(
                        row(8 * n, 1.0 + a as f64 + n as f64 / 100.0),
                        json!({"n": n, "algorithm": alg}),
                    )
                })
            })
            .collect();
        let a = report(
            "Open MPI v4.1.4",
            "per-call",
            vec![result("allreduce", "allreduce", 4, rows)],
        );
        let reports = [a];
        assert_eq!(
            figure_ids(&reports),
            ["allreduce-allreduce-primary-latency"]
        );
        let f = the_figure(&reports, "allreduce-allreduce-primary-latency");
        let labels: Vec<&str> = f.series.iter().map(|s| s.label.as_str()).collect();
        assert_eq!(
            labels,
            [
                "algorithm=mpi",
                "algorithm=recursive-doubling",
                "algorithm=ring"
            ]
        );
        assert!(f.series.iter().all(|s| s.points.len() == 8));
    }

    /// Halo rows as the engine writes them: bytes = 8·ndata, n = nx = ny = nz
    /// and ndata follow from the size; time against size and against n.
    #[test]
    fn halo_rows_plot_against_size_and_n() {
        let mut rows = Vec::new();
        for sync in ["global", "p2p"] {
            for n in [10usize, 50, 100, 150] {
                let nd = 6 * n * n;
                let mut r = with(
                    row(nd * 8, n as f64 * if sync == "p2p" { 2.0 } else { 1.0 }),
                    json!({"mode": "put-put", "n": n, "nx": n, "ny": n, "nz": n, "ndata": nd,
                           "codims": "2x2x1", "sync": sync, "window": "create",
                           "rma_sync": "lockall"}),
                );
                r.mbytes_per_sec = Some(1.0);
                rows.push(r);
            }
        }
        let reports = [report(
            "Open MPI v4.1.4",
            "per-call",
            vec![result("caf", "halo put-put", 4, rows)],
        )];
        assert_eq!(
            figure_ids(&reports),
            [
                "caf-halo-put-put-primary-latency",
                "caf-halo-put-put-primary-bandwidth",
                "caf-halo-put-put-primary-vs-n"
            ]
        );
        for id in [
            "caf-halo-put-put-primary-latency",
            "caf-halo-put-put-primary-vs-n",
        ] {
            let f = the_figure(&reports, id);
            let labels: Vec<&str> = f.series.iter().map(|s| s.label.as_str()).collect();
            assert_eq!(labels, ["sync=global", "sync=p2p"], "{id}");
        }
    }

    /// LogGP declares its measured params: no figure against them, and two
    /// runs with other measured values match row for row.
    #[test]
    fn measured_params_are_declared_not_guessed() {
        let run = |f: f64| {
            let rows = (0..6)
                .map(|e| {
                    with(
                        row(1 << e, f * (1.0 + e as f64)),
                        json!({"n": 10, "prtt_1_0_us": f * (1.0 + e as f64),
                               "prtt_n_0_us": f * 3.0 * (1.0 + e as f64), "prtt_n_d_us": f * 9.0,
                               "d_us": f, "gap_us": f * 0.3, "o_s_us": f * 0.1, "o_r_us": f * 0.2}),
                    )
                })
                .collect();
            let mut r = result("commtest", "loggp", 2, rows);
            r.measured_params = crate::bench::commtest::loggp::MEASURED
                .iter()
                .map(|k| k.to_string())
                .collect();
            report("Open MPI v4.1.4", "per-call", vec![r])
        };
        let (a, b) = (run(1.0), run(1.1));
        assert_eq!(
            figure_ids(std::slice::from_ref(&a)),
            ["commtest-loggp-primary-latency"]
        );
        assert!(measured_param(&a.results[0], "o_s_us"));
        assert!(!measured_param(&a.results[0], "n"));
        // Files written before `measured_params`: CRESTA's names.
        assert!(measured_param(&a.results[0], "t_calc_achieved_us"));
        let c = crate::report::compare::compare(("a", &a), ("b", &b), Default::default());
        assert_eq!(c.rows.len(), 6);
        assert!(c.only_in_a.is_empty() && c.only_in_b.is_empty());
        assert_eq!(c.rows[0].key.params.len(), 1);
    }

    #[test]
    fn names() {
        assert_eq!(
            library_name("Open MPI v4.1.4, package: Debian OpenMPI, ident: 4.1.4"),
            "Open MPI v4.1.4"
        );
        assert_eq!(
            library_name("MPICH Version:\t4.0.2\nMPICH Release date:\tThu Mar 24"),
            "MPICH 4.0.2"
        );
        assert_eq!(
            library_name(
                "MPICH Version:\t4.0.2 MPICH Release date:\tThu Apr  7 2022 MPICH ABI:\t14:2:2"
            ),
            "MPICH 4.0.2"
        );
        assert_eq!(bytes_label(0.0), "0");
        assert_eq!(bytes_label(1024.0), "1 KiB");
        assert_eq!(bytes_label(4194304.0), "4 MiB");
        assert_eq!(bytes_label(1536.0), "1.5 KiB");
        assert_eq!(slug("imb-Multi Bcast/x"), "imb-multi-bcast-x");
        assert_eq!(num(0.3123), "0.312");
        assert_eq!(num(3193.54), "3194");
    }
}
