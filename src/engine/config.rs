//! What the engine reads of a run: built by the layer above from the plan
//! (`Plan::engine_config`), so that the engine never sees the plan.

use super::placement::{Pairs, RankOrder};
use super::reps::Reps;
use crate::contract::{Axes, Definitions, Info, Method};
use crate::method::SyncMode;
use crate::results::OffCache;
use serde::{Deserialize, Serialize};

/// The choices made per benchmark from the run's options, its suite's
/// defaults and its definitions; the layer above implements it.
pub trait Choices {
    /// The timing method of a benchmark.
    fn method_for(&self, info: &Info) -> Method;
    /// Its synchronisation.
    fn sync_for(&self, info: &Info) -> SyncMode;
    /// Whether every repetition is validated.
    fn check_for(&self, info: &Info) -> bool;
    /// The repetitions of its points.
    fn reps_for(&self, info: &Info) -> Reps;
    /// PMB §5.2.5: repetitions at the largest length before the first.
    fn warm_largest(&self, info: &Info) -> usize;
}

/// Faults the hidden test flags plant, so that the tests can reach every
/// failure path through a real MPI job.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Faults {
    /// `--corrupt`: damage the received data of the first repetition.
    pub corrupt: bool,
    /// The rank whose allocation fails (`--fail-alloc-rank`).
    pub fail_alloc_rank: Option<usize>,
    /// The rank whose MPI call fails (`--fail-mpi-rank`).
    pub fail_mpi_rank: Option<usize>,
    /// The rank whose MPI setup fails (`--fail-mpi-setup-rank`).
    pub fail_mpi_setup_rank: Option<usize>,
    /// Fresh pages touched per repetition inside each timed batch
    /// (`--test-fresh-pages`), so that its rows must be flagged.
    pub fresh_pages: usize,
}

/// How the engine watches a measurement: the stall limit and the
/// disturbance rule ([`crate::engine::disturb`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Watch {
    /// The stall limit S in seconds (`--stall-limit`; None: off).
    pub stall_limit_s: Option<f64>,
    /// `--disturbance-factor` F (None: off): see `engine::disturb`.
    pub disturbance_factor: Option<f64>,
}

/// The run's settings the engine reads, and the per-benchmark [`Choices`].
pub struct Config<'a> {
    /// Message sizes in bytes.
    pub sizes: Vec<usize>,
    /// Axes beyond sizes (name → values).
    pub axes: Axes,
    /// The definitions the `imb` benchmarks follow.
    pub definitions: Definitions,
    /// Disjoint groups of Q with a result per group (`--multi`).
    pub multi: bool,
    /// With `multi`: rows of every group besides the combined ones.
    pub multi_detail: bool,
    /// Rotate roots every repetition (`--root-shift`).
    pub root_shift: bool,
    /// Root of rooted collectives (`--root`).
    pub root: usize,
    /// Validate every repetition (`--check`).
    pub check: bool,
    /// `--raw`: rank 0 streams the samples.
    pub raw: bool,
    /// Memory limit per rank in bytes.
    pub mem_bytes: u64,
    /// The limit came from a front end's buffer size, not from --mem: the
    /// flag that set it, as the front end spells it.
    pub buffer_limit: Option<String>,
    /// `--strict`: a validation error stops the run.
    pub strict: bool,
    /// The faults planted by the hidden test flags.
    pub faults: Faults,
    /// `--off-cache`: cold data every repetition.
    pub off_cache: Option<OffCache>,
    /// Where the partners of pair placements run (`--pairs`).
    pub pairs: Pairs,
    /// `--rank-order`: how world ranks map onto group ranks.
    pub rank_order: Option<RankOrder>,
    /// How the run watches for stalls and disturbances.
    pub watch: Watch,
    /// `--msg-pause`: after every point a pause of a tenth of the time the
    /// point took (at least 0.1 s), outside the timed regions.
    pub pause_after_point: bool,
    /// Window width of window synchronisation (`--window-us`).
    pub window_us: Option<f64>,
    /// `--fast-iter`: repetitions of fast constructs (MPITEST's t); they also
    /// bound the calibration of DT and DB.
    pub fast_iter: Option<usize>,
    /// Warm-up repetitions (`--warmup`); `None`: the policy's.
    pub warmup: Option<usize>,
    /// Inner repetitions of delay subtraction.
    pub inner: Option<usize>,
    /// IMB's most bytes per message length (`--volume`).
    pub max_volume: usize,
    /// `--time`: seconds per point.
    pub time_limit_s: f64,
    /// The per-benchmark choices.
    pub choices: &'a dyn Choices,
}

impl Config<'_> {
    pub fn method_for(&self, info: &Info) -> Method {
        self.choices.method_for(info)
    }

    pub fn sync_for(&self, info: &Info) -> SyncMode {
        self.choices.sync_for(info)
    }

    pub fn check_for(&self, info: &Info) -> bool {
        self.choices.check_for(info)
    }

    pub fn reps_for(&self, info: &Info) -> Reps {
        self.choices.reps_for(info)
    }

    pub fn warm_largest(&self, info: &Info) -> usize {
        self.choices.warm_largest(info)
    }
}
