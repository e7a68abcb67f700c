//! Command-line definitions (clap): the common subcommands and options.
//! Parsing happens on every rank before MPI starts; only rank 0's plan is
//! used (see `plan`). The suites' own command lines (MPITEST's letters, ...)
//! are front ends in their folders (`bench/<suite>/front.rs`) that produce
//! the same [`RunArgs`]; the registry adds them as subcommands
//! (`help::command`).

use std::path::PathBuf;

use std::any::Any;
use std::borrow::Cow;
use std::sync::OnceLock;

use clap::{ArgMatches, Args, FromArgMatches, Parser, Subcommand};

pub use crate::comm::rma::{RmaSync, WindowKind};
pub use crate::contract::Method;
pub use crate::engine::placement::Pairs;
pub use crate::method::SyncMode;

#[derive(Debug, Parser)]
#[command(
    name = "mpibench",
    version,
    disable_help_subcommand = true,
    about = "MPI benchmarks: PMB-MPI1, MPITEST and more, with validation, statistics and JSON/CSV output"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// List every benchmark with its suite, minimum ranks and description.
    #[command(display_order = 0)]
    List {
        /// Only this suite.
        #[arg(long)]
        suite: Option<String>,
    },
    /// Run benchmarks (default: the whole PMB-MPI1 suite).
    // (After its options, `help::command` adds every suite's defaults.)
    #[command(display_order = 1)]
    Run(Box<RunArgs>),
    /// The suites' commands that `mpibench --help` does not list, from the
    /// registry (IMB's other programs, `mpibench guidelines`), and tune.
    #[command(external_subcommand)]
    External(Vec<String>),
    /// Write a self-contained HTML report (inline SVG, no scripts) from JSON results.
    #[command(display_order = 10)]
    Report(ReportArgs),
    /// Write one SVG plot per figure (or gnuplot .dat/.gp files) from JSON results.
    #[command(display_order = 11)]
    Plot(PlotArgs),
    /// Compare two runs row by row: ratio B/A and a significance-tested verdict.
    #[command(display_order = 12, after_help = COMPARE_HELP)]
    Compare(CompareArgs),
    /// Keep runs in a history (SQLite or PostgreSQL) and find the steps in their series.
    #[command(display_order = 13, after_help = HISTORY_HELP)]
    History(HistoryArgs),
    /// This overview, a subcommand's help, or a suite's: its options, its own command line and
    /// an example (mpibench help osu)
    #[command(display_order = 20)]
    Help {
        /// A subcommand or a suite.
        topic: Option<String>,
    },
}

#[derive(Debug, Clone, Args, Default)]
pub struct RunArgs {
    /// Benchmarks to run: NAME (within --suite, else any suite that has it), SUITE/NAME,
    /// or Multi-NAME; case-insensitive (default: all of the suite).
    #[arg(value_name = "BENCHMARK")]
    pub benchmarks: Vec<String>,

    /// Suite whose benchmarks run when none is named, and where bare names are looked up first (default imb).
    #[arg(long)]
    pub suite: Option<String>,

    /// How mpibench launches itself (`-n`, `--mpiexec`, `--hosts`, ...).
    #[command(flatten)]
    pub launch: Launch,

    /// Partners of the benchmarks that pair ranks: on other hosts (inter), on the same host
    /// (intra), or the first ranks in rank order wherever they run (any, PMB's way). A placement
    /// the hosts cannot give is skipped with the reason. COMMTEST's own choice, all pairs at once
    /// (all) or node zero and its partners only (zero), is also accepted here (--communicating).
    #[arg(long, value_enum, value_name = "WHERE", default_value = "any")]
    pub pairs: PairsArg,

    /// The stall limit and the disturbance factor.
    #[command(flatten)]
    pub guard: Guards,

    /// The process counts and message lengths of the sweep.
    #[command(flatten)]
    pub sweep: Sweep,

    /// Fixed repetition counts: per length, of the list, of launches, of delay subtraction.
    #[command(flatten)]
    pub reps: Counts,

    /// How one-sided benchmarks make and synchronise their windows.
    #[command(flatten)]
    pub rma: Windows,

    /// Each suite's own options (its clap `Args`, in its folder), in the
    /// registry's order.
    #[command(flatten)]
    pub suites: SuiteOptions,

    /// Exit with code 6 when the bandwidth matrix (--suite mpigraph) shows outliers (they are
    /// findings otherwise: exit code 0).
    #[arg(long)]
    pub fail_on_outlier: bool,

    /// Time cap per message length in seconds (repetitions are reduced to fit).
    #[arg(
        long,
        value_name = "S",
        default_value = "10",
        allow_negative_numbers = true
    )]
    pub time: f64,

    /// Warm-up repetitions per message length (default: a tenth of the repetitions, 2..100).
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = at_least_0)]
    pub warmup: Option<usize>,

    /// The root of rooted collectives.
    #[command(flatten)]
    pub roots: Roots,

    /// The classic definitions' knobs (their suite's heading comes from the registry) and the volume cap.
    #[command(flatten)]
    pub knobs: Knobs,

    /// The element types and derived datatype of the messages.
    #[command(flatten)]
    pub types: Types,

    /// Validate every transfer (outside the timed region); errors give exit code 1.
    #[arg(long)]
    pub check: bool,

    /// The results files and the tables' destination.
    #[command(flatten)]
    pub out: Outputs,

    /// How processes are synchronised and timed, and adaptive repetitions.
    #[command(flatten)]
    pub measure: Measure,

    /// Show the median, its 95% CI and outlier counts in the tables.
    #[arg(long)]
    pub stats: bool,

    /// Write every per-call sample as CSV (rank, benchmark, size, repetition, start, end).
    #[arg(long, value_name = "FILE")]
    pub raw: Option<PathBuf>,

    /// The memory limit and the timeout.
    #[command(flatten)]
    pub limits: Limits,

    /// With --check: stop at the first validation error, naming the rank.
    #[arg(long)]
    pub strict: bool,

    /// No progress lines on stderr.
    #[arg(short, long)]
    pub quiet: bool,

    /// Test hooks (hidden).
    #[command(flatten)]
    pub hooks: Hooks,

    /// The scenarios of imbalance: delayed participants and computation (their suite's heading comes from the registry).
    #[command(flatten)]
    pub imbalance: Imbalance,

    /// Plots written after the run.
    #[command(flatten)]
    pub figures: Figures,

    /// What only front ends set (no flag of `mpibench run`).
    #[arg(skip)]
    pub front: FrontSet,
}

