//! The OSU Micro-Benchmarks (OMB 7.4) on the engine: OSU's programs under
//! their own names (`osu_latency`, `osu_bw`, ...), each with OSU's
//! definition (pattern, placement, timing, iterations) and its own title
//! and columns (`table.rs`). `mpibench osu PROGRAM [OSU flags]`
//! (`front.rs`) turns OSU's command line into a run of this suite.
//!
//! Units: OSU's MB is 10^6 bytes (PMB's is 2^20).

use crate::bench::entry::Entry;
use crate::bench::{Benchmark, Info};
use crate::contract::axis::Axes;
use crate::contract::RepsDefault;
use crate::contract::Split;
use crate::method::{Method, SyncMode};
use crate::plugin::{benches, Defaults, ProcSweep, Suite, SuiteHelp};

pub mod args;
pub mod coll;
pub mod fan;
pub mod front;
pub mod latency_mp;
pub mod latency_mt;
pub mod nbc;
pub mod neighbor;
pub mod p2p;
pub mod pcoll;
pub mod rma;
pub mod table;

pub use args::{axes, OsuArgs, HEADING};

pub const SUITE: &str = "osu";

/// OMB's version, printed in every title.
pub const VERSION: &str = "7.4";

/// OSU's LARGE_MESSAGE_SIZE: iterations and warm-up change above it.
pub const LARGE: usize = 8192;

/// osu_latency, osu_multi_lat: 10000 iterations after 100 warm-up, 1000 after 10 above 8192 bytes.
pub const LATENCY_REPS: RepsDefault = RepsDefault::Split(Split {
    small: 10_000,
    large: 1_000,
    warm_small: 100,
    warm_large: 10,
    limit: LARGE,
});

/// osu_bw, osu_bibw, osu_mbw_mr: 100 after 10, 20 after 2 above 8192 bytes.
pub const BW_REPS: RepsDefault = RepsDefault::Split(Split {
    small: 100,
    large: 20,
    warm_small: 10,
    warm_large: 2,
    limit: LARGE,
});

/// Collectives: 1000 after 100, 100 after 10 above 8192 bytes.
pub const COLL_REPS: RepsDefault = RepsDefault::Split(Split {
    small: 1_000,
    large: 100,
    warm_small: 100,
    warm_large: 10,
    limit: LARGE,
});

/// Powers of two from 1 byte to 4 MiB (OSU's point-to-point default range).
pub const SIZES: &str =
    "1,2,4,8,16,32,64,128,256,512,1K,2K,4K,8K,16K,32K,64K,128K,256K,512K,1M,2M,4M";

pub const DEFAULTS: Defaults = Defaults {
    method: Method::Loop,
    sync: SyncMode::Barrier,
    reps: LATENCY_REPS,
    sizes: SIZES,
    procs: ProcSweep::World,
    warm_largest: 0,
};

/// OSU's window of messages in flight (osu_bw, osu_bibw, osu_mbw_mr).
pub const WINDOW: usize = 64;

/// What every OSU program shares.
pub const INFO: Info = Info {
    suite: SUITE,
    reps: Some(COLL_REPS),
    // OMB's default -T: rows carry params.datatype = "MPI_CHAR".
    datatype: Some("MPI_CHAR"),
    ..Info::DEFAULT
};

/// The kind of figures a program prints (its columns).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `Avg Latency(us)` (ping-pong: half the round trip).
    Latency,
    /// `Bandwidth (MB/s)`: X·window/t, × 2 both ways.
    Bandwidth { both: bool },
    /// `MB/s` and `Messages/s` of all pairs.
    MessageRate,
    /// `Avg Latency(us)`, with `-f` min, max and iterations.
    Collective,
    /// Overall, compute, pure communication and overlap.
    NonBlocking,
    /// One-sided: `Latency (us)` or `Bandwidth (MB/s)`, after the window and sync lines.
    OneSided { bw: bool },
    /// One-sided atomics: one element, `Latency (us)`.
    Atomic,
}

/// An OSU program: its name, its title line and its kind.
#[derive(Debug)]
pub struct Program {
    pub name: &'static str,
    pub title: &'static str,
    pub kind: Kind,
}

macro_rules! programs {
    ($($name:literal, $title:literal, $kind:expr;)*) => {
        /// Every program mpibench runs, with OSU's title.
        pub static PROGRAMS: &[Program] = &[$(Program { name: $name, title: $title, kind: $kind },)*];
    };
}

