//! The one serde result type every exporter reads (the JSON contract of
//! `shared/design.md`: fields may be added, never renamed).

use std::collections::BTreeMap;

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

/// Axis values beyond bytes, by name (a JSON object): a row's `params`.
pub type Params = BTreeMap<String, Value>;

/// IMB's `-off_cache cache_size[,cache_line_size]`: the data of successive
/// repetitions lie one message (rounded up to cache lines, plus one line)
/// apart in buffers of about twice the last-level cache, which they march
/// through before reusing the beginning, so that each repetition touches
/// data that is not in the cache.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct OffCache {
    /// Last-level cache size in bytes (IMB: MB of 2^20 bytes).
    pub cache_bytes: usize,
    /// Cache line size in bytes.
    pub line: usize,
}

impl OffCache {
    /// IMB_mem_info.h: CACHE_SIZE 8 (MB), CACHE_LINE_SIZE 64, used for `-off_cache -1`.
    pub const IMB_DEFAULT: OffCache = OffCache {
        cache_bytes: 8 << 20,
        line: 64,
    };

    /// (distance between repetitions, repetitions before the data repeats)
    /// for `len` bytes per repetition.
    pub fn stride(&self, len: usize) -> (usize, usize) {
        let line = self.line.max(1);
        let offs = (len.div_ceil(line) + 1) * line;
        (offs, (2 * self.cache_bytes).div_ceil(offs).max(1))
    }

    /// Bytes a buffer of `len` bytes per repetition needs.
    pub fn alloc(&self, len: usize) -> usize {
        let (offs, n) = self.stride(len);
        len.max(offs * n)
    }
}

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
    /// The Slurm job (and srun step) the run belongs to, when it ran under Slurm.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slurm: Option<SlurmJob>,
    /// "running" until the end, then "ok", "validation_errors", "aborted"
    /// or "interrupted" (also after --timeout, a stall or a rank's death:
    /// "aborted", with `reason`). Only a run whose rank 0 was killed with no
    /// parent to speak for it (a launcher of the user's own) stays "running".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
    /// With status "interrupted": the signal that stopped the run ("SIGINT", ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interrupted_by: Option<String>,
    /// Why the run ended, with `status` (see `outcome::Outcome::reason`):
    /// ok, validation_errors, timeout, stall, rank_died, launcher_failed,
    /// mpi_start_failed, interrupted, write_failed, outliers or error.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// With reason "rank_died": the signal the rank died of ("SIGKILL", ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signal: Option<String>,
    /// With `--launches N` > 1: every launch's own results, in launch
    /// order; `results` then holds their combination (`engine::launches`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub launches: Vec<Launch>,
    /// The machine, placement, MPI build and settings the run had
    /// (`context::gather`); absent in results of older versions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<Context>,
}

/// What a figure depends on beyond the benchmark: the hosts' processors,
/// cores and kernel, where each rank may run, the MPI library's build and
/// settings, and mpibench's own build.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Context {
    /// One entry per host of `hosts`, in the same order.
    pub hosts: Vec<HostContext>,
    /// Where each rank may run, by rank.
    pub binding: Vec<RankBinding>,
    /// More ranks on some machine than processors in their affinity masks:
    /// ranks share cores, so time slicing is in every figure. Hosts on one
    /// kernel (containers, network namespaces) count as one machine.
    pub oversubscribed: bool,
    /// The MPI library as it describes itself (`MPI_Get_library_version`,
    /// every line) and the shared object the process loaded it from.
    pub mpi_library: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mpi_library_file: Option<String>,
    /// The MPI, UCX and libfabric variables of rank 0's environment
    /// (`OMPI_MCA_*`, `MPIR_CVAR_*`, `UCX_*`, `FI_*`, ...), without the
    /// launcher's own per-job bookkeeping.
    pub mpi_env: BTreeMap<String, String>,
    /// `--malloc`: "default" (the C library's allocator as it is) or
    /// "stable" (fixed mmap and trim thresholds); and the allocator's
    /// variables of rank 0's environment (`MALLOC_*`, `GLIBC_TUNABLES`).
    #[serde(default)]
    pub malloc: String,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub malloc_env: BTreeMap<String, String>,
    pub mpibench: Build,
}

/// One host of a run.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct HostContext {
    pub host: String,
    /// Processors the host's ranks may use: the union of their affinity
    /// masks, as a count and as a kernel CPU list.
    pub cores: usize,
    pub cpus: String,
    /// Processors online on the host.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub online: Option<usize>,
    pub ranks: usize,
    /// Every rank of the host has an affinity mask narrower than the
    /// processors online (it was bound by the launcher or the user).
    pub bound: bool,
    /// NUMA nodes of the host (0 where the kernel does not say).
    pub numa_nodes: usize,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_model: Option<String>,
    /// The cpufreq governor of the host's first processor, where it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub governor: Option<String>,
    /// `uname -srm`.
    pub kernel: String,
    #[serde(default)]
    pub memory_bytes: u64,
}

