//! The names of the timing methods; what each does is `crate::method`'s.

use serde::{Deserialize, Serialize};

/// The timing methods, by their names on the command line and in the JSON.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum Method {
    /// PMB: one clock pair around all repetitions.
    Loop,
    /// A clock pair around each repetition, synchronised before each.
    PerCall,
    /// A clock pair around each repetition, synchronised once before the first (IMB -sync 0).
    PerCallOnce,
    /// MPITEST: barrier; t1; op; barrier; t2, t = t2 − t1 − DT − DB.
    Mpitest,
    /// CRESTA: max(t_end) − min(t_start) per repetition on synchronised clocks.
    GlobalCompletion,
    /// COMMTEST: the maximum over processes of each one's elapsed time.
    MaxOverProcesses,
    /// Coarrays: (delay + op) − (delay alone), over outer × inner repetitions.
    DelaySubtraction,
    /// mpiGraph: start all sends and receives at once; the time until the
    /// sends complete and until the receives complete, per rank.
    SplitCompletion,
}
