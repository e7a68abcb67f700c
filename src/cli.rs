//! Command-line definitions (clap). Parsing happens on every rank before
//! MPI starts; only rank 0's plan is used (see `plan`). The suites' own
//! command lines (MPITEST's letters, ...) are front ends in `frontend/` that
//! produce the same [`RunArgs`].

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

pub use crate::method::{Method, SyncMode};

#[derive(Debug, Parser)]
#[command(
    name = "mpibench",
    version,
    about = "MPI benchmarks: PMB-MPI1, MPITEST and more, with validation, statistics and JSON/CSV output",
    after_help = "Run under mpiexec/srun, or let `mpibench run -n N` launch its own local ranks.\n\
                  Exit codes: 0 ok, 1 validation errors, 2 usage errors, 3 a benchmark aborted (MPI error, rank failure, --timeout)."
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// List every benchmark with its suite, minimum ranks and description.
    List {
        /// Only this suite.
        #[arg(long)]
        suite: Option<String>,
    },
    /// Run benchmarks (default: the whole PMB-MPI1 suite).
    #[command(after_help = crate::suite::defaults_help())]
    Run(Box<RunArgs>),
    /// MPITEST's own command line: mpibench mpitest m1 M100 K10 T100 t100000 R2 otransfer.dat
    #[command(
        disable_help_flag = true,
        after_help = crate::frontend::mpitest::HELP
    )]
    Mpitest {
        /// MPITEST parameters (m, M, K, T, t, R, b, o) and mpibench options (-n, --json, --check, ...).
        #[arg(
            trailing_var_arg = true,
            allow_hyphen_values = true,
            value_name = "PARAM"
        )]
        params: Vec<String>,
    },
    /// COMMTEST's inputs by name: mpibench commtest volume=2M minpacket=2K iterations=20 protocols=all swap distance=1 all
    #[command(
        disable_help_flag = true,
        after_help = crate::frontend::commtest::HELP
    )]
    Commtest {
        /// COMMTEST inputs (NAME=VALUE and words) and mpibench options (-n, --json, --check, ...).
        #[arg(
            trailing_var_arg = true,
            allow_hyphen_values = true,
            value_name = "INPUT"
        )]
        params: Vec<String>,
    },
}

/// COMMTEST's two programs: the basic exchange, and receives preposted one message ahead.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Prepost {
    Off,
    On,
    Both,
}

/// COMMTEST: every pair (cycle) at once, or node zero and its partners only.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Pairs {
    All,
    Zero,
}

