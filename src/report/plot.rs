//! SVG plots of `view::Figure`s with plotters' SVG backend (no fonts needed:
//! text is written as `<text>` elements with a generic font family).
//!
//! Axes are drawn in transformed space (log2 for message sizes, log10 for
//! spans over a factor 16, linear otherwise) with tick labels mapped back,
//! so every figure kind shares one linear coordinate system.

use anyhow::{anyhow, Result};
use plotters::coord::ranged1d::{KeyPointHint, NoDefaultFormatting, ValueFormatter};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::view::{bytes_label, Axis, Figure, Kind, Point, Scale, Style, Ticks};

const WIDTH: u32 = 800;
const LEGEND_W: u32 = 240;
const MIN_HEIGHT: u32 = 400;
const FONT: &str = "sans-serif";

/// Tableau 10: distinguishable, and readable for most colour-blind readers.
pub const PALETTE: [(u8, u8, u8); 10] = [
    (0x4e, 0x79, 0xa7),
    (0xf2, 0x8e, 0x2b),
    (0xe1, 0x57, 0x59),
    (0x76, 0xb7, 0xb2),
    (0x59, 0xa1, 0x4f),
    (0xed, 0xc9, 0x48),
    (0xb0, 0x7a, 0xa1),
    (0xff, 0x9d, 0xa7),
    (0x9c, 0x75, 0x5f),
    (0xba, 0xb0, 0xac),
];

/// Palette colour `i`, darkened (odd shades) or lightened (even shades).
pub fn color(i: usize, shade: usize) -> RGBColor {
    let (r, g, b) = PALETTE[i % PALETTE.len()];
    if shade == 0 {
        return RGBColor(r, g, b);
    }
    let t = (0.3 + 0.2 * ((shade - 1) / 2) as f64).min(0.7);
    let f = |c: u8| {
        let c = c as f64;
        let v = if shade % 2 == 1 {
            c * (1.0 - t)
        } else {
            c + (255.0 - c) * t
        };
        v.round().clamp(0.0, 255.0) as u8
    };
    RGBColor(f(r), f(g), f(b))
}

/// "#rrggbb" of a palette colour (for HTML swatches and gnuplot).
pub fn hex(i: usize, shade: usize) -> String {
    let c = color(i, shade);
    format!("#{:02x}{:02x}{:02x}", c.0, c.1, c.2)
}

fn transform(scale: Scale, v: f64) -> Option<f64> {
    let t = match scale {
        Scale::Linear => v,
        Scale::Log2 if v > 0.0 => v.log2(),
        Scale::Log10 if v > 0.0 => v.log10(),
        _ => return None,
    };
    t.is_finite().then_some(t)
}

/// A tick number with at most 4 significant digits, without trailing zeros.
fn tick_number(v: f64) -> String {
    if v == 0.0 || !v.is_finite() {
        return "0".to_string();
    }
    let mag = v.abs().log10().floor() as i32;
    if !(-4..6).contains(&mag) {
        let s = format!("{v:.2e}");
        let (m, e) = s.split_once('e').unwrap_or((&s, "0"));
        let m = m.trim_end_matches('0').trim_end_matches('.');
        return format!("{m}e{e}");
    }
    let decimals = (3 - mag).clamp(0, 7) as usize;
    let s = format!("{v:.decimals$}");
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

fn short(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        let mut t: String = s.chars().take(n.saturating_sub(1)).collect();
        t.push('…');
        t
    }
}

/// The tick label at transformed position `v`.
fn tick(axis: &Axis, v: f64) -> String {
    if axis.ticks == Ticks::Category || !axis.categories.is_empty() {
        let i = v.round();
        if (v - i).abs() > 1e-6 || i < 0.0 || i as usize >= axis.categories.len() {
            return String::new();
        }
        return short(&axis.categories[i as usize], 18);
    }
    let x = match axis.scale {
        Scale::Linear => v,
        Scale::Log2 => v.exp2(),
        Scale::Log10 => 10f64.powf(v),
    };
    let x = if (x - x.round()).abs() < 1e-6 * x.abs().max(1.0) {
        x.round()
    } else {
        x
    };
    match axis.ticks {
        Ticks::Bytes => bytes_label(x),
        _ => tick_number(x),
    }
}

/// A linear axis in transformed space whose grid lines and labels are
/// exactly `ticks` (plotters' own choice gives 3.981, 6.31 ... on log axes).
#[derive(Clone)]
struct Ticked {
    lo: f64,
    hi: f64,
    ticks: Vec<f64>,
}

impl Ticked {
    fn new(lo: f64, hi: f64, ticks: Vec<f64>) -> Ticked {
        Ticked { lo, hi, ticks }
    }
}

impl Ranged for Ticked {
    type FormatOption = NoDefaultFormatting;
    type ValueType = f64;

    fn map(&self, v: &f64, limit: (i32, i32)) -> i32 {
        let f = (v - self.lo) / (self.hi - self.lo);
        (limit.0 as f64 + f * (limit.1 - limit.0) as f64).round() as i32
    }