/// How mpibench launches itself (`-n`, `--mpiexec`, `--hosts`, ...).
#[derive(Debug, Clone, Args, Default)]
pub struct Launch {
    /// Number of local ranks when mpibench launches itself (ignored under a launcher).
    #[arg(short = 'n', long = "np", value_name = "N", allow_negative_numbers = true, value_parser = at_least_1)]
    pub np: Option<usize>,

    /// Start more than 64 ranks per core when mpibench launches itself.
    #[arg(long)]
    pub force_np: bool,

    /// mpiexec to launch local ranks with (default, also when empty: the one matching the linked MPI library).
    #[arg(long, value_name = "PATH", env = "MPIBENCH_MPIEXEC")]
    pub mpiexec: Option<String>,

    /// Hosts for the self-launch, HOST:SLOTS,... (e.g. node1:2,node2:2; HOST alone is one slot),
    /// passed to mpiexec in its own syntax; -n defaults to the slots.
    #[arg(long, value_name = "HOST:N,...", conflicts_with = "hostfile")]
    pub hosts: Option<String>,

    /// Hosts for the self-launch from a file: one host per line as HOST, HOST:N or HOST slots=N
    /// (Open MPI's and MPICH's formats); # starts a comment. A regular file of at most 1 MiB, or -
    /// for stdin.
    #[arg(long, value_name = "FILE")]
    pub hostfile: Option<PathBuf>,

    /// Print the mpiexec command of the self-launch and start nothing.
    #[arg(long)]
    pub dry_run: bool,

    /// Process binding of the self-launch (mpiexec's --bind-to: none, core, socket, ...). Default:
    /// core when the ranks per host fit the cores, unless the environment sets a policy
    /// (OMPI_MCA_hwloc_base_binding_policy, HYDRA_BINDING), which wins.
    #[arg(long, value_name = "POLICY", allow_negative_numbers = true, value_parser = bind_policy)]
    pub bind_to: Option<String>,
}

/// The stall limit and the disturbance factor.
#[derive(Debug, Clone, Args, Default)]
pub struct Guards {
    /// Stall limit S in seconds (default 60; 0 turns it off). Every rank watches itself: it is
    /// stalled when it finishes no repetition for max(S, 20 x its slowest repetition so far in
    /// the benchmark), or, waiting outside the group of a point, for twice the point's expected
    /// time plus S. The stalled rank names the benchmark, size, process count and hosts, rank 0
    /// marks the JSON "aborted" (the finished benchmarks kept), and every rank ends its process
    /// with exit code 3 after a short grace for MPI_Abort.
    #[arg(long, value_name = "S", allow_negative_numbers = true)]
    pub stall_limit: Option<f64>,

    /// Disturbed measurements, with loop timing: F (default 100; 0 turns it off). The pace p of
    /// a point is its typical time per repetition (the median of its timed batches; with one or
    /// two, the faster, or the warm-up's if faster still). A batch of n repetitions that took d is
    /// disturbed when d - n*p is at least F*p and d is at least 3*n*p (or, among three batches or
    /// more, its time per repetition is twice every other's): relative to the paces, never
    /// absolute times. A disturbed point is measured again (up to 3 times, while their clean
    /// time fits in --time); where the stall stays, the row has "disturbed": true and a note
    /// with its size.
    #[arg(long, value_name = "F", allow_negative_numbers = true)]
    pub disturbance_factor: Option<f64>,
}

/// The process counts and message lengths of the sweep.
#[derive(Debug, Clone, Args, Default)]
pub struct Sweep {
    /// Smallest process count of the sweep (PMB -npmin).
    #[arg(long, value_name = "P", allow_negative_numbers = true, value_parser = at_least_1)]
    pub npmin: Option<usize>,

    /// Run the Multi- versions: disjoint groups run at once; the maximum over groups is reported.
    #[arg(long)]
    pub multi: bool,

    /// With --multi, show every group's figures as well.
    #[arg(long)]
    pub multi_detail: bool,

    /// Message lengths 0 and 2^A..2^B bytes ("A:B"), or 0 and 2^0..2^B ("B").
    #[arg(long, value_name = "A:B", conflicts_with = "sizes")]
    pub msglog: Option<String>,

    /// Comma-separated message lengths in bytes, with K/M/G suffixes (powers of 1024).
    #[arg(long, value_name = "LIST")]
    pub sizes: Option<String>,
}

/// Fixed repetition counts: per length, of the list, of launches, of delay subtraction.
#[derive(Debug, Clone, Args, Default)]
pub struct Counts {
    /// Fixed number of repetitions per message length (MPITEST's T).
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = at_least_1)]
    pub iter: Option<usize>,

    /// Fixed repetitions of fast constructs (MPITEST's t: TIMING, BARRIER, SIGNAL SENDING).
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = at_least_1)]
    pub fast_iter: Option<usize>,

    /// Run the whole list of benchmarks R times (MPITEST's R); an aggregate follows.
    #[arg(long, value_name = "R", allow_negative_numbers = true, value_parser = at_least_1)]
    pub repeats: Option<usize>,

    /// Run the benchmarks in N separate launches (mpiexec or srun calls, when mpibench launches
    /// itself) and combine them: each row is the median of the launch medians, with a
    /// between-launch CI.
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = at_least_1)]
    pub launches: Option<usize>,

    /// Inner repetitions of delay subtraction (--timing delay-subtraction; default 200).
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = at_least_1)]
    pub inner: Option<usize>,

    /// Outer repetitions (samples) of delay subtraction (default 100).
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = at_least_1)]
    pub outer: Option<usize>,

    /// The calibrated delay of delay subtraction in microseconds (coarray sync overheads; default 10).
    #[arg(long, value_name = "US", allow_negative_numbers = true)]
    pub delay_us: Option<f64>,
}

