//! CRESTA's Figure 1 (D4.5.2 §5) as SVG (`--plot FILE.svg`): the time to
//! completion T against the number of participants on a log axis, the
//! average with min–max bars, one line per message size and per t_delay or
//! t_calc; one panel per collective and scenario. plotters' SVG backend
//! writes text as SVG `<text>` elements, so no font files are read.

use std::path::Path;

use anyhow::{anyhow, Result};
use plotters::prelude::*;
use serde_json::Value;

use crate::bench::cresta as c;
use crate::results::{Report, Row};

/// One line of a panel: (P, average, min, max) of T in µs, by P.
#[derive(Debug, Clone, PartialEq)]
pub struct Line {
    pub label: String,
    pub points: Vec<(f64, f64, f64, f64)>,
}

/// One collective in one scenario.
#[derive(Debug, Clone, PartialEq)]
pub struct Panel {
    pub title: String,
    pub lines: Vec<Line>,
}

fn scenario(row: &Row) -> u64 {
    row.params
        .get(c::SCENARIO)
        .and_then(Value::as_u64)
        .unwrap_or(1)
}

fn swept(row: &Row) -> Option<(&'static str, f64)> {
    let f = |k| row.params.get(k).and_then(Value::as_f64);
    match scenario(row) {
        2 => f(c::T_DELAY).map(|v| ("t_delay", v)),
        3 => f(c::T_CALC).map(|v| ("t_calc", v)),
        _ => None,
    }
}

/// The panels of a report's CRESTA results, in the order the collectives ran.
pub fn panels(report: &Report) -> Vec<Panel> {
    let results: Vec<_> = report
        .results
        .iter()
        .filter(|r| r.suite == c::SUITE && !r.aggregate && r.skipped.is_none())
        .collect();
    let mut out: Vec<(String, u64, Panel)> = Vec::new();
    for r in &results {
        for row in r.rows.iter().filter(|x| x.valid.unwrap_or(1) > 0) {
            let sc = scenario(row);
            let idx = match out
                .iter()
                .position(|(b, s, _)| *b == r.benchmark && *s == sc)
            {
                Some(i) => i,
                None => {
                    let what = match sc {
                        2 => "scenario 2 (delay)",
                        3 => "scenario 3 (calc)",
                        _ => "scenario 1",
                    };
                    out.push((
                        r.benchmark.clone(),
                        sc,
                        Panel {
                            title: format!("{}, {what}", c::title(&r.benchmark)),
                            lines: Vec::new(),
                        },
                    ));
                    out.len() - 1
                }
            };
            let mut label = format!("m = {} B", row.bytes);
            if let Some((name, v)) = swept(row) {
                label.push_str(&format!(", {name} = {v} us"));
            }
            let panel = &mut out[idx].2;
            let line = match panel.lines.iter().position(|l| l.label == label) {
                Some(i) => &mut panel.lines[i],
                None => {
                    panel.lines.push(Line {
                        label,
                        points: Vec::new(),
                    });
                    panel.lines.last_mut().expect("just pushed")
                }
            };
            line.points
                .push((r.processes as f64, row.t_avg_us, row.t_min_us, row.t_max_us));
        }
    }
    let mut panels: Vec<Panel> = out.into_iter().map(|(_, _, p)| p).collect();
    for p in &mut panels {
        for l in &mut p.lines {
            l.points.sort_by(|a, b| a.0.total_cmp(&b.0));
        }
    }
    panels
}

const PANEL: (u32, u32) = (560, 420);

/// The SVG of the panels, three per row.
pub fn render(panels: &[Panel]) -> Result<String> {
    if panels.is_empty() {
        return Err(anyhow!("--plot: no CRESTA rows with valid samples to draw"));
    }
    let cols = panels.len().min(3);
    let rows = panels.len().div_ceil(cols);
    let mut svg = String::new();
    {
        let size = (PANEL.0 * cols as u32, PANEL.1 * rows as u32);
        let root = SVGBackend::with_string(&mut svg, size).into_drawing_area();
        let err = |e: DrawingAreaErrorKind<_>| anyhow!("--plot: {e:?}");
        root.fill(&WHITE).map_err(err)?;
        for (area, panel) in root.split_evenly((rows, cols)).iter().zip(panels) {
            draw(area, panel).map_err(|e| anyhow!("--plot: {e}"))?;
        }
        root.present().map_err(err)?;
    }
    Ok(svg)
}

