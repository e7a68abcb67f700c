//! What the plots, the gnuplot files and the HTML report show, derived from
//! `Report` values only (never MPI): runs, one section per benchmark, the
//! figures of each section and plain-word warnings. No formatting here.
//!
//! One job a file: [`run`] loads and labels the runs, [`rows`] reads the
//! number a row is plotted by, [`labels`] writes values as words,
//! [`figure`] is the figure model, `series`, `shape`, `figures` and
//! `heatmap` draw a section's figures, [`warnings`] says what the reader
//! must know, [`parts`] is what a suite adds; this file groups the results
//! into sections.

use std::collections::{BTreeMap, BTreeSet};

use crate::results::{BenchResult, Report};

pub mod figure;
mod figures;
mod heatmap;
pub mod labels;
pub mod parts;
pub mod rows;
pub mod run;
mod series;
mod shape;
pub mod warnings;

pub use figure::{Axis, Figure, Kind, Point, Scale, Style, Ticks};
pub use labels::{bytes_label, num, param_value, params_label, size_label};
pub use parts::{PartsOf, ReportParts};
pub use rows::{chosen_params, headline, loop_timed};
pub use run::{library_name, load, runs, Run};
pub use warnings::{run_warnings, Warning};

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
            s.figures = figures::figures(&s, runs, parts);
            s.warnings = warnings::result_warnings(&s.results, runs);
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slugs() {
        assert_eq!(slug("imb-Multi Bcast/x"), "imb-multi-bcast-x");
    }
}
