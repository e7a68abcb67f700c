//! IMB-NBC's command line and its entry in the registry (the front-end
//! layer: the benchmarks import nothing of the front ends).

use super::{benchmarks, table, SUITE};
use crate::contract::RepsDefault;
use crate::frontend::imb::Family;
use crate::method::{Method, SyncMode};
use crate::suite::{Defaults, ProcSweep, Suite, SuiteHelp};

/// IMB-NBC's command line.
pub static FAMILY: Family = Family {
    program: "IMB-NBC",
    subcommand: "imb-nbc",
    suite: SUITE,
    table: SUITE,
    list_heading: "NBC",
    help: concat!(
        "IMB-NBC 2021 arguments (IMB's own spelling, one dash):\n",
        crate::imb_flags!("IMB-NBC"),
        "\n",
        "Benchmarks: Ibcast Iallgather Iallgatherv Igather Igatherv Iscatter Iscatterv Ialltoall
  Ialltoallv Ireduce Ireduce_scatter Iallreduce Ibarrier: each alone (t_pure), then overlapped
  with as much computation (t_ovrl, t_CPU), of the process whose t_ovrl is the largest;
  overlap[%] = 100 max(0, min(1, (t_pure + t_CPU - t_ovrl) / max(t_pure, t_CPU))).
  Each with _pure (only when named): alone, t_min t_max t_avg.
mpibench options may be mixed in: -n N (self-launch), --json FILE, --csv FILE, --check, --stats.
Example: mpirun -np 4 mpibench imb-nbc -npmin 4 -msglog 0:10 -iter 100 Ibcast Iallreduce"
    ),
    parse: crate::frontend::imb::parse,
    list: crate::frontend::imb::list,
    modes: false,
};

fn entries() -> Vec<crate::suite::Entry> {
    crate::suite::benches(benchmarks())
}

/// The suite's entry in the registry.
pub const REGISTERED: Suite = Suite {
    name: SUITE,
    title: "IMB-NBC 2021: non-blocking collectives alone and overlapped with computation",
    entries,
    defaults: Defaults {
        method: Method::PerCall,
        sync: SyncMode::Barrier,
        reps: RepsDefault::Imb,
        sizes: "0:22",
        procs: ProcSweep::Pmb,
        warm_largest: 0,
    },
    formats: &[(SUITE, &table::ImbNbc)],
    help: SuiteHelp {
        heading: None,
        own: Some("mpibench imb-nbc [-npmin P] [-msglog A:B] [-iter N] [-time S] ... [BENCHMARK ...] (also as a link named IMB-NBC)"),
        example: "mpibench run -n 4 --suite imb-nbc Ibcast Iallreduce Ibarrier_pure --sizes 8,1K,64K",
    },
    ..Suite::PLAIN
};