/// Where one rank may run.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RankBinding {
    /// Index in `hosts`.
    pub host: usize,
    /// Its affinity mask as a kernel CPU list ("0-3,8").
    pub cpus: String,
    /// The NUMA nodes those processors belong to, as a list ("0", "0-1").
    pub numa: String,
}

/// mpibench's own build.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Build {
    pub version: String,
    /// The git commit it was built from, where the build saw one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commit: Option<String>,
    /// "release" or "debug".
    pub profile: String,
    pub target: String,
    pub rustc: String,
}

impl Context {
    /// The fields in which `other` differs from this context, by name and
    /// with both values, for `compare`'s warning: processors, cores,
    /// binding, kernel, the MPI build and settings. Host names, the
    /// rank-by-rank binding and mpibench's commit are compared as wholes.
    pub fn differences(&self, other: &Context) -> Vec<String> {
        let mut out = Vec::new();
        fn push(out: &mut Vec<String>, name: &str, a: String, b: String) {
            if a == b {
                return;
            }
            let (x, y) = (short(&a), short(&b));
            out.push(if x == y {
                format!("{name}: alike in the first 100 characters, different beyond")
            } else {
                format!("{name}: {x} vs {y}")
            });
        }
        let mut field = |name: &str, a: String, b: String| push(&mut out, name, a, b);
        let hosts = |c: &Context, f: &dyn Fn(&HostContext) -> String| {
            let mut v: Vec<String> = c.hosts.iter().map(f).collect();
            v.dedup();
            v.join(", ")
        };
        field(
            "cpu_model",
            hosts(self, &|h| h.cpu_model.clone().unwrap_or("unknown".into())),
            hosts(other, &|h| h.cpu_model.clone().unwrap_or("unknown".into())),
        );
        field(
            "governor",
            hosts(self, &|h| h.governor.clone().unwrap_or("none".into())),
            hosts(other, &|h| h.governor.clone().unwrap_or("none".into())),
        );
        field(
            "cores",
            hosts(self, &|h| h.cores.to_string()),
            hosts(other, &|h| h.cores.to_string()),
        );
        field(
            "numa_nodes",
            hosts(self, &|h| h.numa_nodes.to_string()),
            hosts(other, &|h| h.numa_nodes.to_string()),
        );
        field(
            "kernel",
            hosts(self, &|h| h.kernel.clone()),
            hosts(other, &|h| h.kernel.clone()),
        );
        field(
            "bound",
            hosts(self, &|h| h.bound.to_string()),
            hosts(other, &|h| h.bound.to_string()),
        );
        field(
            "oversubscribed",
            self.oversubscribed.to_string(),
            other.oversubscribed.to_string(),
        );
        let binding = |c: &Context| {
            c.binding
                .iter()
                .map(|b| b.cpus.as_str())
                .collect::<Vec<_>>()
                .join(" ")
        };
        field("binding", binding(self), binding(other));
        field(
            "mpi_library",
            self.mpi_library.clone(),
            other.mpi_library.clone(),
        );
        let env = |c: &Context| {
            c.mpi_env
                .iter()
                .map(|(k, v)| format!("{k}={v}"))
                .collect::<Vec<_>>()
                .join(" ")
        };
        let (a, b) = (env(self), env(other));
        field(
            "mpi_env",
            if a.is_empty() { "none".into() } else { a },
            if b.is_empty() { "none".into() } else { b },
        );
        let alloc = |c: &Context| {
            let mut v = vec![if c.malloc.is_empty() {
                "default"
            } else {
                &c.malloc
            }
            .to_string()];
            v.extend(c.malloc_env.iter().map(|(k, x)| format!("{k}={x}")));
            v.join(" ")
        };
        field("malloc", alloc(self), alloc(other));
        field(
            "mpibench",
            self.mpibench.version.clone(),
            other.mpibench.version.clone(),
        );
        out
    }
}

/// At most 100 characters of `s`, with "..." where it was cut (a library's
/// self-description can run to kilobytes of configure options).
fn short(s: &str) -> String {
    let s = s.trim();
    match s.char_indices().nth(100) {
        Some((i, _)) => format!("{}...", &s[..i]),
        None => s.to_string(),
    }
}

