//! The repetitions a suite or a benchmark declares.

use serde::{Deserialize, Serialize};

/// How many repetitions a suite runs by default.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum RepsDefault {
    /// IMB: at most 1000 repetitions and 40 MiB per size, within `--time`.
    Imb,
    /// A fixed count for normal and for fast constructs (MPITEST's T and t).
    Fixed { normal: usize, fast: usize },
    /// Double until a run takes 2/3 .. 4/3 of `target` seconds (the coarray suite).
    TargetTime { target: f64 },
    /// Repetitions and warm-up that change above a size (OSU).
    Split(Split),
}

/// Repetitions and warm-up that change above a size (OSU's
/// iterations / skip and their large-message values above 8192 bytes).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Split {
    pub small: usize,
    pub large: usize,
    pub warm_small: usize,
    pub warm_large: usize,
    pub limit: usize,
}

impl Split {
    /// (repetitions, warm-up) at `x` bytes.
    pub fn at(&self, x: usize) -> (usize, usize) {
        if x > self.limit {
            (self.large, self.warm_large)
        } else {
            (self.small, self.warm_small)
        }
    }
}

/// IMB's iteration policies (IMB -iter_policy).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum IterPolicy {
    /// At most --max-iter repetitions and --volume bytes, within --time (IMB's default).
    #[default]
    Dynamic,
    /// Always --max-iter repetitions.
    Off,
    /// A multiple of the process count that falls with the message size (IMB's hyperbola).
    MultipleNp,
    /// multiple-np for rooted collectives, dynamic for the others.
    Auto,
}