    fn key_points<H: KeyPointHint>(&self, hint: H) -> Vec<f64> {
        // Bold points only: light grid lines are not drawn.
        if hint.weight().allow_light_points() {
            Vec::new()
        } else {
            self.ticks.clone()
        }
    }

    fn range(&self) -> std::ops::Range<f64> {
        self.lo..self.hi
    }
}

impl ValueFormatter<f64> for Ticked {
    fn format(v: &f64) -> String {
        tick_number(*v)
    }
}

/// A "nice" step (1, 2, 2.5 or 5 times a power of ten) for about `n` ticks.
fn nice_step(span: f64, n: f64) -> f64 {
    let raw = (span / n).max(1e-300);
    let mag = 10f64.powf(raw.log10().floor());
    let m = [1.0, 2.0, 2.5, 5.0, 10.0]
        .into_iter()
        .find(|m| m * mag >= raw)
        .unwrap_or(10.0);
    m * mag
}

fn linear_ticks(lo: f64, hi: f64) -> Vec<f64> {
    let step = nice_step(hi - lo, 7.0);
    let mut v = Vec::new();
    let mut k = (lo / step).ceil();
    while k * step <= hi + step * 1e-9 && v.len() < 40 {
        v.push(k * step);
        k += 1.0;
    }
    v
}

/// Tick positions in transformed space: powers of two in steps of 1, 2, 5
/// or 10 octaves; 1-2-5 (or 1-3, or whole decades) on log10 axes.
fn axis_ticks(axis: &Axis, lo: f64, hi: f64) -> Vec<f64> {
    if axis.ticks == Ticks::Category || !axis.categories.is_empty() {
        let n = axis.categories.len();
        let step = n.div_ceil(24).max(1);
        return (0..n).step_by(step).map(|i| i as f64).collect();
    }
    let within = |v: &f64| *v >= lo - 1e-9 && *v <= hi + 1e-9;
    if !axis.fixed_ticks.is_empty() {
        return axis
            .fixed_ticks
            .iter()
            .filter_map(|&v| transform(axis.scale, v))
            .collect();
    }
    let v: Vec<f64> = match axis.scale {
        Scale::Linear => return linear_ticks(lo, hi),
        Scale::Log2 => {
            let step = [1.0, 2.0, 5.0, 10.0, 20.0]
                .into_iter()
                .find(|s| (hi - lo) / s <= 11.0)
                .unwrap_or(50.0);
            let mut v = Vec::new();
            let mut k = (lo / step).ceil() * step;
            while k <= hi + 1e-9 {
                v.push(k);
                k += step;
            }
            v
        }
        Scale::Log10 => {
            let d = hi - lo;
            let mantissas: &[f64] = if d <= 1.3 {
                &[1.0, 2.0, 3.0, 5.0, 7.0]
            } else if d <= 2.6 {
                &[1.0, 2.0, 5.0]
            } else if d <= 5.0 {
                &[1.0, 3.0]
            } else {
                &[1.0]
            };
            let every = ((d / 10.0).ceil() as i64).max(1);
            let mut v = Vec::new();
            for e in (lo.floor() as i64)..=(hi.ceil() as i64) {
                if e.rem_euclid(every) != 0 {
                    continue;
                }
                for m in mantissas {
                    v.push(e as f64 + m.log10());
                }
            }
            v.retain(within);
            v
        }
    };
    if v.len() >= 2 {
        return v;
    }
    // A narrow range: linear ticks on the values themselves.
    let back = |t: f64| match axis.scale {
        Scale::Log2 => t.exp2(),
        _ => 10f64.powf(t),
    };
    linear_ticks(back(lo), back(hi))
        .into_iter()
        .filter_map(|x| transform(axis.scale, x))
        .filter(within)
        .collect()
}

/// A range around [lo, hi] with 4% margins (1 unit when empty).
fn padded(lo: f64, hi: f64) -> (f64, f64) {
    if !lo.is_finite() || !hi.is_finite() {
        return (0.0, 1.0);
    }
    if hi - lo < 1e-12 {
        let d = if lo.abs() > 1e-9 { lo.abs() * 0.1 } else { 1.0 };
        return (lo - d, hi + d);
    }
    let m = (hi - lo) * 0.04;
    (lo - m, hi + m)
}

/// Renders one figure to a complete SVG document.
pub fn svg(fig: &Figure) -> Result<String> {
    let notes = wrap_all(&fig.notes, 40);
    let label_lines: usize = fig.series.iter().map(|s| label_lines(&s.label).len()).sum();
    let legend_h = 36
        + 18 * (fig.series.len() + fig.runs.len()) as u32
        + 13 * (label_lines - fig.series.len().min(label_lines)) as u32
        + 14 * notes.len() as u32
        + 16;
    let heat_h = fig
        .heat
        .as_ref()
        .map_or(0, |h| (h.cells.len() as u32 * 22 + 120).min(820));
    let height = MIN_HEIGHT.max(legend_h).max(heat_h);
    let mut buf = String::new();
    {
        let root = SVGBackend::with_string(&mut buf, (WIDTH, height)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| anyhow!("{e}"))?;
        let (plot, legend) = root.split_horizontally(WIDTH - LEGEND_W);
        match fig.kind {
            Kind::Lines => lines(fig, &plot)?,
            Kind::Bars => bars(fig, &plot)?,
            Kind::Heatmap => heatmap(fig, &plot, &legend)?,
        }
        draw_legend(fig, &legend, &notes)?;
        root.present().map_err(|e| anyhow!("{e}"))?;
    }
    Ok(xml_chars(&compact(&buf)))
}

