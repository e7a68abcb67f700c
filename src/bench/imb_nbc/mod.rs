//! IMB-NBC 2021: the non-blocking collectives of the Intel MPI Benchmarks,
//! as `mpibench imb-nbc [IMB flags] [BENCHMARK ...]`, a link named
//! `IMB-NBC`, or `mpibench run --suite imb-nbc`.
//!
//! Each collective runs twice per length, as IMB-NBC's kernels do it:
//! alone (MPI_Ixxx; MPI_Wait), then overlapped with
//! computation for as long as it took alone (`bench::imb::overlap`). Its `_pure` variant runs only
//! the first loop and reports IMB's t_min, t_max and t_avg; the `_pure`
//! variants run only when named. Buffers, counts and validation are those
//! of the blocking collectives of IMB-MPI1 2021 (`bench::patterns`), with
//! IMB-NBC's Ireduce_scatter: X/4 MPI_FLOATs to every process.

mod front;
pub mod table;

pub use front::FAMILY;

use crate::bench::entry::Entry;
use crate::bench::imb::overlap::Nbc;
use crate::bench::{patterns, Axis, Benchmark, Info};
use crate::comm::Elem;
use crate::method::Method;
use crate::plugin::{benches, Defaults, Suite, SuiteHelp};

pub const SUITE: &str = "imb-nbc";

/// A collective of IMB-NBC: declared once, run overlapped (its plain name)
/// and alone (`_pure`).
macro_rules! collectives {
    ($($stat:ident, $info:ident, $pure:ident, $pure_info:ident, $pattern:ident,
       $name:literal, $what:literal, { $($field:ident: $value:expr),* };)*) => {
        $(
            static $info: Info = Info {
                name: $name,
                suite: SUITE,
                description: concat!($what, ", overlapped with computation (t_ovrl, t_pure, t_CPU, overlap)"),
                $($field: $value,)*
                ..Info::DEFAULT
            };
            static $pure_info: Info = Info {
                name: concat!($name, "_pure"),
                suite: SUITE,
                description: concat!($what, ", alone (MPI_Wait at once)"),
                default_in: &[],
                $($field: $value,)*
                ..Info::DEFAULT
            };
            static $stat: Nbc<patterns::$pattern> = Nbc(patterns::$pattern(&$info));
            static $pure: patterns::$pattern = patterns::$pattern(&$pure_info);
        )*
        /// IMB-NBC's order: its default list, then the `_pure` variants.
        pub fn benchmarks() -> Vec<&'static dyn Benchmark> {
            vec![$(&$stat as &dyn Benchmark),*, $(&$pure as &dyn Benchmark),*]
        }
    };
}

fn entries() -> Vec<Entry> {
    benches(benchmarks())
}

/// The suite's entry in the registry.
pub const REGISTERED: Suite = Suite {
    name: SUITE,
    title: "IMB-NBC 2021: non-blocking collectives alone and overlapped with computation",
    entries,
    // Per-call timing after a barrier; IMB's repetitions and lengths, and
    // PMB's process counts: the plain defaults.
    defaults: Defaults {
        method: Method::PerCall,
        ..Suite::PLAIN.defaults
    },
    formats: &[(SUITE, &self::table::ImbNbc)],
    help: SuiteHelp {
        heading: None,
        own: Some("mpibench imb-nbc [-npmin P] [-msglog A:B] [-iter N] [-time S] ... [BENCHMARK ...] (also as a link named IMB-NBC)"),
        example: "mpibench run -n 4 --suite imb-nbc Ibcast Iallreduce Ibarrier_pure --sizes 8,1K,64K",
    },
    front: Some(&FAMILY),
    ..Suite::PLAIN
};

const FLOATS: Elem = Elem::Float;

collectives! {
    IBCAST, IBCAST_INFO, IBCAST_PURE, IBCAST_PURE_INFO, Ibcast,
        "Ibcast", "MPI_Ibcast of X bytes from root 0", { rooted: true };
    IALLGATHER, IALLGATHER_INFO, IALLGATHER_PURE, IALLGATHER_PURE_INFO, Iallgather,
        "Iallgather", "MPI_Iallgather of X bytes from every process", {};
    IALLGATHERV, IALLGATHERV_INFO, IALLGATHERV_PURE, IALLGATHERV_PURE_INFO, Iallgatherv,
        "Iallgatherv", "MPI_Iallgatherv of X bytes from every process (equal counts)", {};
    IGATHER, IGATHER_INFO, IGATHER_PURE, IGATHER_PURE_INFO, Igather,
        "Igather", "MPI_Igather of X bytes from every process to root 0", { rooted: true };
    IGATHERV, IGATHERV_INFO, IGATHERV_PURE, IGATHERV_PURE_INFO, Igatherv,
        "Igatherv", "MPI_Igatherv of X bytes from every process to root 0 (equal counts)", { rooted: true };
    ISCATTER, ISCATTER_INFO, ISCATTER_PURE, ISCATTER_PURE_INFO, Iscatter,
        "Iscatter", "MPI_Iscatter of X bytes to every process from root 0", { rooted: true };
    ISCATTERV, ISCATTERV_INFO, ISCATTERV_PURE, ISCATTERV_PURE_INFO, Iscatterv,
        "Iscatterv", "MPI_Iscatterv of X bytes to every process from root 0 (equal counts)", { rooted: true };
    IALLTOALL, IALLTOALL_INFO, IALLTOALL_PURE, IALLTOALL_PURE_INFO, Ialltoall,
        "Ialltoall", "MPI_Ialltoall of X bytes to every process", {};
    IALLTOALLV, IALLTOALLV_INFO, IALLTOALLV_PURE, IALLTOALLV_PURE_INFO, Ialltoallv,
        "Ialltoallv", "MPI_Ialltoallv of X bytes to every process (equal counts)", {};
    IREDUCE, IREDUCE_INFO, IREDUCE_PURE, IREDUCE_PURE_INFO, Ireduce,
        "Ireduce", "MPI_Ireduce of X/4 MPI_FLOATs with MPI_SUM to root 0", { rooted: true, elem: FLOATS, reduction: true };
    IREDUCE_SCATTER, IREDUCE_SCATTER_INFO, IREDUCE_SCATTER_PURE, IREDUCE_SCATTER_PURE_INFO, IreduceScatterEach,
        "Ireduce_scatter", "MPI_Ireduce_scatter with MPI_SUM, X/4 MPI_FLOATs to every process", { elem: FLOATS, reduction: true };
    IALLREDUCE, IALLREDUCE_INFO, IALLREDUCE_PURE, IALLREDUCE_PURE_INFO, Iallreduce,
        "Iallreduce", "MPI_Iallreduce of X/4 MPI_FLOATs with MPI_SUM", { elem: FLOATS, reduction: true };
    IBARRIER, IBARRIER_INFO, IBARRIER_PURE, IBARRIER_PURE_INFO, Ibarrier,
        "Ibarrier", "MPI_Ibarrier", { axis: Axis::None };
}
