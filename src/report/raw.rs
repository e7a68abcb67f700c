//! `--raw FILE`: every sample as CSV, for the user's own analysis.

use std::fs::File;
use std::path::Path;

use anyhow::{Context, Result};

pub struct RawSink {
    w: csv::Writer<Box<dyn std::io::Write>>,
}

impl RawSink {
    /// `clock` names the time base of the start/end columns ("global" or "local").
    pub fn create(path: &Path) -> Result<RawSink> {
        let out: Box<dyn std::io::Write> = if path.as_os_str() == "-" {
            Box::new(std::io::stdout())
        } else {
            Box::new(
                File::create(path)
                    .with_context(|| format!("cannot create '{}'", path.display()))?,
            )
        };
        let mut w = csv::Writer::from_writer(out);
        w.write_record([
            "rank",
            "benchmark",
            "processes",
            "bytes",
            "repetition",
            "start_s",
            "end_s",
        ])?;
        Ok(RawSink { w })
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
        for (rank, v) in per_rank.iter().enumerate() {
            for s in v {
                let rep = if s[1] < 0.0 {
                    "loop".to_string()
                } else {
                    (s[1] as usize).to_string()
                };
                self.w.write_record([
                    rank.to_string(),
                    bench.to_string(),
                    q.to_string(),
                    sizes[s[0] as usize].to_string(),
                    rep,
                    format!("{:.9}", s[2]),
                    format!("{:.9}", s[3]),
                ])?;
            }
        }
        self.w.flush().context("cannot write the raw samples")
    }
}