/// One launch (mpiexec or srun call) of a `--launches N` run.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Launch {
    /// 1-based, in the order the launches ran.
    pub launch: usize,
    pub started: String,
    /// The launch's own status ("ok", "aborted", ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
    pub results: Vec<BenchResult>,
}

/// A Slurm job, from rank 0's environment.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SlurmJob {
    pub job_id: String,
    /// The srun step of the ranks (absent when a launcher inside the
    /// allocation started them without srun, e.g. mpiexec on one node).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step_id: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nodelist: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Settings {
    pub sync: String,
    pub timing: String,
    pub check: bool,
    pub iter: Option<usize>,
    pub time_limit_s: f64,
    pub root_shift: bool,
    /// Root of rooted collectives (`--root`), when not 0.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub root: usize,
    pub min_iter: usize,
    pub max_iter: usize,
    pub precision: Option<f64>,
    pub window_us: Option<f64>,
    pub mem_limit_bytes: u64,
    pub timeout_s: Option<f64>,
    /// How messages of 2 GiB and more are sent: "mpi4-large-count" or "derived-datatype".
    pub large_messages: String,
    /// `--warmup` (IMB `-warm_up off`: 1); absent: the default, a tenth of the repetitions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warmup: Option<usize>,
    /// `--off-cache` (IMB `-off_cache`): the cache size and line the data avoids.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub off_cache: Option<OffCache>,
    /// `--msg-pause` (IMB `-msg_pause on`): a pause after every message length.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub msg_pause: bool,
    /// IMB's `-map PxQ`, as "PxQ": the ranks renumbered "inter node first".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub imb_map: Option<String>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
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
    /// The timing method ("loop", "per-call", "mpitest", "global-completion",
    /// "max-over-processes", "delay-subtraction").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub method: Option<String>,
    /// The synchronisation used ("barrier", "dissemination", "window", "none").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sync: Option<String>,
    /// Who partners whom (e.g. "i<->i+P/2").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub placement: Option<String>,
    /// The element type of the messages (e.g. "MPI_INT").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub datatype: Option<String>,
    /// Constants the method calibrated, in µs (MPITEST: DT and DB).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dt_us: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub db_us: Option<f64>,
    /// The definitions the run followed: "pmb" (PMB-MPI1 v2.2) or "imb2021" (IMB-MPI1 2021).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub definitions: Option<String>,
    /// Which run of the list this is (1-based) with --repeats R > 1; absent
    /// on single runs and on the aggregate over the runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repeat: Option<usize>,
    /// The aggregate over R runs: t_min/t_max/t_avg are the minimum, maximum
    /// and mean over the runs of each run's t_avg; the median, CI and
    /// `below_resolution` are of the runs' samples pooled
    /// (`engine::aggregate`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub aggregate: bool,
    pub rows: Vec<Row>,
    /// Per-group rows of a Multi- run (with `--multi-detail`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub group_rows: Vec<GroupRows>,
    /// Figures the benchmark derives from its rows (`Benchmark::derive`),
    /// as top-level fields of the result (`fits`, `best`, `loggp`).
    #[serde(flatten, default)]
    pub figures: Figures,
    /// Keys of the rows' `params` that are measured values rather than
    /// chosen ones (LogGP's PRTT medians, the figures a kernel reports such
    /// as CRESTA's achieved t_calc): never an axis of a plot, never part of
    /// the key `compare` matches rows by.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub measured_params: Vec<String>,
    /// mpiGraph: `ranks`, `hosts` and per-pair matrices (rows = senders), e.g.
    /// `send_mbs`, `recv_mbs`, `latency_us`; every 2-D numeric array is drawn
    /// as a heatmap.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub matrix: Option<serde_json::Value>,
    /// mpiGraph: pairs far from the others (shown as given).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outliers: Option<serde_json::Value>,
    /// World ranks of the active processes, in group order (several groups
    /// of a Multi- run one after the other).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ranks: Vec<usize>,
    /// World ranks of the groups that sat out every point, unpaired (e.g.
    /// the third rank of osu_bw on 3): neither in `ranks` nor in `active`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sat_out: Vec<usize>,
    /// The host of each of `ranks`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hosts: Vec<String>,
    /// For benchmarks that pair ranks: whether every partner ran on another
    /// host ("inter"), on the same host ("intra"), or both ("mixed").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pair: Option<String>,
    /// `--pairs`, when it asked for inter- or intra-host partners.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pairs: Option<String>,
}

// `BenchResult::measures_instruments` is `crate::contract::info`'s: the
// classes a result's `class` names are the contract's.

