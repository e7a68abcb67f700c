//! `history report -o trend.html`: the trend of every case as the report
//! draws figures (`report::plot`, `report::html`): each run's figure with
//! its 95% CI as whiskers, the fitted levels as a dashed step line, and a
//! red vertical line at each change point; the check's verdicts and the
//! runs above them. This module builds the figures; the report layer
//! formats them.

use std::fmt::Write;

use anyhow::Result;

use super::changepoint::{Fit, Rules};
use super::check::{change_line, Check};
use super::series::{Entry, Series};
use super::show::{env_text, machine_names};
use super::store::RunRecord;
use crate::report::html::{esc, figure, page};
use crate::report::view::figure::Series as Line;
use crate::report::view::{slug, Axis, Figure, Kind, Point, Scale, Style, Ticks};

/// The palette's red (Tableau 10's third): change points.
pub const CHANGE_COLOR: usize = 2;

fn axis(label: &str, scale: Scale, ticks: Ticks, categories: Vec<String>) -> Axis {
    Axis {
        label: label.into(),
        scale,
        ticks,
        categories,
        fixed_ticks: Vec::new(),
    }
}

/// The lowest and highest value a series' figure shows (CIs included).
fn span(points: &[Point]) -> (f64, f64) {
    let mut lo = f64::INFINITY;
    let mut hi = f64::NEG_INFINITY;
    for p in points {
        for v in [Some(p.y), p.range.map(|r| r.0), p.range.map(|r| r.1)]
            .into_iter()
            .flatten()
        {
            lo = lo.min(v);
            hi = hi.max(v);
        }
    }
    (lo, hi)
}

/// A plain point (no band, no bar).
fn at(x: f64, y: f64) -> Point {
    Point {
        x,
        y,
        band: None,
        range: None,
    }
}

/// What a fit adds to a trend: the levels as a step line, a red vertical
/// line per change point spanning `lo..hi`, and its notes.
fn fit_lines(f: &Fit, used: &[&Entry], (lo, hi): (f64, f64)) -> (Vec<Line>, Vec<String>) {
    let mut lines = Vec::new();
    let mut notes = Vec::new();
    let mut step = Vec::new();
    for l in &f.levels {
        let y = l.value();
        step.push(at(l.start as f64 - 0.5, y));
        step.push(at(l.end as f64 - 0.5, y));
    }
    lines.push(Line {
        label: "fitted levels".into(),
        color: 1,
        shade: 0,
        marker: 1,
        style: Style::Fit,
        points: step,
    });
    for st in &f.steps {
        let x = st.at as f64 - 0.5;
        lines.push(Line {
            label: format!(
                "change at run {}: {:+.1}%",
                used[st.at].run.id,
                (st.ratio - 1.0) * 100.0
            ),
            color: CHANGE_COLOR,
            shade: 0,
            marker: 2,
            style: Style::Fit,
            points: vec![
                Point {
                    x,
                    y: lo,
                    band: None,
                    range: None,
                },
                Point {
                    x,
                    y: hi,
                    band: None,
                    range: None,
                },
            ],
        });
    }
    notes.push(format!("run-to-run noise ±{:.1}%", f.noise * 100.0));
    if f.unstable {
        notes.push("unstable: the noise is above --max-noise".into());
    }
    if !f.outliers.is_empty() {
        let ids: Vec<String> = f
            .outliers
            .iter()
            .map(|&i| used[i].run.id.to_string())
            .collect();
        notes.push(format!("outliers, not fitted: runs {}", ids.join(", ")));
    }
    (lines, notes)
}

