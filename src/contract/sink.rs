//! Where the engine sends every rank's raw samples (`--raw`).

use anyhow::Result;

/// Where rank 0 streams the `--raw` samples: the engine writes through it, the
/// report layer implements it (`report::raw::RawCsv`). A write error is
/// kept, not returned: only rank 0 writes, and a failure on rank 0 alone
/// must reach every rank through the agreement after the benchmark.
pub trait RawSink {
    /// Writes what every rank recorded for benchmark `bench` at `q`
    /// processes: per rank, quadruples (point index into `sizes`,
    /// repetition or -1 for a loop sample, start, end).
    fn write(
        &mut self,
        bench: &str,
        q: usize,
        sizes: &[usize],
        per_rank: &[Vec<[f64; 4]>],
    ) -> Result<()>;

    /// The first write error, once.
    fn take_error(&mut self) -> Option<anyhow::Error>;
}
