//! The figure model: axes, series of points, heatmaps, what a figure is.
//! The plots and the gnuplot files draw it.

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
    pub(super) fn new(label: &str, scale: Scale, ticks: Ticks) -> Axis {
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