/// How one-sided benchmarks make and synchronise their windows.
#[derive(Debug, Clone, Args, Default)]
pub struct Windows {
    /// How one-sided benchmarks make their windows: create (MPI_Win_create, default), allocate,
    /// dynamic; a comma-separated list runs each.
    #[arg(long, value_enum, value_delimiter = ',', value_name = "KINDS")]
    pub window: Vec<WindowKind>,

    /// How one-sided benchmarks synchronise: lockall (default), fence, pscw; a comma-separated
    /// list runs each.
    #[arg(long, value_enum, value_delimiter = ',', value_name = "MODES")]
    pub rma_sync: Vec<RmaSync>,
}

/// The root of rooted collectives.
#[derive(Debug, Clone, Args, Default)]
pub struct Roots {
    /// Rotate the root of rooted collectives every repetition (PMB §5.2.7).
    #[arg(long)]
    pub root_shift: bool,

    /// Root of rooted collectives (default 0; with --root-shift the roots rotate from it).
    #[arg(long, value_name = "R", allow_negative_numbers = true, value_parser = at_least_0)]
    pub root: Option<usize>,
}

/// The classic definitions' knobs (their suite's heading comes from the registry) and the volume cap.
#[derive(Debug, Clone, Args, Default)]
pub struct Knobs {
    /// Whose definitions the imb benchmarks follow: PMB-MPI1 v2.2 (pmb) or IMB-MPI1 2021 (imb2021).
    #[arg(long, value_enum, value_name = "DEFS")]
    pub definitions: Option<crate::contract::Definitions>,

    /// IMB -sync (with --definitions imb2021): synchronise collectives before every call (on) or once (off).
    #[arg(long = "imb-sync", value_name = "on|off", value_parser = on_off)]
    pub call_sync: Option<bool>,

    /// IMB -off_cache: cold data every repetition, in buffers of twice CACHE_MB (-1: 8 MB, 64-byte lines).
    #[arg(long, value_name = "CACHE_MB[,LINE]", allow_negative_numbers = true)]
    pub off_cache: Option<String>,

    /// IMB -window_size: messages per window of Uniband and Biband (default 256 with
    /// --definitions imb2021, as IMB 2021.2 and later; 64 with pmb, as IMB 4.1 to 2021.1).
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = window_size)]
    pub imb_window: Option<usize>,

    /// IMB -msg_pause: after each message length every rank sleeps a tenth of the time it
    /// spent measuring that length (at least 0.1 s), outside every timed region.
    #[arg(long)]
    pub msg_pause: bool,

    /// IMB iteration policy: dynamic (volume and --time caps), off (always --max-iter), multiple-np, auto.
    #[arg(long, value_enum, value_name = "POLICY")]
    pub iter_policy: Option<crate::contract::IterPolicy>,

    /// A volume in bytes: IMB's most bytes per message length before repetitions are reduced
    /// (OVERALL_VOL; default 40M); COMMTEST's total V of each experiment (default 2M). A bare
    /// number is MiB; else K/M/G/B suffixes (powers of 1024).
    #[arg(long, value_name = "MIB|SIZE", allow_negative_numbers = true, value_parser = volume)]
    pub volume: Option<usize>,
}

/// The element types and derived datatype of the messages.
#[derive(Debug, Clone, Args, Default)]
pub struct Types {
    /// Element types of the messages: char, int, float; a comma-separated list runs each (OSU -T;
    /// default: each benchmark's own).
    #[arg(long, value_enum, value_delimiter = ',', value_name = "TYPES")]
    pub datatype: Vec<crate::bench::datatype::Datatype>,

    /// A derived datatype for every message (OSU -D): cont, vect:STRIDE:BLOCK (N/STRIDE blocks
    /// of BLOCK elements, STRIDE apart) or indx:FILE (lines DISPLACEMENT,BLOCKLENGTH); not with
    /// --check.
    #[arg(long, value_name = "SPEC")]
    pub derived: Option<String>,
}

/// The results files and the tables' destination.
#[derive(Debug, Clone, Args, Default)]
pub struct Outputs {
    /// Write results as JSON ("-" for stdout), rewritten atomically after each benchmark.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,

    /// Write results as CSV ("-" for stdout).
    #[arg(long, value_name = "FILE")]
    pub csv: Option<PathBuf>,

    /// Write a self-contained HTML report (plots, tables, warnings), rewritten after each benchmark.
    #[arg(long, value_name = "FILE")]
    pub report: Option<PathBuf>,

    /// Write the tables to FILE instead of stdout.
    #[arg(long, value_name = "FILE")]
    pub output: Option<PathBuf>,

    /// Keep the run in a history at its end: an SQLite file (created if missing) or a
    /// PostgreSQL URL (postgres://USER@HOST/DB); a run that ended aborted is kept as aborted.
    /// `mpibench history check` finds the steps in its series (docs/history.md).
    #[arg(long, value_name = "FILE|URL")]
    pub history: Option<String>,
}

/// How processes are synchronised and timed, and adaptive repetitions.
#[derive(Debug, Clone, Args, Default)]
pub struct Measure {
    /// How processes are synchronised before timing (default: the suite's; barrier for imb).
    #[arg(long, value_enum, value_name = "MODE")]
    pub sync: Option<SyncMode>,

