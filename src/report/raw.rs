//! `--raw FILE`: every sample as CSV, for the user's own analysis.

use std::path::{Path, PathBuf};

use anyhow::{anyhow, Context, Result};

use crate::contract::RawSink;

/// Streams samples into the `--raw` file as CSV (see `files::open_stream`
/// for which files are created, which written in place). A write error is
/// kept (`contract::RawSink`), not left to keep the other ranks waiting in
/// the next collective.
pub struct RawCsv {
    w: csv::Writer<Box<dyn std::io::Write>>,
    path: PathBuf,
    error: Option<anyhow::Error>,
}

impl RawCsv {
    /// `clock` names the time base of the start/end columns ("global" or "local").
    pub fn create(path: &Path) -> Result<RawCsv> {
        let out = crate::files::open_stream(path)?;
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
        Ok(RawCsv {
            w,
            path: path.to_path_buf(),
            error: None,
        })
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

impl RawSink for RawCsv {
    fn take_error(&mut self) -> Option<anyhow::Error> {
        self.error.take()
    }

    fn write(
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
}
