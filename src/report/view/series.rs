//! The pieces a figure is made of: a section's plotted rows ([`Item`]),
//! grouped into series in order of first appearance, with their legends,
//! notes and axis scales.

use std::collections::{BTreeMap, BTreeSet};

use super::figure::{Figure, Point, Scale, Series, Style};
use super::parts::PartsOf;
use super::rows::{band, chosen_params, headline, loop_timed};
use super::run::Run;
use super::Section;
use crate::results::{BenchResult, Params, Row};

/// One row with what a figure needs.
pub(super) struct Item<'a> {
    pub(super) run: usize,
    pub(super) res: &'a BenchResult,
    pub(super) row: &'a Row,
    /// The row's chosen parameters (measured ones left out).
    pub(super) params: Params,
    pub(super) y: f64,
    pub(super) band: Option<((f64, f64), &'static str)>,
}

pub(super) fn items<'a>(s: &Section<'a>, runs: &[Run]) -> Vec<Item<'a>> {
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
pub(super) struct Grouper<'a, 'b> {
    pub(super) keys: Vec<(usize, String)>,
    pub(super) members: Vec<Vec<&'b Item<'a>>>,
}

impl<'a, 'b> Grouper<'a, 'b> {
    pub(super) fn new() -> Self {
        Grouper {
            keys: Vec::new(),
            members: Vec::new(),
        }
    }
    pub(super) fn add(&mut self, run: usize, key: String, it: &'b Item<'a>) {
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
pub(super) fn make_series(
    g: Grouper<'_, '_>,
    runs: &[Run],
    n_runs: usize,
    point: impl Fn(&Item<'_>) -> Option<Point>,
) -> Vec<Series> {
    make_series_with(g, runs, n_runs, point, |_, _| None)
}

/// As `make_series`, each data series followed by the series `extra` makes
/// of it and its rows (a fitted line), if any.
pub(super) fn make_series_with(
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

pub(super) fn distinct_f64(v: impl Iterator<Item = f64>) -> Vec<f64> {
    let mut d: Vec<f64> = v.filter(|x| x.is_finite()).collect();
    d.sort_by(f64::total_cmp);
    d.dedup();
    d
}

/// Log10 when the values span more than a factor `f` and are positive.
pub(super) fn auto_scale(vals: &[f64], f: f64) -> Scale {
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
pub(super) fn cap(fig: &mut Figure) {
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

pub(super) fn run_legend(
    runs: &[Run],
    used: &BTreeSet<usize>,
    n_runs: usize,
) -> Vec<(String, String, usize)> {
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

pub(super) fn band_note(its: &[Item<'_>]) -> Option<String> {
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

pub(super) fn y_label(its: &[Item<'_>], runs: &[Run]) -> String {
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

/// The fitted line of a data series (its colour, next to it in the
/// legend): the model its suite fitted to the result (COMMTEST's fits), at
/// each of its rows, at x = `at` of the row; None without a model or with
/// fewer than two points.
pub(super) fn fit_series(
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