/// The SVG with the characters XML forbids (control characters other than
/// tab, newline and carriage return: they can only come from names in a
/// results file) replaced by spaces; plotters escapes the markup characters.
fn xml_chars(svg: &str) -> String {
    super::table::replace_controls(svg, &['\t', '\n', '\r'])
}

/// Shrinks plotters' SVG without changing the picture: drops default
/// attributes (opacity 1, no stroke on fills), states the font family once
/// on the root and rounds font sizes.
fn compact(svg: &str) -> String {
    let s = svg
        .replace(" opacity=\"1\"", "")
        .replace(" stroke=\"none\"", "")
        .replace(" font-family=\"sans-serif\"", "")
        .replacen("<svg ", "<svg font-family=\"sans-serif\" ", 1);
    let mut out = String::with_capacity(s.len());
    let mut rest = s.as_str();
    const KEY: &str = "font-size=\"";
    while let Some(i) = rest.find(KEY) {
        let (head, tail) = rest.split_at(i + KEY.len());
        out.push_str(head);
        // The closing double quote (written so that line-based readers
        // pair the string literals around it).
        let end = tail.find('\u{22}').unwrap_or(0);
        match tail[..end].parse::<f64>() {
            Ok(v) => out.push_str(&format!("{}", (v * 10.0).round() / 10.0)),
            Err(_) => out.push_str(&tail[..end]),
        }
        rest = &tail[end..];
    }
    out.push_str(rest);
    out
}

/// A legend label on at most two lines of 34 characters.
fn label_lines(label: &str) -> Vec<String> {
    let mut lines = wrap_all(&[label.to_string()], 34);
    if lines.len() > 2 {
        let rest = lines[1..].join(" ");
        lines.truncate(1);
        lines.push(short(&rest, 34));
    }
    lines.iter().map(|l| short(l, 34)).collect()
}

fn wrap_all(notes: &[String], width: usize) -> Vec<String> {
    let mut out = Vec::new();
    for n in notes {
        let mut line = String::new();
        for w in n.split_whitespace() {
            if !line.is_empty() && line.chars().count() + 1 + w.chars().count() > width {
                out.push(std::mem::take(&mut line));
            }
            if !line.is_empty() {
                line.push(' ');
            }
            line.push_str(w);
        }
        if !line.is_empty() {
            out.push(line);
        }
    }
    out
}

type Area<'a> = DrawingArea<SVGBackend<'a>, Shift>;

fn err<E: std::fmt::Display>(e: E) -> anyhow::Error {
    anyhow!("plot: {e}")
}

/// Draws marker `kind` at `at` (in the area's own coordinates) with colour `c`.
macro_rules! draw_marker {
    ($area:expr, $at:expr, $kind:expr, $c:expr) => {{
        let c: RGBColor = $c;
        let at = EmptyElement::at($at);
        let fill = ShapeStyle::from(&c).filled();
        let thin = ShapeStyle::from(&c).stroke_width(1);
        match $kind % 6 {
            0 => $area.draw(&(at + Circle::new((0, 0), 3, fill))),
            1 => $area.draw(&(at + TriangleMarker::new((0, 0), 4, fill))),
            2 => $area.draw(&(at + Rectangle::new([(-3, -3), (3, 3)], fill))),
            3 => $area.draw(&(at + Cross::new((0, 0), 3, ShapeStyle::from(&c).stroke_width(2)))),
            4 => $area.draw(&(at + Circle::new((0, 0), 3, thin))),
            _ => $area.draw(&(at + Rectangle::new([(-3, -3), (3, 3)], thin))),
        }
        .map_err(err)
    }};
}

/// Splits a polyline (in normalised coordinates) into dashes.
fn dashes(pts: &[(f64, f64)], sx: f64, sy: f64) -> Vec<Vec<(f64, f64)>> {
    const DASH: f64 = 0.012;
    let mut out = Vec::new();
    let mut on = true;
    let mut left = DASH;
    let mut cur: Vec<(f64, f64)> = pts.first().copied().into_iter().collect();
    for w in pts.windows(2) {
        let ((x0, y0), (x1, y1)) = (w[0], w[1]);
        let len = (((x1 - x0) / sx).powi(2) + ((y1 - y0) / sy).powi(2)).sqrt();
        let mut t = 0.0;
        while len > 0.0 && (len - t) > left {
            t += left;
            let p = (x0 + (x1 - x0) * t / len, y0 + (y1 - y0) * t / len);
            if on {
                cur.push(p);
                out.push(std::mem::take(&mut cur));
            } else {
                cur = vec![p];
            }
            on = !on;
            left = DASH;
        }
        left -= len - t;
        if on {
            cur.push((x1, y1));
        }
    }
    if on && cur.len() > 1 {
        out.push(cur);
    }
    out
}