fn draw<DB: DrawingBackend>(
    area: &DrawingArea<DB, plotters::coord::Shift>,
    p: &Panel,
) -> Result<(), String>
where
    DB::ErrorType: 'static,
{
    let pts = p.lines.iter().flat_map(|l| &l.points);
    let (mut x0, mut x1, mut y0, mut y1) = (f64::MAX, 0.0f64, f64::MAX, 0.0f64);
    for &(x, _, lo, hi) in pts {
        x0 = x0.min(x);
        x1 = x1.max(x);
        y0 = y0.min(lo);
        y1 = y1.max(hi);
    }
    let y0 = y0.max(1e-3);
    let y1 = y1.max(y0 * 1.01);
    let mut chart = ChartBuilder::on(area)
        .caption(&p.title, ("sans-serif", 16))
        .margin(12)
        .x_label_area_size(36)
        .y_label_area_size(64)
        .build_cartesian_2d(
            (x0 / 1.3..x1 * 1.3).log_scale(),
            (y0 / 1.5..y1 * 1.5).log_scale(),
        )
        .map_err(|e| e.to_string())?;
    chart
        .configure_mesh()
        .x_desc("ranks (participants)")
        .y_desc("T (us)")
        .x_label_formatter(&|v| format!("{v:.0}"))
        .y_label_formatter(&|v| {
            let d = if *v >= 10.0 {
                0
            } else if *v >= 1.0 {
                1
            } else {
                3
            };
            format!("{v:.d$}")
        })
        .light_line_style(WHITE)
        .label_style(("sans-serif", 11))
        .draw()
        .map_err(|e| e.to_string())?;
    for (i, line) in p.lines.iter().enumerate() {
        let color = Palette99::pick(i).to_rgba();
        let style = color.stroke_width(2);
        chart
            .draw_series(LineSeries::new(
                line.points.iter().map(|&(x, avg, _, _)| (x, avg)),
                style,
            ))
            .map_err(|e| e.to_string())?
            .label(line.label.clone())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], style));
        chart
            .draw_series(
                line.points
                    .iter()
                    .map(|&(x, avg, _, _)| Circle::new((x, avg), 3, color.filled())),
            )
            .map_err(|e| e.to_string())?;
        // Min–max bars with caps.
        let bars = line.points.iter().flat_map(|&(x, _, lo, hi)| {
            let lo = lo.max(y0 / 1.5);
            [
                PathElement::new(vec![(x, lo), (x, hi)], color.stroke_width(1)),
                PathElement::new(vec![(x / 1.04, lo), (x * 1.04, lo)], color.stroke_width(1)),
                PathElement::new(vec![(x / 1.04, hi), (x * 1.04, hi)], color.stroke_width(1)),
            ]
        });
        chart.draw_series(bars).map_err(|e| e.to_string())?;
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .label_font(("sans-serif", 11))
        .draw()
        .map_err(|e| e.to_string())?;
    Ok(())
}

/// Draws the report's CRESTA results to `path` (rewritten atomically).
pub fn write(report: &Report, path: &Path) -> Result<()> {
    let svg = render(&panels(report))?;
    crate::report::write_atomic(path, svg.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::table::fixtures::{report, result, row};
    use serde_json::json;

    fn rows(sc: u64, t: f64) -> Vec<Row> {
        [8usize, 1024]
            .iter()
            .map(|&b| {
                let mut r = row(b, t + b as f64 / 100.0);
                r.params.insert(c::SCENARIO.into(), json!(sc));
                if sc == 2 {
                    r.params.insert(c::T_DELAY.into(), json!(100));
                }
                r
            })
            .collect()
    }

    #[test]
    fn one_panel_per_collective_and_scenario_one_line_per_size() {
        let mut rep = report(4);
        for q in [2, 4] {
            let mut v = rows(1, 10.0 * q as f64);
            v.extend(rows(2, 110.0 * q as f64));
            rep.results
                .push(result("Bcast", c::SUITE, "collective", q, v));
        }
        rep.results
            .push(result("Barrier", "imb", "collective", 4, rows(1, 5.0)));
        let p = panels(&rep);
        assert_eq!(p.len(), 2);
        assert_eq!(p[0].title, "Broadcast, scenario 1");
        assert_eq!(p[1].title, "Broadcast, scenario 2 (delay)");
        assert_eq!(p[1].lines[1].label, "m = 1024 B, t_delay = 100 us");
        assert_eq!(p[0].lines.len(), 2);
        assert_eq!(p[0].lines[0].points.len(), 2);
        assert_eq!(p[0].lines[0].points[1].0, 4.0);
        let svg = render(&p).unwrap();
        assert!(svg.starts_with("<svg"), "{}", &svg[..50]);
        assert!(svg.contains("Broadcast, scenario 2 (delay)"));
        assert!(svg.contains("m = 1024 B"));
        assert!(render(&[]).is_err());
    }

    #[test]
    fn a_single_process_count_still_draws() {
        let mut rep = report(1);
        rep.results
            .push(result("Ibarrier", c::SUITE, "collective", 1, rows(1, 3.0)));
        let svg = render(&panels(&rep)).unwrap();
        assert!(svg.contains("Ibarrier, scenario 1"));
    }
}
