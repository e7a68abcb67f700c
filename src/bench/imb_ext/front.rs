//! IMB-EXT's command line and its entry in the registry (the front-end
//! layer: the benchmarks import nothing of the front ends).

use super::{benchmarks, table, SUITE};
use crate::bench::imb::front::Family;
use crate::suite::{Suite, SuiteHelp};

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
    parse: crate::bench::imb::front::parse,
    list: crate::bench::imb::front::list,
    modes: true,
    listed: None,
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
    front: Some(&FAMILY),
    ..Suite::PLAIN
};