fn lines(fig: &Figure, area: &Area<'_>) -> Result<()> {
    let (sx, sy) = (fig.x.scale, fig.y.scale);
    let tp = |p: &Point| Some((transform(sx, p.x)?, transform(sy, p.y)?));
    let mut xs = Vec::new();
    let mut ys = Vec::new();
    for s in &fig.series {
        for p in &s.points {
            if let Some((x, y)) = tp(p) {
                xs.push(x);
                ys.push(y);
                for (a, b) in p.band.iter().chain(p.range.iter()) {
                    ys.extend(transform(sy, *a));
                    ys.extend(transform(sy, *b));
                }
            }
        }
    }
    let min = |v: &[f64]| v.iter().copied().fold(f64::INFINITY, f64::min);
    let max = |v: &[f64]| v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let (x0, x1) = padded(min(&xs), max(&xs));
    let (mut y0, y1) = padded(min(&ys), max(&ys));
    if sy == Scale::Linear && min(&ys) >= 0.0 {
        y0 = 0.0;
    }
    let mut chart = ChartBuilder::on(area)
        .caption(short(&fig.title, 70), (FONT, 15))
        .margin(8)
        .x_label_area_size(40)
        .y_label_area_size(62)
        .build_cartesian_2d(
            Ticked::new(x0, x1, axis_ticks(&fig.x, x0, x1)),
            Ticked::new(y0, y1, axis_ticks(&fig.y, y0, y1)),
        )
        .map_err(err)?;
    let xf = |v: &f64| tick(&fig.x, *v);
    let yf = |v: &f64| tick(&fig.y, *v);
    chart
        .configure_mesh()
        .light_line_style(TRANSPARENT)
        .bold_line_style(RGBColor(228, 228, 228))
        .x_labels(40)
        .y_labels(40)
        .x_label_formatter(&xf)
        .y_label_formatter(&yf)
        .x_desc(fig.x.label.as_str())
        .y_desc(fig.y.label.as_str())
        .label_style((FONT, 11))
        .axis_desc_style((FONT, 12))
        .draw()
        .map_err(err)?;
    let plotting = chart.plotting_area();
    // Bands first, so that lines and markers stay on top.
    for s in &fig.series {
        let c = color(s.color, s.shade);
        let band: Vec<(f64, f64, f64)> = s
            .points
            .iter()
            .filter_map(|p| {
                let (x, _) = tp(p)?;
                let (lo, hi) = p.band?;
                Some((x, transform(sy, lo)?, transform(sy, hi)?))
            })
            .collect();
        if band.len() >= 2 {
            let mut poly: Vec<(f64, f64)> = band.iter().map(|b| (b.0, b.2)).collect();
            poly.extend(band.iter().rev().map(|b| (b.0, b.1)));
            plotting
                .draw(&Polygon::new(poly, c.mix(0.18).filled()))
                .map_err(err)?;
        } else if let Some(&(x, lo, hi)) = band.first() {
            plotting
                .draw(&PathElement::new(
                    vec![(x, lo), (x, hi)],
                    c.mix(0.5).stroke_width(4),
                ))
                .map_err(err)?;
        }
    }
    let cap = (x1 - x0) * 0.008;
    for s in &fig.series {
        let c = color(s.color, s.shade);
        let pts: Vec<(f64, f64)> = s.points.iter().filter_map(tp).collect();
        for p in &s.points {
            if let (Some((x, _)), Some((lo, hi))) = (tp(p), p.range) {
                if let (Some(lo), Some(hi)) = (transform(sy, lo), transform(sy, hi)) {
                    for seg in [
                        vec![(x, lo), (x, hi)],
                        vec![(x - cap, lo), (x + cap, lo)],
                        vec![(x - cap, hi), (x + cap, hi)],
                    ] {
                        plotting
                            .draw(&PathElement::new(seg, c.stroke_width(1)))
                            .map_err(err)?;
                    }
                }
            }
        }
        match s.style {
            Style::Data => {
                if pts.len() >= 2 {
                    plotting
                        .draw(&PathElement::new(pts.clone(), c.stroke_width(2)))
                        .map_err(err)?;
                }
                for &(x, y) in &pts {
                    draw_marker!(plotting, (x, y), s.marker, c)?;
                }
            }
            Style::Fit => {
                for d in dashes(&pts, x1 - x0, y1 - y0) {
                    plotting
                        .draw(&PathElement::new(d, c.stroke_width(1)))
                        .map_err(err)?;
                }
            }
        }
    }
    Ok(())
}