    /// Timing method (default: the suite's; loop for imb, mpitest for mpitest).
    #[arg(long, value_enum, value_name = "METHOD")]
    pub timing: Option<Method>,

    /// With --sync window: the initial start window per call in microseconds (default: from the warm-up).
    #[arg(long, value_name = "US", allow_negative_numbers = true)]
    pub window_us: Option<f64>,

    /// Adaptive repetitions: repeat until the 95% CI of the median is within ±R of it (e.g. 0.02).
    #[arg(long, value_name = "R", allow_negative_numbers = true)]
    pub precision: Option<f64>,

    /// Fewest repetitions per message length (default 1; 10 with --precision).
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = at_least_1)]
    pub min_iter: Option<usize>,

    /// Most repetitions per message length (default 1000, IMB; 100000 with --precision).
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = at_least_1)]
    pub max_iter: Option<usize>,
}

/// The memory limit and the timeout.
#[derive(Debug, Clone, Args, Default)]
pub struct Limits {
    /// Memory limit per rank in GiB for buffers and samples (default: 80% of the node's available memory / ranks per node, at most half of ulimit -v).
    #[arg(long, value_name = "GIB", allow_negative_numbers = true)]
    pub mem: Option<f64>,

    /// Abort the job (MPI_Abort) when one benchmark runs longer than this many seconds.
    #[arg(long, value_name = "SECONDS", allow_negative_numbers = true)]
    pub timeout: Option<f64>,

    /// The C library's allocator on every rank. default (the default): glibc's thresholds as
    /// they are, as IMB and OSU run, so a figure compares with theirs. stable: fixed before MPI
    /// starts (mmap threshold 32 MiB, trim threshold 1 GiB), so that a library's temporary
    /// buffers reuse mapped pages and a figure no longer depends on the allocation history. Rows
    /// whose timed region page-faults once per repetition or more are flagged either way.
    #[arg(long, value_enum, value_name = "MODE")]
    pub malloc: Option<MallocArg>,
}

/// Test hooks (hidden).
#[derive(Debug, Clone, Args, Default)]
pub struct Hooks {
    /// Test hook: corrupt one received byte so that --check must report it.
    #[arg(long, hide = true)]
    pub corrupt: bool,

    /// Test hook: this rank reports a failed buffer allocation.
    #[arg(long, hide = true, value_name = "RANK", allow_negative_numbers = true, value_parser = at_least_0)]
    pub fail_alloc_rank: Option<usize>,

    /// Test hook: this rank makes an invalid MPI call (to a rank that does not exist).
    #[arg(long, hide = true, value_name = "RANK", allow_negative_numbers = true, value_parser = at_least_0)]
    pub fail_mpi_rank: Option<usize>,

    /// Test hook: this rank makes a setup call MPI refuses (a datatype of count -1) while it builds a kernel.
    #[arg(long, hide = true, value_name = "RANK", allow_negative_numbers = true, value_parser = at_least_0)]
    pub fail_mpi_setup_rank: Option<usize>,

    /// Test hook: every rank touches N fresh pages per repetition inside each timed batch.
    #[arg(long, hide = true, value_name = "N", value_parser = at_least_0)]
    pub test_fresh_pages: Option<usize>,
}

/// The scenarios of imbalance: delayed participants and computation (their suite's heading comes from the registry).
#[derive(Debug, Clone, Args, Default)]
pub struct Imbalance {
    /// CRESTA: the scenarios to run, e.g. 1,3 (default 1,2,3; 1 always runs with 2 or 3, as their reference).
    #[arg(long, value_name = "LIST", allow_negative_numbers = true)]
    pub scenarios: Option<String>,

    /// CRESTA scenario 2: smallest t_delay in microseconds; t_delay sweeps powers of two up to --delay-max (default 16).
    #[arg(long, value_name = "US", allow_negative_numbers = true)]
    pub delay_min: Option<f64>,

    /// CRESTA scenario 2: largest t_delay in microseconds (default 1024).
    #[arg(long, value_name = "US", allow_negative_numbers = true)]
    pub delay_max: Option<f64>,

    /// CRESTA scenario 3: smallest t_calc in microseconds; t_calc sweeps powers of two up to --calc-max (default 16).
    #[arg(long, value_name = "US", allow_negative_numbers = true)]
    pub calc_min: Option<f64>,

    /// CRESTA scenario 3: largest t_calc in microseconds (default 1024).
    #[arg(long, value_name = "US", allow_negative_numbers = true)]
    pub calc_max: Option<f64>,

    /// CRESTA scenario 2: the delayed participant D: first, last or a rank from 0 (default first).
    #[arg(long, value_name = "first|last|RANK", allow_negative_numbers = true)]
    pub delayed: Option<String>,
}

/// Plots written after the run.
#[derive(Debug, Clone, Args, Default)]
pub struct Figures {
    /// Draw CRESTA's Figure 1 as SVG: T against ranks (log axis), average with min-max bars.
    #[arg(long, value_name = "FILE.svg")]
    pub plot: Option<PathBuf>,

    /// After the run, write one SVG plot per figure into DIR (as `mpibench plot`; any suite).
    #[arg(long, value_name = "DIR")]
    pub plots: Option<PathBuf>,
}

/// What only front ends set (no flag of `mpibench run`).
#[derive(Debug, Clone, Default)]
pub struct FrontSet {
    /// Set by front ends: CRESTA's delay_P, the seed's number of the delayed
    /// participant, from 1 (1 = the first, P_max = the last); `--delayed`
    /// takes precedence.
    pub delay_p: Option<String>,

    /// Set by front ends: how the user spelled the options a front end set
    /// (mpibench's spelling, the user's), so that usage errors speak the
    /// front end's syntax ([`crate::plan::speak`]).
    pub spelling: Vec<(String, String)>,

    /// Set by front ends: the buffer limit per rank in bytes (MPITEST's b).
    pub buffer_bytes: Option<u64>,

