//! IMB-MPI4's command line (the front-end layer: the benchmarks import
//! nothing of the front ends): IMB-MPI1's flags, as IMB-MPI4 2021.11 takes
//! them; a run under a library without persistent collectives is refused
//! in one line (exit 2) before it starts.

use super::SUITE;
use crate::bench::imb::front::{Action, Family};
use crate::comm::pcoll;

/// IMB-MPI4's command line.
pub static FAMILY: Family = Family {
    program: "IMB-MPI4",
    subcommand: "imb-mpi4",
    suite: SUITE,
    table: SUITE,
    list_heading: "IMB-MPI4",
    help: concat!(
        "IMB-MPI4 2021 arguments (IMB's own spelling, one dash):\n",
        crate::imb_flags!("IMB-MPI4"),
        "\n",
        "Benchmarks: Bcast_persist Allgather_persist (only when named) Allgatherv_persist Gather_persist
  Gatherv_persist Scatter_persist Scatterv_persist Alltoall_persist Alltoallv_persist Reduce_persist
  Reduce_scatter_persist Allreduce_persist Barrier_persist: the request made once per length
  (MPI_Xxx_init; Open MPI 4.1: MPIX_Xxx_init), then each alone (MPI_Start; MPI_Wait: t_pure) and
  overlapped with as much computation (t_ovrl, t_CPU), of the process whose t_ovrl is the largest;
  overlap[%] = 100 max(0, min(1, (t_pure + t_CPU - t_ovrl) / max(t_pure, t_CPU))).
  Each with _pure (only when named): alone, t_min t_max t_avg. -off_cache and -root_shift do not
  apply (a request is bound to its buffers and root).
mpibench options may be mixed in: -n N (self-launch), --json FILE, --csv FILE, --check, --stats.
Example: mpirun -np 4 mpibench imb-mpi4 -npmin 4 -msglog 0:10 -iter 50 Bcast_persist Allreduce_persist"
    ),
    parse,
    list: crate::bench::imb::front::list,
    modes: false,
    listed: None,
};

/// IMB-MPI1's parse; a run needs persistent collectives.
fn parse(f: &Family, params: &[String], argv0: &str) -> Result<Action, String> {
    let a = crate::bench::imb::front::parse(f, params, argv0)?;
    if let Action::Run(..) = a {
        if let Some(why) = super::refusal(pcoll::available()) {
            return Err(why);
        }
    }
    Ok(a)
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_imb_flag_is_taken() {
        crate::bench::imb::front::takes_mpi1_flags(&super::FAMILY, "Bcast_persist");
    }
}