fn bars(fig: &Figure, area: &Area<'_>) -> Result<()> {
    let n = fig.x.categories.len().max(1);
    let mut top: f64 = 0.0;
    for s in &fig.series {
        for p in &s.points {
            top = top.max(p.y);
            if let Some((_, hi)) = p.band {
                top = top.max(hi);
            }
        }
    }
    if top <= 0.0 || !top.is_finite() {
        top = 1.0;
    }
    let longest = fig
        .x
        .categories
        .iter()
        .map(|c| c.chars().count().min(18))
        .max()
        .unwrap_or(1);
    let rotate = n * longest > 70;
    let mut chart = ChartBuilder::on(area)
        .caption(short(&fig.title, 70), (FONT, 15))
        .margin(8)
        .x_label_area_size(if rotate { 20 + longest as u32 * 7 } else { 40 })
        .y_label_area_size(62)
        .build_cartesian_2d(
            Ticked::new(
                -0.5,
                n as f64 - 0.5,
                axis_ticks(&fig.x, 0.0, n as f64 - 1.0),
            ),
            Ticked::new(0.0, top * 1.08, linear_ticks(0.0, top * 1.08)),
        )
        .map_err(err)?;
    let xf = |v: &f64| tick(&fig.x, *v);
    let yf = |v: &f64| tick(&fig.y, *v);
    let label_style = if rotate {
        TextStyle::from((FONT, 11).into_font()).transform(FontTransform::Rotate90)
    } else {
        TextStyle::from((FONT, 11).into_font())
    };
    chart
        .configure_mesh()
        .disable_x_mesh()
        .light_line_style(TRANSPARENT)
        .bold_line_style(RGBColor(228, 228, 228))
        .x_labels(40)
        .y_labels(40)
        .label_style((FONT, 11))
        .x_label_formatter(&xf)
        .y_label_formatter(&yf)
        .x_label_style(label_style)
        .y_desc(fig.y.label.as_str())
        .x_desc(fig.x.label.as_str())
        .axis_desc_style((FONT, 12))
        .draw()
        .map_err(err)?;
    let k = fig.series.len().max(1) as f64;
    let w = 0.8 / k;
    for (i, s) in fig.series.iter().enumerate() {
        let c = color(s.color, s.shade);
        for p in &s.points {
            let cx = p.x - 0.4 + w * (i as f64 + 0.5);
            chart
                .draw_series(std::iter::once(Rectangle::new(
                    [(cx - w * 0.45, 0.0), (cx + w * 0.45, p.y)],
                    c.mix(0.85).filled(),
                )))
                .map_err(err)?;
            if let Some((lo, hi)) = p.band {
                let cap = w * 0.2;
                for seg in [
                    vec![(cx, lo), (cx, hi)],
                    vec![(cx - cap, lo), (cx + cap, lo)],
                    vec![(cx - cap, hi), (cx + cap, hi)],
                ] {
                    chart
                        .draw_series(std::iter::once(PathElement::new(
                            seg,
                            BLACK.stroke_width(1),
                        )))
                        .map_err(err)?;
                }
            }
        }
    }
    Ok(())
}

/// Viridis, interpolated between five stops; t in [0, 1].
fn viridis(t: f64) -> RGBColor {
    const STOPS: [(f64, f64, f64); 5] = [
        (68.0, 1.0, 84.0),
        (59.0, 82.0, 139.0),
        (33.0, 145.0, 140.0),
        (94.0, 201.0, 98.0),
        (253.0, 231.0, 37.0),
    ];
    let t = if t.is_finite() {
        t.clamp(0.0, 1.0)
    } else {
        0.0
    } * 4.0;
    let i = (t.floor() as usize).min(3);
    let f = t - i as f64;
    let (a, b) = (STOPS[i], STOPS[i + 1]);
    let m = |x: f64, y: f64| (x + (y - x) * f).round() as u8;
    RGBColor(m(a.0, b.0), m(a.1, b.1), m(a.2, b.2))
}

fn heat_range(fig: &Figure) -> (f64, f64) {
    let vals: Vec<f64> = fig
        .heat
        .iter()
        .flat_map(|h| h.cells.iter().flatten().flatten().copied())
        .filter(|v| v.is_finite())
        .collect();
    let lo = vals.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = vals.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if lo.is_finite() {
        (lo, hi)
    } else {
        (0.0, 1.0)
    }
}

