//! IMB-MPI4 2021: the MPI-4 persistent collectives of the Intel MPI
//! Benchmarks, as `mpibench imb-mpi4 [IMB flags] [BENCHMARK ...]`, a link
//! named `IMB-MPI4`, or `mpibench run --suite imb-mpi4`.
//!
//! Per length the collective's request is made once (MPI_Xxx_init, outside
//! every timed region; under Open MPI 4.1 its `MPIX_Xxx_init`) and run as
//! IMB-MPI4's kernels (`IMB_allreduce_persist` and the like) run it: alone
//! (MPI_Start; MPI_Wait), then overlapped with computation for as long as
//! it took alone (`bench::imb::overlap`, as IMB-NBC). Its `_pure` variant
//! runs only the first loop and reports IMB's t_min, t_max and t_avg; the
//! `_pure` variants and Allgather_persist run only when named, as IMB-MPI4's
//! default list has them not. Buffers, counts and validation are those of
//! the blocking collectives (`bench::patterns`), the init calls those of
//! `bench::persist`; Reduce_scatter_persist gives X/4 MPI_FLOATs to every
//! process, as IMB-MPI4's.
//!
//! A request is bound to its buffers and root: `-off_cache` and
//! `-root_shift` do not apply (IMB-MPI4 makes its request at the first
//! repetition's offsets and root 0, too).

mod front;
pub mod table;

pub use front::FAMILY;

use anyhow::Result;

use crate::bench::entry::Entry;
use crate::bench::imb::overlap::Nbc;
use crate::bench::persist::Started;
use crate::bench::{patterns, Axis, Benchmark, Definitions, Info, Kernel, Setup};
use crate::comm::pcoll::{self, Api};
use crate::comm::Elem;
use crate::contract::axis::{Point, SweepCx};
use crate::method::Method;
use crate::plugin::{benches, Defaults, Suite, SuiteHelp};
use crate::results::BenchResult;

pub const SUITE: &str = "imb-mpi4";

/// A benchmark of IMB-MPI4: a persistent collective's kernel, built without
/// per-repetition offsets or roots (the request is bound to both), refused
/// in one line by a library without persistent collectives.
pub struct Mpi4<B>(B);

impl<B: Benchmark> Benchmark for Mpi4<B> {
    fn info(&self) -> &'static Info {
        self.0.info()
    }
    fn points(&self, cx: &SweepCx) -> Vec<Point> {
        self.0.points(cx)
    }
    fn need(&self, p: &Point, q: usize) -> u64 {
        self.0.need(p, q)
    }
    fn refuse(&self, p: &Point, q: usize) -> Option<String> {
        refusal(pcoll::available()).or_else(|| self.0.refuse(p, q))
    }
    fn kernel<'a>(&'a self, s: Setup<'a>, p: &Point) -> Result<Box<dyn Kernel + 'a>> {
        let s = Setup {
            off_cache: None,
            root_shift: false,
            ..s
        };
        self.0.kernel(s, p)
    }
    fn derive(&self, r: &mut BenchResult) {
        self.0.derive(r)
    }
}

/// The one line a run prints when the library has no persistent
/// collectives (`api`: what the library has): the library and its MPI
/// version.
pub fn refusal(api: Option<Api>) -> Option<String> {
    api.is_none().then(|| {
        let lib = crate::comm::library_version();
        let lib = lib.lines().next().unwrap_or("this MPI library").trim();
        let (a, b) = crate::comm::mpi_version();
        format!(
            "IMB-MPI4: {lib} (MPI {a}.{b}) has no persistent collectives \
             (neither MPI-4 MPI_Xxx_init nor Open MPI's MPIX_Xxx_init)"
        )
    })
}

/// Which calls this run's persistent collectives are, for the header.
pub fn calls(api: Option<Api>) -> &'static str {
    match api {
        Some(Api::Mpi4) => "MPI-4 MPI_Xxx_init, MPI_Start, MPI_Wait",
        Some(Api::Mpix) => "Open MPI's MPIX_Xxx_init (pcollreq extension), MPI_Start, MPI_Wait",
        None => "none (this library has no persistent collectives)",
    }
}

