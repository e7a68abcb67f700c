//! IMB-NBC's command line (the front-end layer: the benchmarks import
//! nothing of the front ends).

use super::SUITE;
use crate::bench::imb::front::Family;

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
    parse: crate::bench::imb::front::parse,
    list: crate::bench::imb::front::list,
    modes: false,
    listed: None,
};

#[cfg(test)]
mod tests {
    #[test]
    fn every_imb_flag_is_taken() {
        crate::bench::imb::front::takes_mpi1_flags(&super::FAMILY, "Ibcast");
    }
}