programs! {
    "osu_latency", "OSU MPI Latency Test", Kind::Latency;
    "osu_bw", "OSU MPI Bandwidth Test", Kind::Bandwidth { both: false };
    "osu_bibw", "OSU MPI Bi-Directional Bandwidth Test", Kind::Bandwidth { both: true };
    "osu_mbw_mr", "OSU MPI Multiple Bandwidth / Message Rate Test", Kind::MessageRate;
    "osu_multi_lat", "OSU MPI Multi Latency Test", Kind::Latency;
    "osu_latency_mt", "OSU MPI Multi-threaded Latency Test", Kind::Latency;
    "osu_latency_mp", "OSU MPI Multi-process Latency Test", Kind::Latency;
    "osu_latency_persistent", "OSU MPI Latency Persistent Test", Kind::Latency;
    "osu_bw_persistent", "OSU MPI Bandwidth Persistent Test", Kind::Bandwidth { both: false };
    "osu_bibw_persistent", "OSU MPI Bi-Directional Bandwidth Persistent Test", Kind::Bandwidth { both: true };
    "osu_bw_fan_in", "OSU MPI Bandwidth Test", Kind::Bandwidth { both: false };
    "osu_bw_fan_out", "OSU MPI Bandwidth Test", Kind::Bandwidth { both: false };
    "osu_allgather", "OSU MPI Allgather Latency Test", Kind::Collective;
    "osu_allgatherv", "OSU MPI Allgatherv Latency Test", Kind::Collective;
    "osu_allreduce", "OSU MPI Allreduce Latency Test", Kind::Collective;
    "osu_alltoall", "OSU MPI All-to-All Personalized Exchange Latency Test", Kind::Collective;
    "osu_alltoallv", "OSU MPI All-to-Allv Personalized Exchange Latency Test", Kind::Collective;
    "osu_alltoallw", "OSU MPI All-to-Allw Personalized Exchange Latency Test", Kind::Collective;
    "osu_barrier", "OSU MPI Barrier Latency Test", Kind::Collective;
    "osu_bcast", "OSU MPI Broadcast Latency Test", Kind::Collective;
    "osu_gather", "OSU MPI Gather Latency Test", Kind::Collective;
    "osu_gatherv", "OSU MPI Gatherv Latency Test", Kind::Collective;
    "osu_reduce", "OSU MPI Reduce Latency Test", Kind::Collective;
    "osu_reduce_scatter", "OSU MPI Reduce_scatter Latency Test", Kind::Collective;
    "osu_reduce_scatter_block", "OSU MPI Reduce_scatter_block Latency Test", Kind::Collective;
    "osu_scatter", "OSU MPI Scatter Latency Test", Kind::Collective;
    "osu_scatterv", "OSU MPI Scatterv Latency Test", Kind::Collective;
    "osu_iallgather", "OSU MPI Non-blocking Allgather Latency Test", Kind::NonBlocking;
    "osu_iallreduce", "OSU MPI Non-blocking Allreduce Latency Test", Kind::NonBlocking;
    "osu_ialltoall", "OSU MPI Non-blocking All-to-All Latency Test", Kind::NonBlocking;
    "osu_ibarrier", "OSU MPI Non-blocking Barrier Latency Test", Kind::NonBlocking;
    "osu_ibcast", "OSU MPI Non-Blocking Broadcast Latency Test", Kind::NonBlocking;
    "osu_igather", "OSU MPI Non-blocking Gather Latency Test", Kind::NonBlocking;
    "osu_ireduce", "OSU MPI Non-blocking Reduce Latency Test", Kind::NonBlocking;
    "osu_ireduce_scatter_block", "OSU MPI Non-blocking Reduce_scatter_block Latency Test", Kind::NonBlocking;
    "osu_iscatter", "OSU MPI Non-blocking Scatter Latency Test", Kind::NonBlocking;
    "osu_allgather_persistent", "OSU MPI Allgather Persistent Latency Test", Kind::Collective;
    "osu_allgatherv_persistent", "OSU MPI Allgatherv Persistent Latency Test", Kind::Collective;
    "osu_allreduce_persistent", "OSU MPI Allreduce Persistent Latency Test", Kind::Collective;
    "osu_alltoall_persistent", "OSU MPI All-to-All Personalized Exchange Persistent Latency Test", Kind::Collective;
    "osu_alltoallv_persistent", "OSU MPI All-to-Allv Personalized Exchange Persistent Latency Test", Kind::Collective;
    "osu_alltoallw_persistent", "OSU MPI All-to-Allw Personalized Exchange Persistent Latency Test", Kind::Collective;
    "osu_barrier_persistent", "OSU MPI Barrier Persistent Latency Test", Kind::Collective;
    "osu_bcast_persistent", "OSU MPI Broadcast Persistent Latency Test", Kind::Collective;
    "osu_gather_persistent", "OSU MPI Gather Persistent Latency Test", Kind::Collective;
    "osu_gatherv_persistent", "OSU MPI Gatherv Persistent Latency Test", Kind::Collective;
    "osu_reduce_persistent", "OSU MPI Reduce Persistent Latency Test", Kind::Collective;
    "osu_reduce_scatter_persistent", "OSU MPI Reduce_scatter Persistent Latency Test", Kind::Collective;
    "osu_scatter_persistent", "OSU MPI Scatter Persistent Latency Test", Kind::Collective;
    "osu_scatterv_persistent", "OSU MPI Scatterv Persistent Latency Test", Kind::Collective;
    "osu_neighbor_allgather", "OSU MPI Neighborhood Allgather Latency Test", Kind::Collective;
    "osu_neighbor_allgatherv", "OSU MPI Neighborhood Allgatherv Latency Test", Kind::Collective;
    "osu_neighbor_alltoall", "OSU MPI Neighborhood Alltoall Latency Test", Kind::Collective;
    "osu_neighbor_alltoallv", "OSU MPI Neighborhood All-to-Allv Latency Test", Kind::Collective;
    "osu_neighbor_alltoallw", "OSU MPI All-to-Allw Personalized Exchange Latency Test", Kind::Collective;
    "osu_ineighbor_allgather", "OSU MPI Non-blocking Neighborhood Allgather Latency Test", Kind::NonBlocking;
    "osu_ineighbor_allgatherv", "OSU MPI Non-blocking Neighborhood Allgatherv Latency Test", Kind::NonBlocking;
    "osu_ineighbor_alltoall", "OSU MPI Non-blocking Neighborhood Alltoall Latency Test", Kind::NonBlocking;
    "osu_ineighbor_alltoallv", "OSU MPI Non-blocking Neighborhood Alltoallv Latency Test", Kind::NonBlocking;
    "osu_ineighbor_alltoallw", "OSU MPI Non-blocking Neighborhood Alltoallw Latency Test", Kind::NonBlocking;
    "osu_iallgatherv", "OSU MPI Non-blocking Allgatherv Latency Test", Kind::NonBlocking;
    "osu_ialltoallv", "OSU MPI Non-blocking All-to-Allv Personalized Exchange Latency Test", Kind::NonBlocking;
    "osu_ialltoallw", "OSU MPI Non-blocking All-to-Allw Personalized Exchange Latency Test", Kind::NonBlocking;
    "osu_igatherv", "OSU MPI Non-blocking Gatherv Latency Test", Kind::NonBlocking;
    "osu_ireduce_scatter", "OSU MPI Non-blocking Reduce_scatter Latency Test", Kind::NonBlocking;
    "osu_iscatterv", "OSU MPI Non-blocking Scatterv Latency Test", Kind::NonBlocking;
    "osu_put_latency", "OSU MPI_Put Latency Test", Kind::OneSided { bw: false };
    "osu_get_latency", "OSU MPI_Get latency Test", Kind::OneSided { bw: false };
    "osu_put_bw", "OSU MPI_Put Bandwidth Test", Kind::OneSided { bw: true };
    "osu_get_bw", "OSU MPI_Get Bandwidth Test", Kind::OneSided { bw: true };
    "osu_put_bibw", "OSU MPI_Put Bi-directional Bandwidth Test", Kind::OneSided { bw: true };
    "osu_acc_latency", "OSU MPI_Accumulate latency Test", Kind::OneSided { bw: false };
    "osu_get_acc_latency", "OSU MPI_Get_accumulate latency Test", Kind::OneSided { bw: false };
    "osu_fop_latency", "OSU MPI_Fetch_and_op latency Test", Kind::Atomic;
    "osu_cas_latency", "OSU MPI_Compare_and_swap latency Test", Kind::Atomic;
}