fn parse_bytes(s: &str) -> Result<usize, String> {
    crate::plan::parse_size(s).map_err(|e| e.to_string())
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

    /// Number of local ranks when mpibench launches itself (ignored under a launcher).
    #[arg(short = 'n', long = "np", value_name = "N")]
    pub np: Option<usize>,

    /// mpiexec to launch local ranks with (default: the one matching the linked MPI library).
    #[arg(long, value_name = "PATH", env = "MPIBENCH_MPIEXEC")]
    pub mpiexec: Option<String>,

    /// Smallest process count of the sweep (PMB -npmin).
    #[arg(long, value_name = "P")]
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

    /// Fixed number of repetitions per message length (MPITEST's T).
    #[arg(long, value_name = "N")]
    pub iter: Option<usize>,

    /// Fixed repetitions of fast constructs (MPITEST's t: TIMING, BARRIER, SIGNAL SENDING).
    #[arg(long, value_name = "N")]
    pub fast_iter: Option<usize>,

    /// Run the whole list of benchmarks R times (MPITEST's R); an aggregate follows.
    #[arg(long, value_name = "R")]
    pub repeats: Option<usize>,

    /// Inner repetitions of delay subtraction (--timing delay-subtraction; default 200).
    #[arg(long, value_name = "N")]
    pub inner: Option<usize>,

    /// Time cap per message length in seconds (repetitions are reduced to fit).
    #[arg(
        long,
        value_name = "S",
        default_value = "10",
        allow_negative_numbers = true
    )]
    pub time: f64,

    /// Warm-up repetitions per message length (default: a tenth of the repetitions, 2..100).
    #[arg(long, value_name = "N")]
    pub warmup: Option<usize>,

    /// Rotate the root of rooted collectives every repetition (PMB §5.2.7).
    #[arg(long)]
    pub root_shift: bool,

    /// Validate every transfer (outside the timed region); errors give exit code 1.
    #[arg(long)]
    pub check: bool,

    /// Write results as JSON ("-" for stdout), rewritten atomically after each benchmark.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,

    /// Write results as CSV ("-" for stdout).
    #[arg(long, value_name = "FILE")]
    pub csv: Option<PathBuf>,

    /// Write the tables to FILE instead of stdout.
    #[arg(long, value_name = "FILE")]
    pub output: Option<PathBuf>,

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
    #[arg(long, value_name = "N")]
    pub min_iter: Option<usize>,

    /// Most repetitions per message length (default 1000, IMB; 100000 with --precision).
    #[arg(long, value_name = "N")]
    pub max_iter: Option<usize>,

    /// Show the median, its 95% CI and outlier counts in the tables.
    #[arg(long)]
    pub stats: bool,

    /// Write every per-call sample as CSV (rank, benchmark, size, repetition, start, end).
    #[arg(long, value_name = "FILE")]
    pub raw: Option<PathBuf>,

    /// Memory limit per rank in GiB (default: 80% of the node's available memory / ranks per node).
    #[arg(long, value_name = "GIB", allow_negative_numbers = true)]
    pub mem: Option<f64>,

    /// Abort the job (MPI_Abort) when one benchmark runs longer than this many seconds.
    #[arg(long, value_name = "SECONDS", allow_negative_numbers = true)]
    pub timeout: Option<f64>,

    /// With --check: stop at the first validation error, naming the rank.
    #[arg(long)]
    pub strict: bool,

    /// No progress lines on stderr.
    #[arg(short, long)]
    pub quiet: bool,

    /// COMMTEST: total volume V of each experiment in bytes, with K/M/G suffixes (default 2M; --sizes gives several).
    #[arg(long, value_name = "BYTES", value_parser = parse_bytes, conflicts_with_all = ["sizes", "msglog"])]
    pub volume: Option<usize>,

    /// COMMTEST: the minimum packet length: V goes as 1, 2, 4, ... packets down to it (default 2K).
    #[arg(long, value_name = "BYTES", value_parser = parse_bytes)]
    pub min_packet: Option<usize>,

    /// COMMTEST: the prepost program (receives posted one message ahead): --prepost, --prepost=both, --prepost=off (default off).
    #[arg(
        long,
        value_enum,
        value_name = "WHICH",
        num_args = 0..=1,
        require_equals = true,
        default_missing_value = "on"
    )]
    pub prepost: Option<Prepost>,

    /// COMMTEST: partner distance d: SWAP pairs r with r XOR d; SENDRECV sends to r+d, receives from r-d (default 1).
    #[arg(long, value_name = "D")]
    pub distance: Option<usize>,

    /// COMMTEST: all pairs (cycles) at once, or node zero and its partners only (default all).
    #[arg(long, value_enum, value_name = "WHO")]
    pub pairs: Option<Pairs>,

    /// COMMTEST: protocols, e.g. "(0,3),(1,0)", "0.3,1.10", "unordered", "ordered" (default all 21).
    #[arg(long, value_name = "LIST", value_parser = crate::bench::commtest::protocol::parse_list)]
    pub protocols: Option<crate::bench::commtest::protocol::Codes>,

    /// ALLREDUCE: algorithms, e.g. "mpi,ring,rabenseifner" (default all five).
    #[arg(long, value_name = "LIST", value_parser = crate::bench::allreduce::parse_list)]
    pub algorithms: Option<crate::bench::allreduce::Algorithms>,

    /// Test hook: corrupt one received byte so that --check must report it.
    #[arg(long, hide = true)]
    pub corrupt: bool,

    /// Test hook: this rank reports a failed buffer allocation.
    #[arg(long, hide = true, value_name = "RANK")]
    pub fail_alloc_rank: Option<usize>,

    /// Test hook: this rank makes an invalid MPI call (to a rank that does not exist).
    #[arg(long, hide = true, value_name = "RANK")]
    pub fail_mpi_rank: Option<usize>,

    /// Set by front ends: the buffer limit per rank in bytes (MPITEST's b).
    #[arg(skip)]
    pub buffer_bytes: Option<u64>,

    /// Set by front ends: print the front end's parameter line in the table header.
    #[arg(skip)]
    pub frontend: Option<String>,
}