/// Figures combining rows; each absent unless a benchmark derives it.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Figures {
    /// COMMTEST: the latency/bandwidth fit t(k) = k·α + V/β over each packet sweep.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fits: Vec<Fit>,
    /// The fastest variant of each group of rows that differ only in it
    /// (COMMTEST's protocols per packet count, ALLREDUCE's algorithms per length).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub best: Vec<Best>,
    /// LogGP parameters (netgauge's method).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub loggp: Option<LogGp>,
    /// The self-consistency guidelines: a collective against its mock-up
    /// (and against itself at the next size), per size.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub guidelines: Vec<GuidelineVerdict>,
}

/// One self-consistent performance guideline at one size and process
/// count: the collective's time against its mock-up's, the ratio, a
/// one-sided Mann–Whitney test and the verdict.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct GuidelineVerdict {
    /// The guideline's benchmark name, or "monotony" for the collective
    /// against itself at the next size.
    pub guideline: String,
    /// The rule, e.g. "MPI_Allreduce(n) <= MPI_Reduce(n) + MPI_Bcast(n)".
    pub rule: String,
    /// The specialised call and the mock-up, e.g. "MPI_Allreduce(n)".
    pub collective: String,
    pub mockup: String,
    /// n: the size of the guideline in bytes (see the guideline's page).
    pub bytes: usize,
    /// Monotony: the next size, that the mock-up side ran at.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mockup_bytes: Option<usize>,
    pub processes: usize,
    /// The medians of the two sides (µs).
    pub t_collective_us: f64,
    pub t_mockup_us: f64,
    /// t_collective / t_mockup.
    pub ratio: f64,
    /// One-sided Mann–Whitney p-value of "the collective is slower";
    /// null without per-repetition samples.
    pub p_value: Option<f64>,
    /// "holds", "violated" or "inconclusive".
    pub verdict: String,
}

/// t(k) = k·α + V/β fitted by least squares to the times of one packet
/// sweep (fixed volume V, k packets).
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct Fit {
    /// The protocol's code, e.g. "(0,3)", and its name.
    pub protocol: String,
    pub name: String,
    pub prepost: bool,
    /// V in bytes.
    pub volume: usize,
    /// Packet counts fitted.
    pub points: usize,
    /// α: per-message overhead (µs).
    pub alpha_us: f64,
    /// β: bandwidth in MB/s (MB = 2^20 bytes); null when the intercept V/β is not positive.
    pub beta_mbs: Option<f64>,
    /// Coefficient of determination of the fit; null with fewer than 3 points or constant times.
    pub r2: Option<f64>,
    /// The minimum observed time of any experiment of the sweep (µs) and its packet count.
    pub t_min_us: f64,
    pub t_min_packets: u64,
    /// The maximum achieved bandwidth V / t_min (MB/s).
    pub max_mbs: f64,
    /// Spot estimates from neighbouring packet counts.
    pub spots: Vec<Spot>,
    /// The same fit to the minimum observed times (less sensitive to a
    /// process that was descheduled during some experiments).
    #[serde(default)]
    pub alpha_min_us: f64,
    #[serde(default)]
    pub beta_min_mbs: Option<f64>,
    #[serde(default)]
    pub r2_min: Option<f64>,
    /// "fits", or "no linear fit" when the line fails the rule of
    /// docs/suites/commtest.md (R² below 0.9, fewer than 3 packet counts,
    /// α < 0, no positive V/β, or β below half of `max_mbs`); then α and β
    /// are raw fields only, and the table and the report lead with `max_mbs`.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub verdict: String,
    /// Why the line does not fit (empty when it does).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub no_fit: Vec<String>,
    /// The same verdict and reasons for the fit to t_min.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub verdict_min: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub no_fit_min: Vec<String>,
}

/// α and β from two neighbouring packet counts k1 < k2 of a sweep:
/// α = (t(k2) − t(k1)) / (k2 − k1), V/β = t(k1) − k1·α.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct Spot {
    pub packets: [u64; 2],
    pub alpha_us: f64,
    /// Null when t(k1) − k1·α is not positive.
    pub beta_mbs: Option<f64>,
}

/// The fastest of a group of rows.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct Best {
    /// What the rows of the group share (e.g. packets and prepost, or n).
    pub at: Params,
    /// The axis compared ("protocol", "algorithm") and its fastest value.
    pub axis: String,
    pub winner: String,
    pub t_us: f64,
    /// A reference value of the axis (ALLREDUCE: "mpi", the library's
    /// MPI_Allreduce), its time and its time relative to the fastest.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reference: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reference_us: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ratio: Option<f64>,
}

