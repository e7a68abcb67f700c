//! Reporters: formatting only, never MPI. Machine-readable formats share one
//! small trait and are rewritten atomically after each benchmark.

use std::io::Write;
use std::path::Path;

use anyhow::{Context, Result};

use crate::results::Report;

pub mod cresta_plot;
pub mod csv;
pub mod json;
pub mod raw;
pub mod table;

/// A machine-readable format of the whole report.
pub trait Exporter {
    fn render(&self, report: &Report) -> Result<Vec<u8>>;
}

/// Writes `bytes` to `path` through a temporary file and a rename, so that a
/// reader (or a crash) never sees a truncated file. "-" means stdout.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    if path.as_os_str() == "-" {
        let mut out = std::io::stdout().lock();
        out.write_all(bytes)?;
        return out.flush().context("cannot write to stdout");
    }
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = dir.join(format!(".{name}.tmp.{}", std::process::id()));
    let mut f = std::fs::File::create(&tmp)
        .with_context(|| format!("cannot create '{}'", tmp.display()))?;
    f.write_all(bytes)
        .and_then(|_| f.sync_all())
        .with_context(|| format!("cannot write '{}'", tmp.display()))?;
    std::fs::rename(&tmp, path)
        .with_context(|| format!("cannot rename '{}' to '{}'", tmp.display(), path.display()))
}

/// Renders with `exporter` and writes atomically.
pub fn export(exporter: &dyn Exporter, report: &Report, path: &Path) -> Result<()> {
    let bytes = exporter.render(report)?;
    write_atomic(path, &bytes)
}