fn heatmap(fig: &Figure, area: &Area<'_>, legend: &Area<'_>) -> Result<()> {
    let Some(h) = &fig.heat else {
        return Ok(());
    };
    let rows = h.cells.len();
    let cols = h.cells.first().map_or(0, |r| r.len());
    let (lo, hi) = heat_range(fig);
    let mut x = fig.x.clone();
    x.categories = (0..cols).map(|i| i.to_string()).collect();
    let mut y = fig.y.clone();
    y.categories = (0..rows).rev().map(|i| i.to_string()).collect();
    let mut chart = ChartBuilder::on(area)
        .caption(short(&fig.title, 70), (FONT, 15))
        .margin(8)
        .x_label_area_size(40)
        .y_label_area_size(62)
        .build_cartesian_2d(
            Ticked::new(-0.5, cols as f64 - 0.5, axis_ticks(&x, 0.0, cols as f64)),
            Ticked::new(-0.5, rows as f64 - 0.5, axis_ticks(&y, 0.0, rows as f64)),
        )
        .map_err(err)?;
    let xf = |v: &f64| tick(&x, *v);
    let yf = |v: &f64| tick(&y, *v);
    chart
        .configure_mesh()
        .disable_mesh()
        .x_labels(40)
        .y_labels(40)
        .x_label_formatter(&xf)
        .y_label_formatter(&yf)
        .x_desc(fig.x.label.as_str())
        .y_desc(fig.y.label.as_str())
        .label_style((FONT, 11))
        .axis_desc_style((FONT, 12))
        .draw()
        .map_err(err)?;
    let span = if hi > lo { hi - lo } else { 1.0 };
    for (r, row) in h.cells.iter().enumerate() {
        let yc = (rows - 1 - r) as f64;
        for (c, v) in row.iter().enumerate() {
            let xc = c as f64;
            let fill = match v {
                Some(v) if v.is_finite() => viridis((v - lo) / span),
                _ => RGBColor(235, 235, 235),
            };
            chart
                .draw_series(std::iter::once(Rectangle::new(
                    [(xc - 0.5, yc - 0.5), (xc + 0.5, yc + 0.5)],
                    fill.filled(),
                )))
                .map_err(err)?;
            if let (Some(v), true) = (v, rows <= 16 && cols <= 16) {
                let t = (v - lo) / span;
                let ink = if t > 0.6 { BLACK } else { WHITE };
                chart
                    .draw_series(std::iter::once(Text::new(
                        tick_number(*v),
                        (xc, yc),
                        TextStyle::from((FONT, 10).into_font())
                            .color(&ink)
                            .pos(Pos::new(HPos::Center, VPos::Center)),
                    )))
                    .map_err(err)?;
            }
        }
    }
    // Colour bar in the legend column, below the run names.
    let top = 40 + 18 * fig.runs.len() as i32;
    for i in 0..20 {
        let t = 1.0 - i as f64 / 19.0;
        legend
            .draw(&Rectangle::new(
                [(14, top + i * 8), (34, top + i * 8 + 8)],
                viridis(t).filled(),
            ))
            .map_err(err)?;
    }
    let unit = if h.unit.is_empty() {
        String::new()
    } else {
        format!(" {}", h.unit)
    };
    for (y, v) in [(top + 4, hi), (top + 156, lo)] {
        legend
            .draw(&Text::new(
                format!("{}{unit}", tick_number(v)),
                (40, y),
                (FONT, 11).into_font(),
            ))
            .map_err(err)?;
    }
    Ok(())
}

fn draw_legend(fig: &Figure, legend: &Area<'_>, notes: &[String]) -> Result<()> {
    let mut y = 34;
    let text = |s: &str, x: i32, y: i32, size: i32, c: RGBColor| {
        legend
            .draw(&Text::new(
                s.to_string(),
                (x, y),
                TextStyle::from((FONT, size).into_font())
                    .color(&c)
                    .pos(Pos::new(HPos::Left, VPos::Center)),
            ))
            .map_err(err)
    };
    for (short_name, label, c) in &fig.runs {
        let ink = if *c == usize::MAX {
            RGBColor(40, 40, 40)
        } else {
            color(*c, 0)
        };
        if *c != usize::MAX {
            legend
                .draw(&Rectangle::new([(4, y - 5), (14, y + 5)], ink.filled()))
                .map_err(err)?;
        }
        text(
            &short(&format!("{short_name}: {label}"), 36),
            18,
            y,
            12,
            ink,
        )?;
        y += 18;
    }
    if fig.kind == Kind::Heatmap {
        return Ok(());
    }
    for s in &fig.series {
        let c = color(s.color, s.shade);
        match (fig.kind, s.style) {
            (Kind::Bars, _) => legend
                .draw(&Rectangle::new(
                    [(6, y - 5), (24, y + 5)],
                    c.mix(0.85).filled(),
                ))
                .map_err(err)?,
            (_, Style::Data) => {
                legend
                    .draw(&PathElement::new(vec![(4, y), (26, y)], c.stroke_width(2)))
                    .map_err(err)?;
                draw_marker!(legend, (15, y), s.marker, c)?;
            }
            (_, Style::Fit) => {
                for x in [4, 12, 20] {
                    legend
                        .draw(&PathElement::new(
                            vec![(x, y), (x + 5, y)],
                            c.stroke_width(1),
                        ))
                        .map_err(err)?;
                }
            }
        }
        for (i, line) in label_lines(&s.label).iter().enumerate() {
            if i > 0 {
                y += 13;
            }
            text(line, 32, y, 11, RGBColor(30, 30, 30))?;
        }
        y += 18;
    }
    y += 6;
    for n in notes {
        text(n, 4, y, 10, RGBColor(90, 90, 90))?;
        y += 14;
    }
    Ok(())
}

#[cfg(test)]
pub mod tests {
    //! One SVG snapshot per plot kind (insta), from synthetic reports.
    use super::*;
    use crate::report::view::{self, Run};
    use crate::results::{BenchResult, MpiInfo, Report, Row, Settings, SCHEMA};
    use serde_json::json;

