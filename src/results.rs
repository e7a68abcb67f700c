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
    /// Settings every row was measured with.
    pub settings: Settings,
    pub results: Vec<BenchResult>,
    /// Exit status class of the run: "ok", "validation_errors", "aborted".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Settings {
    pub sync: String,
    pub timing: String,
    pub check: bool,
    pub iter: Option<usize>,
    pub time_limit_s: f64,
    pub root_shift: bool,
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
}
