//! Reporters: formatting only, never MPI. Machine-readable formats share one
//! small trait; `crate::output` writes what they render.

use anyhow::Result;

use crate::results::Report;

pub mod csv;
pub mod json;
pub mod raw;
pub mod table;

/// A machine-readable format of the whole report.
pub trait Exporter {
    fn render(&self, report: &Report) -> Result<Vec<u8>>;
}

// Writing the files (atomically where that is safe, in place where it is
// not) is `crate::output`'s job: a reporter only renders.
