//! IMB-EXT's command line (the front-end layer: the benchmarks import
//! nothing of the front ends).

use super::SUITE;
use crate::bench::imb::front::Family;

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

#[cfg(test)]
mod tests {
    #[test]
    fn every_imb_flag_is_taken() {
        crate::bench::imb::front::takes_mpi1_flags(&super::FAMILY, "Unidir_Put");
    }
}
