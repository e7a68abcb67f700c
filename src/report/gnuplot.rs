//! `mpibench plot --gnuplot`: per figure a `.dat` file (one block per
//! series, in the original units) and a `.gp` script that draws it as SVG.

use std::fmt::Write;

use super::plot::hex;
use super::table::printable as one_line;
use super::view::{Figure, Kind, Scale, Style};

/// A gnuplot string literal: single-quoted, where gnuplot performs neither
/// backslash escapes nor backquote (shell command) substitution nor macros;
/// a quote is doubled and control characters (line breaks above all, which
/// would end the command) become spaces.
fn quote(s: &str) -> String {
    format!("'{}'", one_line(s).replace('\'', "''"))
}

/// The text of a `#` comment (scripts and data files): on one line, without
/// backquotes, and not ending in a backslash (which would continue the
/// comment onto the next line).
fn comment(s: &str) -> String {
    one_line(s)
        .replace('`', "'")
        .trim_end_matches(['\\', ' '])
        .to_string()
}

fn opt(v: Option<f64>) -> String {
    v.map_or("NaN".to_string(), |v| format!("{v}"))
}

/// The data file: for lines and bars `x y band_lo band_hi min max` per point,
/// blocks separated by two blank lines (gnuplot's `index`); for heatmaps
/// the matrix (NaN where there is no value).
pub fn dat(fig: &Figure) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "# {}", comment(&fig.title));
    if let Some(h) = &fig.heat {
        let _ = writeln!(
            s,
            "# rows: {}, columns: {}",
            comment(&fig.y.label),
            comment(&fig.x.label)
        );
        for row in &h.cells {
            let line: Vec<String> = row.iter().map(|v| opt(*v)).collect();
            let _ = writeln!(s, "{}", line.join(" "));
        }
        return s;
    }
    let _ = writeln!(s, "# columns: x y band_lo band_hi min max");
    for (i, ser) in fig.series.iter().enumerate() {
        if i > 0 {
            s.push_str("\n\n");
        }
        let _ = writeln!(s, "# series {i}: {}", comment(&ser.label));
        for p in &ser.points {
            let _ = writeln!(
                s,
                "{} {} {} {} {} {}",
                p.x,
                p.y,
                opt(p.band.map(|b| b.0)),
                opt(p.band.map(|b| b.1)),
                opt(p.range.map(|b| b.0)),
                opt(p.range.map(|b| b.1)),
            );
        }
    }
    s
}

