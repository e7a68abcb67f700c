//! IMB-EXT 2021: the MPI-2 one-sided benchmarks of the Intel MPI
//! Benchmarks, as `mpibench imb-ext [IMB flags] [BENCHMARK ...]`, a link
//! named `IMB-EXT`, or `mpibench run --suite imb-ext`.
//!
//! Window, Unidir_Put, Unidir_Get, Bidir_Put, Bidir_Get and Accumulate,
//! each in IMB's aggregate and non-aggregate modes ([`onesided`]) but
//! Window; IMB-MPI1's flags, process counts and repetitions, and IMB's
//! loop timing (one clock pair around the repetitions).

pub mod onesided;
pub mod table;

use self::onesided::{Access, OneSided, WindowBench};
use crate::bench::{Benchmark, Class, Info, RankRule};
use crate::comm::Elem;
use crate::frontend::imb::Family;
use crate::method::Method;
use crate::suite::{Suite, SuiteHelp};

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

/// IMB-EXT's command line.
pub static FAMILY: Family = Family {
    program: "IMB-EXT",
    subcommand: SUITE,
    suite: SUITE,
    table: SUITE,
    list_heading: "EXT",
    help: concat!(
        "IMB-EXT 2021 arguments (IMB's own spelling, one dash):\n",
        crate::imb_flags!("IMB-EXT"),
        "\n",
        "  -iter N,VOL,MSGS_NONAGGR      the third value: the most repetitions in non-aggregate mode
                                (default 100)

Benchmarks: Window Unidir_Get Unidir_Put Bidir_Get Bidir_Put Accumulate, over a window made
  once per length (MPI_Win_create). Each but Window runs in aggregate mode (the repetitions'
  operations, then one MPI_Win_fence, inside the clock pair) and in non-aggregate mode (an
  MPI_Win_fence after every operation). Lengths are multiples of 4 bytes.
mpibench options may be mixed in: -n N (self-launch), --json FILE, --csv FILE, --check, --stats.
Example: mpirun -np 2 mpibench imb-ext -msglog 0:12 -iter 200 Unidir_Put Accumulate"
    ),
    parse: crate::frontend::imb::parse,
    list: crate::frontend::imb::list,
    modes: true,
};

fn entries() -> Vec<crate::suite::Entry> {
    crate::suite::benches(benchmarks())
}

/// The suite's entry in the registry.
pub const REGISTERED: Suite = Suite {
    name: SUITE,
    title: "IMB-EXT 2021: MPI-2 one-sided communication in aggregate and non-aggregate modes",
    entries,
    // IMB's loop timing after a barrier, IMB's repetitions and lengths, and
    // PMB's process counts: the plain defaults.
    defaults: Suite::PLAIN.defaults,
    formats: &[(SUITE, &table::ImbExt)],
    help: SuiteHelp {
        heading: None,
        own: Some("mpibench imb-ext [-npmin P] [-msglog A:B] [-iter N[,VOL[,NONAGGR]]] ... [BENCHMARK ...] (also as a link named IMB-EXT)"),
        example: "mpibench run -n 2 --suite imb-ext Unidir_Put Accumulate --sizes 8,1K,64K",
    },
    ..Suite::PLAIN
};
