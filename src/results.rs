//! The one serde result type every exporter reads (the JSON contract of
//! `shared/design.md`: fields may be added, never renamed).

use serde::{Deserialize, Serialize};

pub const SCHEMA: &str = "mpibench/1";

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct MpiInfo {
    pub library: String,
    pub version: [i32; 2],
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Report {
    pub schema: String,
    pub mpibench_version: String,
    pub command: Vec<String>,
    pub started: String,
    /// False while the run is still going or if it died.
    pub complete: bool,
    pub mpi: MpiInfo,
    pub world_size: usize,
    pub hosts: Vec<String>,
    /// Ranks on each host of `hosts`.
    #[serde(default)]
    pub ranks_per_host: Vec<usize>,
    /// Settings every row was measured with.
    pub settings: Settings,
    pub results: Vec<BenchResult>,
    /// "running" until the end (and after a kill or --timeout), then "ok",
    /// "validation_errors", "aborted" or "interrupted".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
    /// With status "interrupted": the signal that stopped the run ("SIGINT", ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interrupted_by: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Settings {
    pub sync: String,
    pub timing: String,
    pub check: bool,
    pub iter: Option<usize>,
    pub time_limit_s: f64,
    pub root_shift: bool,
    pub min_iter: usize,
    pub max_iter: usize,
    pub precision: Option<f64>,
    pub window_us: Option<f64>,
    pub mem_limit_bytes: u64,
    pub timeout_s: Option<f64>,
    /// How messages of 2 GiB and more are sent: "mpi4-large-count" or "derived-datatype".
    pub large_messages: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct BenchResult {
    pub benchmark: String,
    pub suite: String,
    pub class: String,
    pub processes: usize,
    /// "primary" or "multi".
    pub mode: String,
    /// Number of disjoint groups that ran at once (1 in primary mode).
    pub groups: usize,
    /// Ranks of the world that took part (the others waited in MPI_Barrier).
    pub active: usize,
    /// Why the benchmark did not run at this process count, if it did not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skipped: Option<String>,
    /// Message lengths left out (e.g. above the memory limit) and why.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    pub rows: Vec<Row>,
    /// Per-group rows of a Multi- run (with `--multi-detail`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub group_rows: Vec<GroupRows>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct GroupRows {
    pub group: usize,
    pub ranks: Vec<usize>,
    pub rows: Vec<Row>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Row {
    pub bytes: usize,
    pub repetitions: usize,
    pub t_min_us: f64,
    pub t_max_us: f64,
    pub t_avg_us: f64,
    /// Null where the suite defines no throughput.
    pub mbytes_per_sec: Option<f64>,
    /// Validation failures; 0 when checked and clean, null when not checked.
    pub errors: Option<u64>,
    /// Median of the samples: per-call, the per-repetition maximum over
    /// ranks; with loop timing, the per-rank averages.
    pub t_median_us: Option<f64>,
    pub t_p5_us: Option<f64>,
    pub t_p95_us: Option<f64>,
    /// 95% confidence interval of the median (order statistics).
    pub ci95_lo_us: Option<f64>,
    pub ci95_hi_us: Option<f64>,
    /// Samples that started in time / late (window sync) and were left out.
    pub valid: Option<u64>,
    pub invalid: Option<u64>,
    /// Samples beyond median ± 3 scaled MADs (counted, not removed).
    pub outliers: Option<u64>,
    /// Median global time to completion, max(end) - min(start) over ranks on the synchronised clock.
    pub t_global_us: Option<f64>,
    /// With --precision: true when a bound (--min-iter/--max-iter/--time) ended the row, not the precision.
    pub stopped_on_bound: Option<bool>,
    /// Per-call timing: minimum, maximum and average over ranks of per-rank medians.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub t_median_min_us: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub t_median_max_us: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub t_median_avg_us: Option<f64>,
    /// clocksync / timing rows: one per rank.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rank: Option<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offset_us: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub drift_ppm: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub residual_us: Option<f64>,
    /// timing rows: MPI_Wtick, smallest observed clock step, cost of one read (MPITEST's DT).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tick_us: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resolution_us: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub overhead_us: Option<f64>,
}