/// The script: `gnuplot ID.gp` writes `ID.svg` next to it.
pub fn script(fig: &Figure) -> String {
    let id = &fig.id;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "# {}: run `gnuplot {id}.gp` to draw {id}.svg",
        comment(&fig.title)
    );
    let _ = writeln!(
        s,
        "set terminal svg size 900,480 dynamic background rgb 'white'"
    );
    let _ = writeln!(s, "set output '{id}.svg'");
    let _ = writeln!(s, "set title {} noenhanced", quote(&fig.title));
    let _ = writeln!(s, "set xlabel {} noenhanced", quote(&fig.x.label));
    let _ = writeln!(s, "set ylabel {} noenhanced", quote(&fig.y.label));
    let _ = writeln!(s, "set key outside right top noenhanced");
    let _ = writeln!(s, "set grid");
    for (axis, scale) in [("x", fig.x.scale), ("y", fig.y.scale)] {
        match scale {
            Scale::Log2 => {
                let _ = writeln!(s, "set logscale {axis} 2");
            }
            Scale::Log10 => {
                let _ = writeln!(s, "set logscale {axis} 10");
            }
            Scale::Linear => {}
        }
    }
    let dat = format!("'{id}.dat'");
    let mut plots: Vec<String> = Vec::new();
    match fig.kind {
        Kind::Heatmap => {
            let _ = writeln!(s, "set yrange [] reverse");
            plots.push(format!("{dat} matrix with image notitle"));
        }
        Kind::Bars => {
            let tics: Vec<String> = fig
                .x
                .categories
                .iter()
                .enumerate()
                .map(|(i, c)| format!("{} {i}", quote(c)))
                .collect();
            let _ = writeln!(s, "set xtics ({}) rotate by -30", tics.join(", "));
            let _ = writeln!(s, "set style fill solid 0.8");
            let _ = writeln!(s, "set yrange [0:*]");
            let k = fig.series.len().max(1) as f64;
            let w = 0.8 / k;
            let _ = writeln!(s, "set boxwidth {w}");
            for (i, ser) in fig.series.iter().enumerate() {
                let off = -0.4 + w * (i as f64 + 0.5);
                let c = hex(ser.color, ser.shade);
                plots.push(format!(
                    "{dat} index {i} using ($1+{off}):2 with boxes lc rgb '{c}' title {}",
                    quote(&ser.label)
                ));
                plots.push(format!(
                    "{dat} index {i} using ($1+{off}):2:3:4 with yerrorbars lc rgb 'black' pt -1 notitle"
                ));
            }
        }
        Kind::Lines => {
            for (i, ser) in fig.series.iter().enumerate() {
                let c = hex(ser.color, ser.shade);
                if ser.style == Style::Fit {
                    plots.push(format!(
                        "{dat} index {i} using 1:2 with lines dt 2 lc rgb '{c}' title {}",
                        quote(&ser.label)
                    ));
                    continue;
                }
                if ser.points.iter().any(|p| p.band.is_some()) {
                    plots.push(format!(
                        "{dat} index {i} using 1:3:4 with filledcurves lc rgb '{c}' fs transparent solid 0.18 notitle"
                    ));
                }
                if ser.points.iter().any(|p| p.range.is_some()) {
                    plots.push(format!(
                        "{dat} index {i} using 1:2:5:6 with yerrorbars lc rgb '{c}' pt -1 notitle"
                    ));
                }
                plots.push(format!(
                    "{dat} index {i} using 1:2 with linespoints lw 2 pt {} lc rgb '{c}' title {}",
                    [7, 9, 5, 2, 6, 4][ser.marker % 6],
                    quote(&ser.label)
                ));
            }
        }
    }
    let _ = writeln!(s, "plot {}", plots.join(", \\\n     "));
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::view::figure::Series;
    use crate::report::view::{Axis, Point, Ticks};

    #[test]
    fn lines_with_band_and_log_axes() {
        let f = Figure {
            id: "imb-pingpong-primary-latency".into(),
            title: "PingPong: time \"against\" size".into(),
            kind: Kind::Lines,
            x: Axis {
                label: "bytes".into(),
                scale: Scale::Log2,
                ticks: Ticks::Bytes,
                categories: vec![],
                fixed_ticks: vec![],
            },
            y: Axis {
                label: "t".into(),
                scale: Scale::Log10,
                ticks: Ticks::Number,
                categories: vec![],
                fixed_ticks: vec![],
            },
            series: vec![Series {
                label: "P=2".into(),
                color: 0,
                shade: 0,
                marker: 0,
                style: Style::Data,
                points: vec![
                    Point {
                        x: 1.0,
                        y: 2.0,
                        band: Some((1.5, 2.5)),
                        range: None,
                    },
                    Point {
                        x: 2.0,
                        y: 3.0,
                        band: None,
                        range: None,
                    },
                ],
            }],
            heat: None,
            runs: vec![],
            notes: vec![],
        };
        let d = dat(&f);
        assert!(
            d.contains("1 2 1.5 2.5 NaN NaN\n2 3 NaN NaN NaN NaN"),
            "{d}"
        );
        let g = script(&f);
        assert!(g.contains("set logscale x 2") && g.contains("set logscale y 10"));
        assert!(
            g.contains("filledcurves") && g.contains("'PingPong: time \"against\" size'"),
            "{g}"
        );
        assert!(g.contains("set output 'imb-pingpong-primary-latency.svg'"));
    }

    #[test]
    fn names_cannot_become_commands() {
        let evil = "x\nsystem \"touch pwned\"\n`touch pwned2` it's \\";
        assert_eq!(
            quote(evil),
            "'x system \"touch pwned\" `touch pwned2` it''s \\'"
        );
        assert_eq!(
            comment(evil),
            "x system \"touch pwned\" 'touch pwned2' it's"
        );
        let f = Figure {
            id: "x".into(),
            title: evil.into(),
            kind: Kind::Bars,
            x: Axis {
                label: evil.into(),
                scale: Scale::Linear,
                ticks: Ticks::Number,
                categories: vec![evil.into()],
                fixed_ticks: vec![],
            },
            y: Axis {
                label: evil.into(),
                scale: Scale::Linear,
                ticks: Ticks::Number,
                categories: vec![],
                fixed_ticks: vec![],
            },
            series: vec![Series {
                label: evil.into(),
                color: 0,
                shade: 0,
                marker: 0,
                style: Style::Data,
                points: vec![],
            }],
            heat: None,
            runs: vec![],
            notes: vec![],
        };
        for text in [script(&f), dat(&f)] {
            for line in text.lines() {
                assert!(!line.trim_start().starts_with("system"), "{text}");
                assert!(!(line.starts_with('#') && line.ends_with('\\')), "{text}");
            }
        }
    }
}
