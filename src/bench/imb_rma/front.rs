//! IMB-RMA's command line (the front-end layer: the benchmarks import
//! nothing of the front ends).

use super::SUITE;
use crate::bench::imb::front::Family;

/// IMB-RMA's command line.
pub static FAMILY: Family = Family {
    program: "IMB-RMA",
    subcommand: SUITE,
    suite: SUITE,
    table: SUITE,
    list_heading: "RMA",
    help: concat!(
        "IMB-RMA 2021 arguments (IMB's own spelling, one dash):\n",
        crate::imb_flags!("IMB-RMA"),
        "\n",
        "  -iter N,VOL,MSGS_NONAGGR      the third value: the most repetitions in non-aggregate mode
                                (default 100)

Benchmarks: Unidir_put Bidir_put Unidir_get Bidir_get Put_local Put_all_local One_put_all
  All_put_all One_get_all All_get_all Exchange_put Exchange_get Accumulate Get_accumulate
  Fetch_and_op Compare_and_swap Truly_passive_put, and when named Get_local Get_all_local
  (case-insensitive). Passive target: a window made once per length (MPI_Win_create), locked
  outside the clock pair. The transfers between two processes run in non-aggregate mode (an
  MPI_Win_flush after every operation), then in aggregate mode (one flush after the
  repetitions, inside the clock pair).
mpibench options may be mixed in: -n N (self-launch), --json FILE, --csv FILE, --check, --stats.
Example: mpirun -np 2 mpibench imb-rma -msglog 0:12 -iter 200 Unidir_put All_put_all"
    ),
    parse: crate::bench::imb::front::parse,
    list: crate::bench::imb::front::list,
    modes: true,
    listed: None,
};

#[cfg(test)]
mod tests {
    #[test]
    fn every_imb_flag_is_taken() {
        crate::bench::imb::front::takes_mpi1_flags(&super::FAMILY, "Unidir_put");
    }
}