    /// Set by front ends with `buffer_bytes`: the flag that set it, as the
    /// front end spells it, for the messages of points it refuses.
    pub buffer_flag: Option<&'static str>,

    /// Set by front ends: print the front end's parameter line in the table header.
    pub frontend: Option<String>,

    /// Set by front ends: axes of the plan by name, one value each, for
    /// options of a suite that has no `mpibench run` flag of its own
    /// (IMB-P2P's -pause); its benchmarks read them from their points.
    pub front_axes: Vec<(String, f64)>,

    /// Set by front ends: the table format to print (e.g. imb2021) instead of the suite's.
    pub table: Option<String>,

    /// Set by front ends whose programs fail when they cannot run (OSU's exit
    /// with an error on too few processes): a benchmark that cannot run on
    /// this world is a usage error instead of a skipped row.
    pub refuse_skips: bool,

    /// Set by front ends: the files their flags read (IMB's -msglen and
    /// -input), as (flag, path), which no output may overwrite.
    pub read_files: Vec<(&'static str, PathBuf)>,

    /// Set by front ends: the element type of reductions where it is not
    /// `--datatype`'s (IMB's `-red_data_type`).
    pub reduction_datatype: Option<crate::bench::datatype::Datatype>,

    /// Set by front ends (IMB's `-map PxQ`): P x Q ranks renumbered so that
    /// consecutive new ranks lie P apart ("inter node first").
    pub rank_grid: Option<(usize, usize)>,

    /// Set by `mpibench imb`: an npmin above the process count runs on all
    /// processes (IMB), instead of being a usage error (`--npmin`).
    pub npmin_up_to_world: bool,
}

/// The values of `--malloc`: the C library's allocator as it is, or with
/// fixed thresholds (`sys::stable_malloc`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum MallocArg {
    #[default]
    Default,
    Stable,
}

impl MallocArg {
    pub fn name(self) -> &'static str {
        match self {
            MallocArg::Default => "default",
            MallocArg::Stable => "stable",
        }
    }
}

/// The values of `--pairs`: where partners run (`any`, `inter`, `intra`), or
/// COMMTEST's "all nodes or node zero only" (`all`, `zero`, the seed's words,
/// the same as `--communicating`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum PairsArg {
    #[default]
    Any,
    Inter,
    Intra,
    All,
    Zero,
}

impl PairsArg {
    /// The host placement it asks for (`any` for COMMTEST's words).
    pub fn host(self) -> Pairs {
        match self {
            PairsArg::Inter => Pairs::Inter,
            PairsArg::Intra => Pairs::Intra,
            _ => Pairs::Any,
        }
    }
}

impl RunArgs {
    /// Every option that names an output: the one list that the same-file
    /// and writability checks go through. A new output option joins them by
    /// adding its entry here.
    pub fn outputs(&self) -> Vec<crate::files::Output<'_>> {
        use crate::files::Output;
        let files = [
            ("--json", &self.out.json),
            ("--csv", &self.out.csv),
            ("--raw", &self.raw),
            ("--output", &self.out.output),
            ("--report", &self.out.report),
            ("--plot", &self.figures.plot),
        ]
        .into_iter()
        .filter_map(|(flag, p)| Some(Output::file(flag, p.as_deref()?)));
        let dirs = self
            .figures
            .plots
            .as_deref()
            .map(|p| Output::dir("--plots", p));
        files.chain(dirs).collect()
    }

    /// Every file the run reads, as (flag, path): no output may be one of them.
    pub fn inputs(&self) -> Vec<(&'static str, &std::path::Path)> {
        // `--derived indx:FILE` (OSU's -D): rank 0 reads the index file.
        let index = self.types.derived.as_deref().and_then(|d| {
            d.get(..5)
                .filter(|p| p.eq_ignore_ascii_case("indx:"))
                .map(|_| ("--derived indx:", std::path::Path::new(&d[5..])))
        });
        self.launch
            .hostfile
            .as_deref()
            .map(|p| ("--hostfile", p))
            .into_iter()
            .chain(index)
            .chain(self.front.read_files.iter().map(|(f, p)| (*f, p.as_path())))
            .collect()
    }
}

/// A whole number with its valid range in the message (negative numbers
/// reach here instead of looking like unknown options).
fn count(s: &str, min: usize) -> Result<usize, String> {
    match s.trim().parse::<i128>() {
        Ok(n) if n >= min as i128 && n <= usize::MAX as i128 => Ok(n as usize),
        Ok(n) if n < min as i128 => Err(format!("must be a whole number from {min} up")),
        Ok(_) => Err(format!("is too large (at most {})", usize::MAX)),
        Err(_) => Err(format!("must be a whole number from {min} up")),
    }
}

pub(crate) fn at_least_0(s: &str) -> Result<usize, String> {
    count(s, 0)
}

pub(crate) fn at_least_1(s: &str) -> Result<usize, String> {
    count(s, 1)
}

/// The most messages per window of Uniband and Biband (IMB -window_size).
pub const MAX_IMB_WINDOW: usize = 1 << 20;

/// `--imb-window` / IMB's `-window_size`: 1 ..= [`MAX_IMB_WINDOW`].
pub fn window_size(s: &str) -> Result<usize, String> {
    match s.trim().parse::<i128>() {
        Ok(n) if (1..=MAX_IMB_WINDOW as i128).contains(&n) => Ok(n as usize),
        _ => Err(format!(
            "must be a whole number of messages from 1 to {MAX_IMB_WINDOW}"
        )),
    }
}

