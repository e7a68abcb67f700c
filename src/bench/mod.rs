//! The Benchmark contract: a benchmark owns only its communication pattern,
//! its buffer needs, what a correct receive buffer holds, and how a time
//! becomes its reported figures. Timing, repetitions, warm-up, sync,
//! statistics and output belong to the engine.

use std::ffi::c_int;

use crate::comm::{Buffer, Comm, Request};

pub mod clock;
pub mod imb;

/// PMB's classification (PMB §4.1), which decides how results are reported.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Class {
    /// One message between two processes (PingPong, PingPing).
    SingleTransfer,
    /// Many processes exchanging at once (Sendrecv, Exchange).
    ParallelTransfer,
    /// Collective operations.
    Collective,
    /// Measurements of the clocks themselves (timing, clocksync).
    Clock,
}

impl Class {
    pub fn label(self) -> &'static str {
        match self {
            Class::SingleTransfer => "single transfer",
            Class::ParallelTransfer => "parallel transfer",
            Class::Collective => "collective",
            Class::Clock => "clock",
        }
    }
}

/// What a benchmark declares about itself.
#[derive(Debug)]
pub struct Info {
    pub name: &'static str,
    pub suite: &'static str,
    pub class: Class,
    /// Fewest active processes the pattern needs.
    pub min_ranks: usize,
    pub description: &'static str,
    /// Reported time = measured time per repetition × `time_scale` (PingPong: 0.5).
    pub time_scale: f64,
    /// Throughput = `factor` × X / 1.048576 / t[usec] in MB/s (MB = 2^20 bytes); `None` where the suite defines none.
    pub throughput: Option<f64>,
    /// Uses MPI_FLOAT / MPI_SUM instead of MPI_BYTE.
    pub reduction: bool,
    /// Has a root that `--root-shift` rotates.
    pub rooted: bool,
    /// Runs over message lengths (false: Barrier, reported once without #bytes).
    pub sized: bool,
}

/// Buffer needs of one rank for message length X in a group of Q (bytes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Layout {
    pub send: usize,
    pub recv: usize,
}

/// Everything one repetition may touch. The engine builds it once per size.
pub struct Op {
    pub comm: Comm,
    pub rank: usize,
    pub size: usize,
    /// Message length X in bytes.
    pub x: usize,
    /// Root of rooted collectives for this repetition.
    pub root: usize,
    pub sbuf: Buffer,
    pub rbuf: Buffer,
    /// Per-rank counts and displacements (Allgatherv, Reduce_scatter).
    pub counts: Vec<c_int>,
    pub displs: Vec<c_int>,
    pub reqs: [Request; 4],
}

/// One contiguous piece of a receive buffer and where it came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Segment {
    /// Offset in the receive buffer (bytes).
    pub offset: usize,
    pub len: usize,
    /// Group rank whose send buffer it came from.
    pub sender: usize,
    /// Offset in the sender's send buffer (bytes).
    pub sender_offset: usize,
}

/// What the receive buffer of one rank must hold after a repetition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Expect {
    /// Nothing arrives on this rank (Barrier, non-root of Reduce).
    Nothing,
    /// Bytes copied from other ranks' send buffers.
    Bytes(Vec<Segment>),
    /// `count` floats that are the sum over all group ranks of their send
    /// elements `first..first + count`, stored from offset 0.
    FloatSum { first: usize, count: usize },
}

/// A benchmark of any suite.
pub trait Benchmark: Sync {
    fn info(&self) -> &'static Info;

    /// Bytes each rank needs for message length `x` in a group of `q`.
    fn layout(&self, x: usize, q: usize) -> Layout;

    /// Per-size preparation outside the timed region (counts, displacements).
    fn prepare(&self, _op: &mut Op) {}

    /// One repetition: MPI calls only.
    fn run(&self, op: &mut Op);

    /// What `op.rbuf` holds on `rank` after a repetition with `root`.
    fn expect(&self, x: usize, q: usize, rank: usize, root: usize) -> Expect;
}

/// PMB §4.4.2: L = X/4 floats scattered over Q ranks; with L = Q·r + s the
/// first s ranks get r + 1 items and the others r.
pub fn reduce_scatter_counts(l: usize, q: usize) -> Vec<usize> {
    let r = l / q;
    let s = l % q;
    (0..q).map(|i| if i < s { r + 1 } else { r }).collect()
}

/// Throughput in MB/s (MB = 2^20 bytes) for `factor` × `x` bytes moved in `t_us` microseconds.
pub fn mbytes_per_sec(factor: f64, x: usize, t_us: f64) -> f64 {
    if t_us > 0.0 {
        factor * x as f64 / 1.048576 / t_us
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reduce_scatter_split_is_pmb_4_4_2() {
        assert_eq!(reduce_scatter_counts(10, 4), vec![3, 3, 2, 2]);
        assert_eq!(reduce_scatter_counts(8, 4), vec![2, 2, 2, 2]);
        assert_eq!(reduce_scatter_counts(1, 3), vec![1, 0, 0]);
        assert_eq!(reduce_scatter_counts(0, 2), vec![0, 0]);
        for l in 0..100 {
            for q in 1..9 {
                let c = reduce_scatter_counts(l, q);
                assert_eq!(c.iter().sum::<usize>(), l);
                assert!(c.windows(2).all(|w| w[0] >= w[1] && w[0] - w[1] <= 1));
            }
        }
    }

    #[test]
    fn throughput_uses_mebibytes() {
        // 1 MiB in 1 second is exactly 1 MB/s.
        assert!((mbytes_per_sec(1.0, 1 << 20, 1e6) - 1.0).abs() < 1e-12);
        // Sendrecv: 2X/1.048576/t; Exchange: 4X/1.048576/t.
        assert!((mbytes_per_sec(2.0, 1_048_576, 1.0) - 2_000_000.0).abs() < 1e-6);
        assert!((mbytes_per_sec(4.0, 1000, 2.0) - 4000.0 / 1.048576 / 2.0).abs() < 1e-9);
        assert_eq!(mbytes_per_sec(1.0, 100, 0.0), 0.0);
    }
}
