//! Reporters: formatting only, never MPI. Machine-readable formats share one
//! small trait; `crate::output` decides what is written when, and `crate::files`
//! writes the files.

use anyhow::Result;

use crate::results::Report;

pub mod compare;
pub mod csv;
pub mod gnuplot;
pub mod html;
pub mod json;
pub mod launches;
pub mod plot;
pub mod raw;
pub mod table;
pub mod validate;
pub mod view;

/// A table a suite derives from one of its results for the HTML report
/// (COMMTEST's fits and LogGP parameters): plain-text cells, which the
/// report escapes. Tables with the same caption are merged across results.
#[derive(Debug, Clone, PartialEq)]
pub struct PartTable {
    pub caption: &'static str,
    pub head: &'static [&'static str],
    /// Its first `left` columns hold words (left-aligned).
    pub left: usize,
    pub rows: Vec<Vec<String>>,
}

/// A model a suite fitted to a result's rows (COMMTEST's t(k) = k·α + V/β),
/// at one row: the modelled time and the model's legend.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelPoint {
    pub t_us: f64,
    pub label: String,
}

/// A machine-readable format of the whole report.
pub trait Exporter {
    fn render(&self, report: &Report) -> Result<Vec<u8>>;
}

// Writing the files (atomically where that is safe, in place where it is
// not) is `crate::files`'s job: a reporter only renders.

/// Writes a whole file that no user input can turn into damage (see
/// `crate::files`): a regular file atomically, stdout and special files in place.
pub fn write_atomic(path: &std::path::Path, bytes: &[u8]) -> Result<()> {
    crate::files::write_file(path, bytes, true)
}