/// `--volume`: a bare number is MiB (IMB's unit), else a size (64K, 2M, 1000B).
fn volume(s: &str) -> Result<usize, String> {
    let t = s.trim();
    if t.starts_with('-') {
        return Err(format!(
            "'{t}' is negative: a volume is a size from 0 up, in MiB or with K/M/G/B (e.g. 40, 2M)"
        ));
    }
    if !t.is_empty() && t.bytes().all(|c| c.is_ascii_digit()) {
        return t
            .parse::<usize>()
            .ok()
            .and_then(|m| m.checked_mul(1 << 20))
            .ok_or_else(|| format!("{t} MiB is too large"));
    }
    crate::units::parse_size(t).map_err(|e| e.to_string())
}

/// `--bind-to`: a policy name (mpiexec checks the rest); empty means unset.
fn bind_policy(s: &str) -> Result<String, String> {
    let t = s.trim();
    if t.is_empty() || t.starts_with(|c: char| c.is_ascii_alphabetic()) {
        Ok(t.to_string())
    } else {
        Err(format!(
            "'{t}' is not a binding policy (a name such as none, core, socket or numa)"
        ))
    }
}

/// `report -o`, `plot -o`: a path, or `-` for stdout. A name that starts
/// with '-' (`-o -1`) is more likely a slip than a file wanted by that
/// name, which `./-1` still gives.
fn out_path(s: &str) -> Result<PathBuf, String> {
    if s.starts_with('-') && s != "-" {
        return Err(format!(
            "'{s}' looks like an option or a negative number, not a path; for a path of that name write ./{s}"
        ));
    }
    Ok(PathBuf::from(s))
}

#[derive(Debug, Clone, Args)]
pub struct ReportArgs {
    /// JSON results files (several are overlaid, one colour per run): regular files of at most
    /// 256 MiB, or - for stdin.
    #[arg(value_name = "RUN.json", required = true)]
    pub files: Vec<PathBuf>,

    /// The HTML file to write ("-" for stdout).
    #[arg(short, long, value_name = "FILE", allow_negative_numbers = true, value_parser = out_path)]
    pub output: PathBuf,
}

#[derive(Debug, Clone, Args)]
pub struct PlotArgs {
    /// JSON results files (several are overlaid, one colour per run): regular files of at most
    /// 256 MiB, or - for stdin.
    #[arg(value_name = "RUN.json", required = true)]
    pub files: Vec<PathBuf>,

    /// Directory to write the plots to (created if missing).
    #[arg(short, long, value_name = "DIR", allow_negative_numbers = true, value_parser = out_path)]
    pub output: PathBuf,

    /// Write gnuplot data (.dat) and scripts (.gp) instead of SVG.
    #[arg(long)]
    pub gnuplot: bool,
}

/// The gate's rule, after `mpibench compare --help` (lines of at most 80 columns).
const COMPARE_HELP: &str = "\
--fail-if-slower PCT fails (exit 1) on every row in both runs with B/A above
1 + PCT/100 that is either
  - significantly slower: verdict \"slower\" or \"slower (within launch noise)\"
    (Mann-Whitney U on the samples, else non-overlapping 95% CIs), or
  - without a test (loop timing, the default of imb and osu, has one figure
    per rank): judged by the ratio alone, \"by ratio, no significance test\".
It judges nothing, and exits 7 with one line, when A or B is incomplete
(status running, aborted or interrupted), A or B has no result rows, A and B
share no row, or no shared row has a positive figure on both sides (above
the clock's resolution). Rows present in only one run are listed, and counted
on stderr when the gate passes. A schema other than mpibench/1, a negative
or infinite time refuse a file (exit 2); rows repeated with other figures
get a warning.

Exit codes: 0 ok (gate passed), 1 rows slower (--fail-if-slower),
2 usage error or unusable input, 3 an output could not be written,
7 the gate judged nothing.";

#[derive(Debug, Clone, Args)]
pub struct CompareArgs {
    /// The baseline run (JSON).
    #[arg(value_name = "A.json")]
    pub a: PathBuf,

    /// The run compared with it (JSON); ratios are B/A.
    #[arg(value_name = "B.json")]
    pub b: PathBuf,

    /// Exit with code 1 when any row is slower by more than PCT percent (see below).
    #[arg(long, value_name = "PCT", allow_negative_numbers = true, value_parser = non_negative)]
    pub fail_if_slower: Option<f64>,

    /// Write the comparison as JSON ("-" for stdout, instead of the table).
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,

    /// Differences within ±PCT percent are never called faster or slower.
    #[arg(
        long,
        value_name = "PCT",
        default_value = "5",
        allow_negative_numbers = true,
        value_parser = non_negative
    )]
    pub noise: f64,

    /// Significance level of the Mann-Whitney U test.
    #[arg(
        long,
        value_name = "P",
        default_value = "0.05",
        allow_negative_numbers = true,
        value_parser = probability
    )]
    pub alpha: f64,
}

/// What `mpibench history --help` adds (lines of at most 80 columns).
const HISTORY_HELP: &str = "\
A series is one case (suite, benchmark, processes, mode, size, parameters,
timing method) on one machine (processor, CPUs and NUMA nodes per host, host
count); the MPI library and its variables are not part of it, so that a step
at an upgrade or a changed OMPI_MCA_* is caught and named. Aborted or
incomplete runs are kept, never used.

Exit codes: 0 ok (history check: no regression), 2 usage error or unusable
input (a file that is no mpibench history, a newer schema: never modified),
3 a write failed, 7 history check judged nothing (too few comparable runs),
8 history check found a regression.";

#[derive(Debug, Clone, Args)]
pub struct HistoryArgs {
    #[command(subcommand)]
    pub command: HistoryCommand,
}