/// LogGP parameters between rank 0 and a partner (Hoefler, Lichei, Rehm 2007).
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct LogGp {
    pub partner: usize,
    /// Messages per PRTT(n, ., s).
    pub n: usize,
    /// L = PRTT(1, 0, s_min) / 2 (µs).
    #[serde(rename = "L_us")]
    pub l_us: f64,
    /// o_s and o_r at the smallest size (µs).
    pub o_s_us: f64,
    pub o_r_us: f64,
    /// g: intercept, G: slope of (PRTT(n,0,s) − PRTT(1,0,s))/(n − 1) against s.
    pub g_us: f64,
    #[serde(rename = "G_us_per_byte")]
    pub big_g_us_per_byte: f64,
    /// R² of that fit.
    pub r2: Option<f64>,
    /// "fits", or "no linear fit" when R² of g + G·s is below 0.9 or G < 0
    /// (then g, G and 1/G are raw fields only).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub verdict: String,
    /// E.g. sizes where the delay d was shorter than g + G·s.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
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
    /// Axis values beyond bytes, e.g. `{"n": 10}`, `{"t_delay_us": 64, ...}`,
    /// `{"protocol": "(0,3)", "packets": 16, ...}`. Empty for IMB, but for the
    /// window of Uniband and Biband (`{"window": 256}`).
    #[serde(default)]
    pub params: Params,
    pub repetitions: usize,
    /// Null (read as NaN) when the row had no valid sample.
    #[serde(deserialize_with = "nullable_f64")]
    pub t_min_us: f64,
    #[serde(deserialize_with = "nullable_f64")]
    pub t_max_us: f64,
    #[serde(deserialize_with = "nullable_f64")]
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
    /// Messages per second (IMB Uniband / Biband: all pairs together).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub msg_per_sec: Option<f64>,
    /// Standard deviation of the per-repetition values (µs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub t_stddev_us: Option<f64>,
    /// The values the statistics saw (µs), at most 1024: beyond that,
    /// evenly spaced order statistics of them. Absent with loop timing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub samples_us: Option<Vec<f64>>,
    /// How many values the statistics saw.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub samples_n: Option<u64>,
    /// The confidence interval of a difference of times contains zero: the
    /// figure is below the resolution of the measurement.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub below_resolution: Option<bool>,
    /// With window synchronisation: the window width in the end (µs), after widening.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window_us: Option<f64>,
    /// Median start skew max(t_start) − min(t_start) over ranks (µs), on the global clock.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skew_us: Option<f64>,
    /// Max over processes: the global elapsed time differs from the maximum
    /// single-process time by more than 10% (both medians over repetitions).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub discrepant: Option<bool>,
    /// Loop timing: a stall far beyond the point's own pace stayed in the
    /// figure after measuring again (the note gives its size; see
    /// `--disturbance-factor`). Absent when the measurement was clean.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub disturbed: Option<bool>,
    /// Page faults (minor and major) per repetition in the timed batches,
    /// the maximum over the ranks, to 0.01; and the major ones alone
    /// (absent in results written before faults were counted).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page_faults: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub major_page_faults: Option<f64>,
    /// True when the timed region faulted at least once per repetition on
    /// some rank (`page_faults` ≥ 1): the figure includes the kernel
    /// mapping fresh memory (see docs/methodology.md, "Page faults").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub faulted: Option<bool>,
    /// Something the reader must know about this row (e.g. no valid sample).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
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
    /// Split-completion timing: per rank of the group, in group order, the
    /// mean time until its sends and until its receives completed (µs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sides_us: Option<Vec<[f64; 2]>>,
    /// With `--launches N` > 1 (a combined row): each launch's median of
    /// this row (µs; t_avg where a launch has no median), in launch order.
    /// `t_median_us` is their median, `ci95_lo_us`/`ci95_hi_us` the
    /// between-launch CI below.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub launch_medians_us: Option<Vec<f64>>,
    /// The 95% CI of the median of the launch medians (order statistics
    /// over the launches: with 8 launches or fewer, their range).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub between_ci95_lo_us: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub between_ci95_hi_us: Option<f64>,
    /// The within-launch spread: the median over the launches of each
    /// launch's own 95% CI width (µs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub within_spread_us: Option<f64>,
    /// The between-launch spread: the largest launch median less the
    /// smallest (µs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub between_spread_us: Option<f64>,
    /// The between-launch spread exceeds the within-launch spread: one
    /// launch's CI overstates the precision of the figure.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub launch_spread_dominates: Option<bool>,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// Reads a number or null (NaN): statistics are null when a row had no
/// valid sample (serde_json writes NaN as null).
fn nullable_f64<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
    Ok(Option::<f64>::deserialize(d)?.unwrap_or(f64::NAN))
}