    pub fn settings(timing: &str) -> Settings {
        Settings {
            sync: "barrier".into(),
            timing: timing.into(),
            check: false,
            iter: None,
            time_limit_s: 10.0,
            root_shift: false,
            root: 0,
            min_iter: 1,
            max_iter: 1000,
            precision: None,
            window_us: None,
            mem_limit_bytes: 1 << 30,
            timeout_s: None,
            large_messages: "derived-datatype".into(),
            warmup: None,
            off_cache: None,
            msg_pause: false,
            imb_map: None,
        }
    }

    pub fn report(library: &str, timing: &str, results: Vec<BenchResult>) -> Report {
        Report {
            schema: SCHEMA.into(),
            mpibench_version: "0.1.0".into(),
            command: vec!["mpibench".into(), "run".into()],
            started: "2026-01-01T00:00:00Z".into(),
            complete: true,
            mpi: MpiInfo {
                library: library.into(),
                version: [3, 1],
            },
            world_size: 4,
            hosts: vec!["node01".into()],
            ranks_per_host: vec![4],
            settings: settings(timing),
            results,
            slurm: None,
            status: Some("ok".into()),
            interrupted_by: None,
            reason: None,
            signal: None,
            launches: Vec::new(),
            context: None,
        }
    }

    pub fn result(suite: &str, bench: &str, p: usize, rows: Vec<Row>) -> BenchResult {
        BenchResult {
            benchmark: bench.into(),
            suite: suite.into(),
            class: "collective".into(),
            processes: p,
            mode: "primary".into(),
            groups: 1,
            active: p,
            rows,
            ..Default::default()
        }
    }

    /// A per-call row with a median, CI and percentiles around `t`.
    pub fn row(bytes: usize, t: f64) -> Row {
        Row {
            bytes,
            repetitions: 100,
            t_min_us: t * 0.9,
            t_max_us: t * 1.2,
            t_avg_us: t * 1.02,
            t_median_us: Some(t),
            t_p5_us: Some(t * 0.92),
            t_p95_us: Some(t * 1.15),
            ci95_lo_us: Some(t * 0.97),
            ci95_hi_us: Some(t * 1.04),
            valid: Some(100),
            invalid: Some(0),
            outliers: Some(0),
            ..Default::default()
        }
    }

    pub fn with(mut r: Row, params: serde_json::Value) -> Row {
        if let serde_json::Value::Object(m) = params {
            r.params = m.into_iter().collect();
        }
        r
    }

    fn figure(reports: Vec<Report>, id_suffix: &str) -> Figure {
        let runs: Vec<Run> = view::runs(
            reports
                .iter()
                .enumerate()
                .map(|(i, r)| (format!("run{i}.json"), r))
                .collect(),
        );
        let secs = view::sections(&runs, crate::plugin::lookup::report_parts);
        secs.iter()
            .flat_map(|s| s.figures.iter())
            .find(|f| f.id.ends_with(id_suffix))
            .cloned()
            .unwrap_or_else(|| {
                panic!(
                    "no figure {id_suffix}: {:?}",
                    secs.iter()
                        .flat_map(|s| s.figures.iter().map(|f| f.id.clone()))
                        .collect::<Vec<_>>()
                )
            })
    }

    fn sizes() -> Vec<usize> {
        (0..=12).map(|k| 1usize << k).collect()
    }

    fn latency_rows(scale: f64) -> Vec<Row> {
        sizes()
            .into_iter()
            .map(|b| {
                let mut r = row(b, scale * (1.0 + b as f64 / 2000.0));
                r.mbytes_per_sec = Some(b as f64 / 1.048576 / r.t_median_us.unwrap());
                r
            })
            .collect()
    }

    #[test]
    fn snapshot_latency_two_runs() {
        let a = report(
            "Open MPI v4.1.4, package: x",
            "per-call",
            vec![result("imb", "PingPong", 2, latency_rows(1.0))],
        );
        let b = report(
            "MPICH Version:\t4.0.2",
            "per-call",
            vec![result("imb", "PingPong", 2, latency_rows(1.3))],
        );
        let f = figure(vec![a, b], "-latency");
        assert_eq!(f.series.len(), 2);
        insta::assert_snapshot!("latency", svg(&f).unwrap());
    }

    #[test]
    fn snapshot_bandwidth() {
        let a = report(
            "Open MPI v4.1.4",
            "loop",
            vec![result("imb", "Sendrecv", 2, latency_rows(1.0))],
        );
        insta::assert_snapshot!("bandwidth", svg(&figure(vec![a], "-bandwidth")).unwrap());
    }

    #[test]
    fn snapshot_processes_with_min_max_bars() {
        // CRESTA-like: T against ranks, min–max bars.
        let res = [2, 4, 8, 16]
            .iter()
            .map(|&p| {
                result(
                    "cresta",
                    "delay",
                    p,
                    vec![with(
                        row(0, 10.0 + p as f64),
                        json!({"scenario": 2, "t_delay_us": 64, "delayed_rank": 0}),
                    )],
                )
            })
            .collect();
        let a = report("Open MPI v4.1.4", "per-call", res);
        insta::assert_snapshot!("processes", svg(&figure(vec![a], "-vs-processes")).unwrap());
    }