/// The program of a benchmark name.
pub fn program(name: &str) -> Option<&'static Program> {
    PROGRAMS.iter().find(|p| p.name == name)
}

/// The startup programs, which time or greet MPI itself and print their own lines.
pub const STARTUP: &[&str] = &["osu_init", "osu_hello"];

/// Every OSU benchmark, in OMB's order.
pub fn benchmarks() -> Vec<&'static dyn Benchmark> {
    let mut v: Vec<&'static dyn Benchmark> = vec![
        &p2p::LATENCY,
        &p2p::BW,
        &p2p::BIBW,
        &p2p::MBW_MR,
        &p2p::MULTI_LAT,
        &latency_mt::LATENCY_MT,
        &latency_mp::LATENCY_MP,
        &p2p::LATENCY_PERSISTENT,
        &p2p::BW_PERSISTENT,
        &p2p::BIBW_PERSISTENT,
        &fan::FAN_IN,
        &fan::FAN_OUT,
    ];
    v.extend(coll::benchmarks());
    v.extend(nbc::benchmarks());
    v.extend(pcoll::benchmarks());
    v.extend(neighbor::benchmarks());
    v.extend(rma::benchmarks());
    v
}

fn entries() -> Vec<Entry> {
    benches(benchmarks())
}

/// The suite's entry in the registry.
pub const REGISTERED: Suite = Suite {
    name: SUITE,
    title: "OSU Micro-Benchmarks 7.4: point-to-point, collectives, one-sided (MB = 10^6 bytes)",
    entries,
    defaults: DEFAULTS,
    axes: Some(axes),
    formats: &[(SUITE, &table::Osu)],
    help: SuiteHelp {
        heading: Some(HEADING),
        own: Some(
            "mpibench osu PROGRAM [OSU flags] (also as a link named osu_latency, osu_bw, ...)",
        ),
        example: "mpibench run -n 2 --suite osu osu_latency osu_bw --sizes 8,1K,64K",
    },
    front: Some(&front::OSU),
    options: Some(crate::cli::OptionsHook::of::<OsuArgs>()),
    ..Suite::PLAIN
};

