//! `--raw FILE`: every sample as CSV, for the user's own analysis.

use std::path::{Path, PathBuf};

use anyhow::{anyhow, Context, Result};

/// Streams samples into the `--raw` file (see `output::open_stream` for
/// which files are created, which written in place). A write error is kept,
/// not returned: only rank 0 writes, and a failure on rank 0 alone must
/// reach every rank through the agreement after the benchmark
/// (`take_error`), not leave them waiting in the next collective.
pub struct RawSink {
    w: csv::Writer<Box<dyn std::io::Write>>,
    path: PathBuf,
    error: Option<anyhow::Error>,
}

impl RawSink {
    /// `clock` names the time base of the start/end columns ("global" or "local").
    pub fn create(path: &Path) -> Result<RawSink> {
        let out = crate::output::open_stream(path)?;
        let mut w = csv::Writer::from_writer(out);
        w.write_record([
            "rank",
            "benchmark",
            "processes",
            "bytes",
            "repetition",
            "start_s",
            "end_s",
        ])
        .and_then(|_| Ok(w.flush()?))
        .with_context(|| format!("cannot write '{}'", path.display()))?;
        Ok(RawSink {
            w,
            path: path.to_path_buf(),
            error: None,
        })
    }

    /// The first write error, once.
    pub fn take_error(&mut self) -> Option<anyhow::Error> {
        self.error.take()
    }

    /// Writes what every rank recorded: per rank, quadruples
    /// (point index, repetition or -1 for a loop sample, start, end).
    pub fn write(
        &mut self,
        bench: &str,
        q: usize,
        sizes: &[usize],
        per_rank: &[Vec<[f64; 4]>],
    ) -> Result<()> {
        if self.error.is_none() {
            if let Err(e) = self.write_samples(bench, q, sizes, per_rank) {
                self.error = Some(e);
            }
        }
        Ok(())
    }

    fn write_samples(
        &mut self,
        bench: &str,
        q: usize,
        sizes: &[usize],
        per_rank: &[Vec<[f64; 4]>],
    ) -> Result<()> {
        let path = self.path.clone();
        let cannot = |e: &dyn std::fmt::Display| anyhow!("cannot write '{}': {e}", path.display());
        for (rank, v) in per_rank.iter().enumerate() {
            for s in v {
                let rep = if s[1] < 0.0 {
                    "loop".to_string()
                } else {
                    (s[1] as usize).to_string()
                };
                self.w
                    .write_record([
                        rank.to_string(),
                        super::csv::text(bench),
                        q.to_string(),
                        sizes[s[0] as usize].to_string(),
                        rep,
                        format!("{:.9}", s[2]),
                        format!("{:.9}", s[3]),
                    ])
                    .map_err(|e| cannot(&e))?;
            }
        }
        self.w.flush().map_err(|e| cannot(&e))
    }
}