    /// COMMTEST SWAP rows as the engine writes them: a fixed volume V in
    /// 1, 2, 4, ... packets, times k·alpha + V/beta (µs; MB = 2^20 bytes).
    pub fn commtest_rows(protocol: &str, alpha: f64, beta: f64) -> Vec<Row> {
        let v = 2usize << 20;
        [1usize, 2, 4, 8, 16, 32, 64]
            .iter()
            .map(|&k| {
                let t = k as f64 * alpha + v as f64 / 1.048576 / beta;
                with(
                    row(v, t),
                    json!({"protocol": protocol, "protocol_name": "x", "pattern": "SWAP",
                           "packets": k, "packet_bytes": v / k, "prepost": false,
                           "distance": 1, "pairs": "all"}),
                )
            })
            .collect()
    }

    #[test]
    fn snapshot_packets_with_fit() {
        // COMMTEST: time against packets with the line fitted by the
        // benchmark itself (`figures.fits`, t(k) = k·α + V/β).
        let mut rows = commtest_rows("(0,3)", 5.0, 3000.0);
        rows.extend(commtest_rows("(1,0)", 9.0, 2000.0));
        let mut r = result("commtest", "SWAP", 2, rows);
        crate::bench::commtest::fit::derive(&mut r);
        assert_eq!(r.figures.fits.len(), 2);
        let a = report("Open MPI v4.1.4", "per-call", vec![r]);
        let f = figure(vec![a], "-vs-packets");
        let styles: Vec<Style> = f.series.iter().map(|s| s.style).collect();
        assert_eq!(styles, [Style::Data, Style::Fit, Style::Data, Style::Fit]);
        // packet_bytes = V/packets follows from the packets: no series of its own.
        assert!(
            !f.series[0].label.contains("packet_bytes"),
            "{}",
            f.series[0].label
        );
        // The times follow the model exactly, so the line goes through the points.
        for pair in f.series.chunks(2) {
            assert_eq!(pair[0].points.len(), 7);
            for (d, m) in pair[0].points.iter().zip(&pair[1].points) {
                assert_eq!(d.x, m.x);
                assert!((d.y - m.y).abs() < 1e-9 * d.y, "{} vs {}", d.y, m.y);
            }
        }
        assert!(
            f.series[1].label.contains("fit: α=5.000 µs, β=3000 MB/s"),
            "{}",
            f.series[1].label
        );
        insta::assert_snapshot!("packets_fit", svg(&f).unwrap());
    }

    #[test]
    fn snapshot_bars_with_ci() {
        // coarray sync overheads.
        let rows = ["ring", "all", "pairwise", "random"]
            .iter()
            .enumerate()
            .map(|(i, s)| with(row(0, 2.0 + i as f64), json!({"sync": s})))
            .collect();
        let a = report(
            "Open MPI v4.1.4",
            "per-call",
            vec![result("caf", "sync", 4, rows)],
        );
        let f = figure(vec![a], "-bars");
        assert_eq!(f.x.categories.len(), 4);
        insta::assert_snapshot!("bars", svg(&f).unwrap());
    }

    #[test]
    fn snapshot_heatmap() {
        let mut r = result("mpigraph", "mpigraph", 4, vec![]);
        r.matrix = Some(json!({
            "ranks": 4, "hosts": ["a", "a", "b", "b"],
            "send_mbs": [[null, 900, 450, 430], [910, null, 440, 420], [455, 445, null, 905], [430, 425, 915, null]]
        }));
        let a = report("Open MPI v4.1.4", "per-call", vec![r]);
        let f = figure(vec![a], "-a");
        assert_eq!(f.kind, Kind::Heatmap);
        insta::assert_snapshot!("heatmap", svg(&f).unwrap());
    }

    #[test]
    fn halo_time_against_n() {
        let rows = [10, 20, 50, 100]
            .iter()
            .map(|&n| with(row(0, n as f64 * 0.5), json!({ "n": n })))
            .collect();
        let a = report(
            "Open MPI v4.1.4",
            "per-call",
            vec![result("caf", "halo", 4, rows)],
        );
        let f = figure(vec![a], "-vs-n");
        assert_eq!(f.series[0].points.len(), 4);
        assert!(svg(&f).unwrap().starts_with("<svg"));
    }

    #[test]
    fn ticks_and_dashes() {
        assert_eq!(tick_number(1000.0), "1000");
        assert_eq!(tick_number(0.25), "0.25");
        assert_eq!(tick_number(2.5e7), "2.5e7");
        let ax = view::Axis {
            label: String::new(),
            scale: Scale::Log2,
            ticks: Ticks::Bytes,
            categories: vec![],
            fixed_ticks: vec![],
        };
        assert_eq!(tick(&ax, 10.0), "1 KiB");
        let d = dashes(&[(0.0, 0.0), (1.0, 0.0)], 1.0, 1.0);
        assert!(d.len() > 30 && d.len() < 50, "{}", d.len());
        assert_eq!(hex(0, 0), "#4e79a7");
    }
}
