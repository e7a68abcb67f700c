//! mpiGraph's matrices as heatmaps.

use std::collections::BTreeSet;

use serde_json::Value;

use super::figure::{Axis, Figure, Heat, Kind, Scale, Ticks};
use super::run::Run;
use super::series::run_legend;
use super::{slug, Section};

/// 6. mpiGraph matrices: one heatmap per 2-D array of a result.
pub(super) fn heatmaps(s: &Section<'_>, runs: &[Run]) -> Vec<Figure> {
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

pub(super) fn unit_of(key: &str) -> String {
    if key.ends_with("_mbs") {
        "MB/s".into()
    } else if key.ends_with("_us") {
        "µs".into()
    } else {
        String::new()
    }
}

/// A 2-D array of numbers (or nulls), rectangular, at least 1×1.
pub(super) fn matrix_cells(v: &Value) -> Option<Vec<Vec<Option<f64>>>> {
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
