//! IMB-EXT 2021: the MPI-2 one-sided benchmarks of the Intel MPI
//! Benchmarks, as `mpibench imb-ext [IMB flags] [BENCHMARK ...]`, a link
//! named `IMB-EXT`, or `mpibench run --suite imb-ext`.
//!
//! Window, Unidir_Put, Unidir_Get, Bidir_Put, Bidir_Get and Accumulate,
//! each in IMB's aggregate and non-aggregate modes ([`onesided`]) but
//! Window; IMB-MPI1's flags, process counts and repetitions, and IMB's
//! loop timing (one clock pair around the repetitions).

mod front;
pub mod onesided;
pub mod table;

pub use front::FAMILY;

use self::onesided::{Access, OneSided, WindowBench};
use crate::bench::entry::Entry;
use crate::bench::{Benchmark, Class, Info, RankRule};
use crate::comm::Elem;
use crate::method::Method;
use crate::plugin::{benches, Suite, SuiteHelp};

pub const SUITE: &str = "imb-ext";

/// A one-sided pair benchmark of IMB-EXT (IMB's single transfers: two
/// processes, the others wait).
macro_rules! pair {
    ($stat:ident, $info:ident, $name:literal, $access:expr, $both:expr, $what:literal) => {
        static $info: Info = Info {
            name: $name,
            suite: SUITE,
            class: Class::SingleTransfer,
            ranks: RankRule::PAIR,
            description: $what,
            throughput: Some(1.0),
            method: Some(Method::Loop),
            ..Info::DEFAULT
        };
        static $stat: OneSided = OneSided {
            info: &$info,
            access: $access,
            both: $both,
        };
    };
}

static WINDOW_INFO: Info = Info {
    name: "Window",
    suite: SUITE,
    description:
        "MPI_Win_create, MPI_Win_fence, a 1-byte MPI_Put to itself, MPI_Win_fence, MPI_Win_free",
    method: Some(Method::Loop),
    ..Info::DEFAULT
};
static WINDOW: WindowBench = WindowBench { info: &WINDOW_INFO };

pair!(
    UNIDIR_GET,
    UNIDIR_GET_INFO,
    "Unidir_Get",
    Access::Get,
    false,
    "rank 1 gets X bytes from rank 0's window (MPI_Get; MPI_Win_fence per repetition or per batch)"
);
pair!(
    UNIDIR_PUT,
    UNIDIR_PUT_INFO,
    "Unidir_Put",
    Access::Put,
    false,
    "rank 0 puts X bytes into rank 1's window (MPI_Put; MPI_Win_fence per repetition or per batch)"
);
pair!(
    BIDIR_GET,
    BIDIR_GET_INFO,
    "Bidir_Get",
    Access::Get,
    true,
    "both ranks of the pair get X bytes from each other's window at once"
);
pair!(
    BIDIR_PUT,
    BIDIR_PUT_INFO,
    "Bidir_Put",
    Access::Put,
    true,
    "both ranks of the pair put X bytes into each other's window at once"
);

static ACCUMULATE_INFO: Info = Info {
    name: "Accumulate",
    suite: SUITE,
    description: "every process accumulates X/4 MPI_FLOATs with MPI_SUM into rank 0's window (MPI_Accumulate; MPI_Win_fence)",
    elem: Elem::Float,
    reduction: true,
    method: Some(Method::Loop),
    ..Info::DEFAULT
};
static ACCUMULATE: OneSided = OneSided {
    info: &ACCUMULATE_INFO,
    access: Access::Accumulate,
    both: false,
};

/// IMB-EXT's order.
pub fn benchmarks() -> Vec<&'static dyn Benchmark> {
    vec![
        &WINDOW,
        &UNIDIR_GET,
        &UNIDIR_PUT,
        &BIDIR_GET,
        &BIDIR_PUT,
        &ACCUMULATE,
    ]
}

fn entries() -> Vec<Entry> {
    benches(benchmarks())
}

/// The suite's entry in the registry.
pub const REGISTERED: Suite = Suite {
    name: SUITE,
    title: "IMB-EXT 2021: MPI-2 one-sided communication in aggregate and non-aggregate modes",
    entries,
    // IMB's loop timing after a barrier, IMB's repetitions and lengths, and
    // PMB's process counts: the plain defaults.
    defaults: Suite::PLAIN.defaults,
    formats: &[(SUITE, &self::table::ImbExt)],
    help: SuiteHelp {
        heading: None,
        own: Some("mpibench imb-ext [-npmin P] [-msglog A:B] [-iter N[,VOL[,NONAGGR]]] ... [BENCHMARK ...] (also as a link named IMB-EXT)"),
        example: "mpibench run -n 2 --suite imb-ext Unidir_Put Accumulate --sizes 8,1K,64K",
    },
    front: Some(&FAMILY),
    ..Suite::PLAIN
};