/// The trend figure of one series (its fit, when it had enough runs).
pub fn trend(s: &Series, fit: Option<&Fit>, id: usize) -> Figure {
    let used = s.used();
    let points: Vec<Point> = used
        .iter()
        .enumerate()
        .map(|(i, e)| Point {
            x: i as f64,
            y: e.value_us.unwrap_or(f64::NAN),
            band: None,
            range: e.ci_us,
        })
        .collect();
    let (lo, hi) = span(&points);
    let statistic = used.first().map_or("median", |e| e.statistic.as_str());
    let mut lines = vec![Line {
        label: format!("{statistic} of each run (whiskers: its 95% CI)"),
        color: 0,
        shade: 0,
        marker: 0,
        style: Style::Data,
        points,
    }];
    let mut notes = vec!["x: the runs in time order, by run id".to_string()];
    if let Some(f) = fit {
        let (more, said) = fit_lines(f, &used, (lo, hi));
        lines.extend(more);
        notes.extend(said);
    } else {
        notes.push("too few comparable runs to judge".into());
    }
    let unused: Vec<String> = s
        .entries
        .iter()
        .filter(|e| !e.used())
        .map(|e| format!("{} ({})", e.run.id, e.run.status))
        .collect();
    if !unused.is_empty() {
        notes.push(format!("not drawn: runs {}", unused.join(", ")));
    }
    let scale = if lo > 0.0 && hi / lo > 8.0 {
        Scale::Log10
    } else {
        Scale::Linear
    };
    Figure {
        id: format!("trend-{id}-{}", slug(&s.case.label())),
        title: s.case.label(),
        kind: Kind::Lines,
        x: axis(
            "run",
            Scale::Linear,
            Ticks::Category,
            used.iter().map(|e| e.run.id.to_string()).collect(),
        ),
        y: axis(
            &format!("{statistic} (us)"),
            scale,
            Ticks::Number,
            Vec::new(),
        ),
        series: lines,
        heat: None,
        runs: Vec::new(),
        notes,
    }
}

fn runs_table(out: &mut String, runs: &[RunRecord]) {
    let names = machine_names(runs);
    let _ = writeln!(out, "<details><summary>{} runs</summary><table class=\"runs\"><tr><th>run</th><th>started</th><th>status</th><th>machine</th><th>library</th><th>ranks</th><th>MPI variables</th></tr>", runs.len());
    for r in runs {
        let env = env_text(r);
        let _ = writeln!(
            out,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            r.id,
            esc(&r.started),
            esc(&r.status),
            esc(names.get(&r.machine).map_or("?", String::as_str)),
            esc(&r.library),
            r.world_size,
            esc(&env)
        );
    }
    let _ = writeln!(out, "</table></details>");
    for (m, n) in names {
        let _ = writeln!(out, "<p class=\"sub\">machine {}: {}</p>", esc(&n), esc(&m));
    }
}

/// The page: the check's verdicts, the runs, then one figure per series.
pub fn render(
    name: &str,
    runs: &[RunRecord],
    series: &[Series],
    fits: &[Option<Fit>],
    check: &Check,
    rules: &Rules,
) -> Result<String> {
    let mut body = String::new();
    let _ = writeln!(
        body,
        "<h1>mpibench history</h1><p class=\"sub\">{} · {} runs · {} cases · steps of at least {}% and {} standard errors</p>",
        esc(name),
        runs.len(),
        series.len(),
        rules.min_step * 100.0,
        rules.z
    );
    if check.changes.is_empty() {
        let _ = writeln!(body, "<p>No step beyond the noise.</p>");
    } else {
        let _ = writeln!(body, "<ul class=\"warn\">");
        for c in &check.changes {
            let _ = writeln!(body, "<li>{}</li>", esc(&change_line(check, c)));
        }
        let _ = writeln!(body, "</ul>");
    }
    runs_table(&mut body, runs);
    let _ = writeln!(body, "<div class=\"figs\">");
    for (i, (s, f)) in series.iter().zip(fits).enumerate() {
        let _ = writeln!(body, "{}", figure(&trend(s, f.as_ref(), i))?);
    }
    let _ = writeln!(body, "</div>");
    Ok(page(
        "mpibench history",
        &body,
        &format!(
            "Written by mpibench {} (<code>mpibench history report</code>). Self-contained: no scripts, no fonts or images fetched.",
            env!("CARGO_PKG_VERSION")
        ),
    ))
}
