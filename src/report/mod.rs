//! Reporters: formatting only, never MPI. Machine-readable formats share one
//! small trait; `crate::output` writes what they render.

use anyhow::Result;

use crate::results::Report;

pub mod cmd;
pub mod compare;
pub mod cresta_plot;
pub mod csv;
pub mod gnuplot;
pub mod html;
pub mod json;
pub mod plot;
pub mod raw;
pub mod stats_test;
pub mod table;
pub mod validate;
pub mod view;

/// A machine-readable format of the whole report.
pub trait Exporter {
    fn render(&self, report: &Report) -> Result<Vec<u8>>;
}

// Writing the files (atomically where that is safe, in place where it is
// not) is `crate::output`'s job: a reporter only renders.

/// Writes a whole file that no user input can turn into damage (see
/// `crate::output`): a regular file atomically, stdout and special files in place.
pub fn write_atomic(path: &std::path::Path, bytes: &[u8]) -> Result<()> {
    crate::output::write_file(path, bytes, true)
}