/// OSU's window sizes of `-V` (WINDOW_SIZES).
pub const VARIED_WINDOWS: [usize; 8] = [1, 2, 4, 8, 16, 32, 64, 128];

/// Axis names of the plan (values beyond bytes).
pub mod axis {
    pub const WINDOW: &str = "osu_window";
    pub const MULTIPLE: &str = "osu_multiple_buffers";
    pub const FULL: &str = "osu_full";
    pub const TAIL: &str = "osu_tail";
    pub const TESTS: &str = "osu_tests";
    pub const NO_RATE: &str = "osu_no_rate";
    pub const WIN: &str = "osu_win";
    pub const SYNC: &str = "osu_sync";
    pub const PAIRS: &str = "osu_pairs";
    pub const VARY_WINDOW: &str = "osu_vary_window";
    pub const SENDERS: &str = "osu_sender_threads";
    pub const RECEIVERS: &str = "osu_receiver_threads";
    /// `--iter` (OSU -i): the iterations of the non-blocking programs' pure loop.
    pub const ITER: &str = "osu_iter";
}

/// OSU's windowed figures of every row: messages/s = `factor` · W / t and
/// MB/s = that · X / 10^6, from the mean time per iteration (`factor`:
/// directions × pairs).
pub fn window_rates(r: &mut crate::results::BenchResult, factor: f64) {
    for row in &mut r.rows {
        window_rate(row, factor);
    }
}

/// [`window_rates`] of one row.
pub fn window_rate(row: &mut crate::results::Row, factor: f64) {
    let w = row
        .params
        .get("window")
        .and_then(|v| v.as_u64())
        .unwrap_or(WINDOW as u64) as f64;
    if row.t_avg_us > 0.0 {
        let msgs = factor * w / (row.t_avg_us * 1e-6);
        let mb = msgs * row.bytes as f64 / 1e6;
        row.mbytes_per_sec = Some(mb);
        // OSU -D: messages/s = bytes/s over the bytes a message transmits.
        let transmit = row.params.get("transmit_bytes").and_then(|v| v.as_f64());
        row.msg_per_sec = Some(match transmit {
            Some(t) if t > 0.0 => mb * 1e6 / t,
            _ => msgs,
        });
    }
}

/// OSU -p N on P processes: 1 <= N <= P/2 (OMB: PAIRS > P/2 is bad usage).
pub fn check_pairs(n: usize, procs: usize) -> Result<(), String> {
    if n == 0 || n > procs / 2 {
        return Err(format!(
            "-p/--osu-pairs {n}: the pairs i <-> i+{n} need 1 <= {n} <= P/2 = {} on {procs} processes",
            procs / 2
        ));
    }
    Ok(())
}

/// A single value of a plan axis.
pub fn one(axes: &Axes, name: &str) -> Option<f64> {
    axes.get(name).and_then(|v| v.first().copied())
}