#[derive(Debug, Clone, Subcommand)]
pub enum HistoryCommand {
    /// Store earlier runs from their JSON files (a run stored already is kept once).
    Add {
        #[command(flatten)]
        store: HistoryStore,
        /// JSON results files: regular files of at most 256 MiB, or - for stdin.
        #[arg(value_name = "RUN.json", required = true)]
        files: Vec<PathBuf>,
    },
    /// The runs, with their contexts (machine, library, MPI variables).
    List {
        #[command(flatten)]
        store: HistoryStore,
        /// Write the list as JSON ("-" for stdout, instead of the table).
        #[arg(long, value_name = "FILE")]
        json: Option<PathBuf>,
    },
    /// The series of the cases named (all without CASE), as a table or as JSON.
    Show {
        #[command(flatten)]
        store: HistoryStore,
        #[command(flatten)]
        cases: HistoryCases,
        /// Write the series as JSON ("-" for stdout, instead of the tables).
        #[arg(long, value_name = "FILE")]
        json: Option<PathBuf>,
    },
    /// Find the steps in every series, judged against its own noise: a line per regression
    /// and improvement; exit code 8 on a regression, 7 when nothing could be judged.
    Check {
        #[command(flatten)]
        judged: HistoryJudged,
        /// Write the verdicts as JSON ("-" for stdout, instead of the lines).
        #[arg(long, value_name = "FILE")]
        json: Option<PathBuf>,
    },
    /// Write the trend of every case as a self-contained HTML page (inline SVG, no scripts):
    /// each run's figure with its CI, the fitted levels and the change points.
    Report {
        #[command(flatten)]
        judged: HistoryJudged,
        /// The HTML file to write ("-" for stdout).
        #[arg(short, long, value_name = "FILE", allow_negative_numbers = true, value_parser = out_path)]
        output: PathBuf,
    },
}

/// The history, the cases and the rules of `check` and `report`.
#[derive(Debug, Clone, Args)]
pub struct HistoryJudged {
    #[command(flatten)]
    pub store: HistoryStore,
    #[command(flatten)]
    pub cases: HistoryCases,
    #[command(flatten)]
    pub judge: HistoryJudge,
}

/// The history a subcommand reads or writes.
#[derive(Debug, Clone, Args)]
pub struct HistoryStore {
    /// The history: an SQLite file or a PostgreSQL URL (postgres://USER@HOST/DB).
    #[arg(long, value_name = "FILE|URL", env = "MPIBENCH_HISTORY")]
    pub history: String,
}

/// The cases a subcommand reads.
#[derive(Debug, Clone, Args, Default)]
pub struct HistoryCases {
    /// Cases: [SUITE/]BENCHMARK[:SIZE][@PROCESSES], case-insensitive (PingPong, imb/Allreduce:1K@4);
    /// default every case.
    #[arg(value_name = "CASE")]
    pub cases: Vec<String>,
}

/// How `history check` (and the report's change points) judges a step.
#[derive(Debug, Clone, Copy, Args)]
pub struct HistoryJudge {
    /// Steps smaller than PCT percent are never reported, however significant.
    #[arg(long, value_name = "PCT", default_value = "5", allow_negative_numbers = true, value_parser = non_negative)]
    pub min_step: f64,

    /// A case whose run-to-run noise is above PCT percent is listed apart as unstable.
    #[arg(long, value_name = "PCT", default_value = "5", allow_negative_numbers = true, value_parser = non_negative)]
    pub max_noise: f64,

    /// Fewest comparable runs (same machine, not aborted) a case needs to be judged.
    #[arg(long, value_name = "N", default_value = "4", allow_negative_numbers = true, value_parser = at_least_4)]
    pub min_runs: usize,
}

fn at_least_4(s: &str) -> Result<usize, String> {
    count(s, 4).map_err(|e| format!("{e}: a step needs two runs on each side"))
}

/// IMB's switches: on|yes|enable|1 or off|no|disable|0.
pub fn on_off(s: &str) -> Result<bool, String> {
    match s.to_ascii_lowercase().as_str() {
        "on" | "yes" | "enable" | "1" => Ok(true),
        "off" | "no" | "disable" | "0" => Ok(false),
        _ => Err(format!(
            "'{s}' is not on or off (on|yes|enable|1, off|no|disable|0)"
        )),
    }
}

fn non_negative(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(v) if v.is_finite() && v >= 0.0 => Ok(v),
        _ => Err(format!("'{s}' is not a non-negative number")),
    }
}