/// A collective of IMB-MPI4: declared once, run overlapped (its plain name)
/// and alone (`_pure`).
macro_rules! collectives {
    ($($stat:ident, $info:ident, $pure:ident, $pure_info:ident, $pattern:ident,
       $name:literal, $what:literal, $default:expr, { $($field:ident: $value:expr),* };)*) => {
        $(
            static $info: Info = Info {
                name: $name,
                suite: SUITE,
                description: concat!($what, ", overlapped with computation (t_ovrl, t_pure, t_CPU, overlap)"),
                default_in: $default,
                $($field: $value,)*
                ..Info::DEFAULT
            };
            static $pure_info: Info = Info {
                name: concat!($name, "_pure"),
                suite: SUITE,
                description: concat!($what, ", alone (MPI_Start; MPI_Wait)"),
                default_in: &[],
                $($field: $value,)*
                ..Info::DEFAULT
            };
            static $stat: Mpi4<Nbc<Started<patterns::$pattern>>> =
                Mpi4(Nbc(Started(patterns::$pattern(&$info))));
            static $pure: Mpi4<Started<patterns::$pattern>> =
                Mpi4(Started(patterns::$pattern(&$pure_info)));
        )*
        /// IMB-MPI4's order: its list, then the `_pure` variants.
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
    title: "IMB-MPI4 2021: MPI-4 persistent collectives alone and overlapped with computation",
    entries,
    // Per-call timing after a barrier; IMB's repetitions and lengths, and
    // PMB's process counts: the plain defaults.
    defaults: Defaults {
        method: Method::PerCall,
        ..Suite::PLAIN.defaults
    },
    formats: &[(SUITE, &self::table::ImbMpi4)],
    help: SuiteHelp {
        heading: None,
        own: Some("mpibench imb-mpi4 [-npmin P] [-msglog A:B] [-iter N] [-time S] ... [BENCHMARK ...] (also as a link named IMB-MPI4)"),
        example: "mpibench run -n 4 --suite imb-mpi4 Bcast_persist Allreduce_persist Barrier_persist_pure --sizes 8,1K,64K",
    },
    front: Some(&FAMILY),
    ..Suite::PLAIN
};

const FLOATS: Elem = Elem::Float;
/// In IMB-MPI4's default list.
const LISTED: &[Definitions] = Definitions::BOTH;
/// Not in it (IMB-MPI4 declares its Allgather_persist without DEFAULT).
const NAMED_ONLY: &[Definitions] = &[];

collectives! {
    BCAST, BCAST_INFO, BCAST_PURE, BCAST_PURE_INFO, Bcast,
        "Bcast_persist", "MPI_Bcast_init of X bytes from root 0", LISTED, { rooted: true };
    ALLGATHER, ALLGATHER_INFO, ALLGATHER_PURE, ALLGATHER_PURE_INFO, Allgather,
        "Allgather_persist", "MPI_Allgather_init of X bytes from every process", NAMED_ONLY, {};
    ALLGATHERV, ALLGATHERV_INFO, ALLGATHERV_PURE, ALLGATHERV_PURE_INFO, Allgatherv,
        "Allgatherv_persist", "MPI_Allgatherv_init of X bytes from every process (equal counts)", LISTED, {};
    GATHER, GATHER_INFO, GATHER_PURE, GATHER_PURE_INFO, Gather,
        "Gather_persist", "MPI_Gather_init of X bytes from every process to root 0", LISTED, { rooted: true };
    GATHERV, GATHERV_INFO, GATHERV_PURE, GATHERV_PURE_INFO, Gatherv,
        "Gatherv_persist", "MPI_Gatherv_init of X bytes from every process to root 0 (equal counts)", LISTED, { rooted: true };
    SCATTER, SCATTER_INFO, SCATTER_PURE, SCATTER_PURE_INFO, Scatter,
        "Scatter_persist", "MPI_Scatter_init of X bytes to every process from root 0", LISTED, { rooted: true };
    SCATTERV, SCATTERV_INFO, SCATTERV_PURE, SCATTERV_PURE_INFO, Scatterv,
        "Scatterv_persist", "MPI_Scatterv_init of X bytes to every process from root 0 (equal counts)", LISTED, { rooted: true };
    ALLTOALL, ALLTOALL_INFO, ALLTOALL_PURE, ALLTOALL_PURE_INFO, Alltoall,
        "Alltoall_persist", "MPI_Alltoall_init of X bytes to every process", LISTED, {};
    ALLTOALLV, ALLTOALLV_INFO, ALLTOALLV_PURE, ALLTOALLV_PURE_INFO, Alltoallv,
        "Alltoallv_persist", "MPI_Alltoallv_init of X bytes to every process (equal counts)", LISTED, {};
    REDUCE, REDUCE_INFO, REDUCE_PURE, REDUCE_PURE_INFO, Reduce,
        "Reduce_persist", "MPI_Reduce_init of X/4 MPI_FLOATs with MPI_SUM to root 0", LISTED, { rooted: true, elem: FLOATS, reduction: true };
    REDUCE_SCATTER, REDUCE_SCATTER_INFO, REDUCE_SCATTER_PURE, REDUCE_SCATTER_PURE_INFO, ReduceScatterEach,
        "Reduce_scatter_persist", "MPI_Reduce_scatter_init with MPI_SUM, X/4 MPI_FLOATs to every process", LISTED, { elem: FLOATS, reduction: true };
    ALLREDUCE, ALLREDUCE_INFO, ALLREDUCE_PURE, ALLREDUCE_PURE_INFO, Allreduce,
        "Allreduce_persist", "MPI_Allreduce_init of X/4 MPI_FLOATs with MPI_SUM", LISTED, { elem: FLOATS, reduction: true };
    BARRIER, BARRIER_INFO, BARRIER_PURE, BARRIER_PURE_INFO, Barrier,
        "Barrier_persist", "MPI_Barrier_init", LISTED, { axis: Axis::None };
}