fn probability(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(v) if v > 0.0 && v < 1.0 => Ok(v),
        _ => Err(format!("'{s}' is not a probability between 0 and 1")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(args: &[&str]) -> Result<RunArgs, String> {
        let mut v = vec!["mpibench", "run"];
        v.extend_from_slice(args);
        match Cli::try_parse_from(v) {
            Ok(Cli {
                command: Command::Run(a),
            }) => Ok(*a),
            Ok(_) => Err("not run".into()),
            Err(e) => Err(e
                .render()
                .to_string()
                .lines()
                .next()
                .unwrap_or("")
                .to_string()),
        }
    }

    #[test]
    fn negative_numbers_get_their_range() {
        let e = run(&["--iter", "-5"]).unwrap_err();
        assert!(e.contains("from 1"), "{e}");
        let e = run(&["-n", "-1"]).unwrap_err();
        assert!(e.contains("from 1"), "{e}");
        assert!(run(&["--warmup", "-1"]).unwrap_err().contains("from 0"));
        // Floats reach the plan, which states their range.
        assert_eq!(
            run(&["--window-us", "-5"]).unwrap().measure.window_us,
            Some(-5.0)
        );
        assert_eq!(
            run(&["--precision", "-1"]).unwrap().measure.precision,
            Some(-1.0)
        );
        assert_eq!(run(&["--iter", "7"]).unwrap().reps.iter, Some(7));
        // Every other numeric option states its range too (G7).
        let e = run(&["--volume", "-3"]).unwrap_err();
        assert!(e.contains("from 0 up"), "{e}");
        let e = run(&["--min-packet", "-3"]).unwrap_err();
        assert!(e.contains("at least 1 byte"), "{e}");
        let e = run(&["--bind-to", "-3"]).unwrap_err();
        assert!(e.contains("not a binding policy"), "{e}");
        assert_eq!(
            run(&["--bind-to", "core"])
                .unwrap()
                .launch
                .bind_to
                .as_deref(),
            Some("core")
        );
        // The plan names the scenarios' range (1, 2 or 3).
        assert_eq!(
            run(&["--scenarios", "-3"])
                .unwrap()
                .imbalance
                .scenarios
                .as_deref(),
            Some("-3")
        );
        let other = |args: &[&str]| {
            let mut v = vec!["mpibench"];
            v.extend_from_slice(args);
            Cli::try_parse_from(v)
                .map(|_| String::new())
                .unwrap_or_else(|e| e.render().to_string())
        };
        for (args, want) in [
            (&["compare", "a", "b", "--noise", "-5"][..], "non-negative"),
            (&["compare", "a", "b", "--alpha", "-1"], "between 0 and 1"),
            (
                &["compare", "a", "b", "--fail-if-slower", "-5"],
                "non-negative",
            ),
            (&["report", "a.json", "-o", "-1"], "./-1"),
            (&["plot", "a.json", "-o", "-5"], "./-5"),
        ] {
            let e = other(args);
            assert!(e.contains(want), "{args:?}: {e}");
            assert!(!e.contains("unexpected argument"), "{args:?}: {e}");
        }
        assert_eq!(other(&["report", "a.json", "-o", "-"]), "", "- is stdout");
    }

    #[test]
    fn outputs_are_one_list() {
        let a = run(&["--json", "a", "--raw", "-", "--plots", "d"]).unwrap();
        let o: Vec<_> = a.outputs().iter().map(|o| (o.flag, o.dir)).collect();
        assert_eq!(
            o,
            vec![("--json", false), ("--raw", false), ("--plots", true)]
        );
        let a = run(&["--hostfile", "h"]).unwrap();
        assert_eq!(a.inputs(), vec![("--hostfile", std::path::Path::new("h"))]);
    }
}

/// A suite's own options of `mpibench run`: a clap `Args` type in the
/// suite's folder, kept in [`RunArgs::suites`] by its type.
pub trait OwnOptions: Any + std::fmt::Debug + Send + Sync {
    fn clone_box(&self) -> Box<dyn OwnOptions>;
    fn as_any(&self) -> &dyn Any;
    fn as_any_mut(&mut self) -> &mut dyn Any;
}

impl<T: Any + std::fmt::Debug + Clone + Send + Sync> OwnOptions for T {
    fn clone_box(&self) -> Box<dyn OwnOptions> {
        Box::new(self.clone())
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }
}

impl Clone for Box<dyn OwnOptions> {
    fn clone(&self) -> Self {
        (**self).clone_box()
    }
}

/// How a suite's options join `mpibench run`'s: their arguments, and
/// their values from the parsed command line (over what a front end set).
#[derive(Clone, Copy)]
pub struct OptionsHook {
    pub augment: fn(clap::Command) -> clap::Command,
    pub update: fn(&mut SuiteOptions, &ArgMatches) -> Result<(), clap::Error>,
}

impl OptionsHook {
    /// The hook of the options type `T`.
    pub const fn of<T: Args + FromArgMatches + OwnOptions + Default>() -> OptionsHook {
        OptionsHook {
            augment: T::augment_args,
            update: update_own::<T>,
        }
    }
}

fn update_own<T: FromArgMatches + OwnOptions + Default>(
    own: &mut SuiteOptions,
    m: &ArgMatches,
) -> Result<(), clap::Error> {
    own.get_mut::<T>().update_from_arg_matches(m)
}

static SUITE_OPTIONS: OnceLock<Vec<OptionsHook>> = OnceLock::new();

/// The suites' options, from the registry, once before any parsing.
pub fn set_suite_options(hooks: Vec<OptionsHook>) {
    let _ = SUITE_OPTIONS.set(hooks);
}

fn suite_options() -> &'static [OptionsHook] {
    #[cfg(test)]
    SUITE_OPTIONS.get_or_init(crate::plugin::lookup::option_hooks);
    SUITE_OPTIONS.get().map_or(&[], Vec::as_slice)
}

/// Every suite's own options of a run, each by its type ([`OwnOptions`]).
#[derive(Debug, Clone, Default)]
pub struct SuiteOptions(Vec<Box<dyn OwnOptions>>);

impl SuiteOptions {
    /// The suite's options of type `T` (their defaults when none were parsed).
    pub fn get<T: OwnOptions + Clone + Default>(&self) -> Cow<'_, T> {
        self.0
            .iter()
            .find_map(|o| (**o).as_any().downcast_ref::<T>())
            .map_or_else(|| Cow::Owned(T::default()), Cow::Borrowed)
    }

    /// The suite's options of type `T`, to set (a front end's).
    pub fn get_mut<T: OwnOptions + Default>(&mut self) -> &mut T {
        let at = match self.0.iter().position(|o| (**o).as_any().is::<T>()) {
            Some(i) => i,
            None => {
                self.0.push(Box::new(T::default()));
                self.0.len() - 1
            }
        };
        (*self.0[at])
            .as_any_mut()
            .downcast_mut::<T>()
            .expect("found by its type")
    }
}

impl Args for SuiteOptions {
    fn augment_args(cmd: clap::Command) -> clap::Command {
        suite_options().iter().fold(cmd, |c, h| (h.augment)(c))
    }
    fn augment_args_for_update(cmd: clap::Command) -> clap::Command {
        Self::augment_args(cmd)
    }
}

impl FromArgMatches for SuiteOptions {
    fn from_arg_matches(m: &ArgMatches) -> Result<Self, clap::Error> {
        let mut own = SuiteOptions::default();
        own.update_from_arg_matches(m)?;
        Ok(own)
    }
    fn update_from_arg_matches(&mut self, m: &ArgMatches) -> Result<(), clap::Error> {
        suite_options().iter().try_for_each(|h| (h.update)(self, m))
    }
}
