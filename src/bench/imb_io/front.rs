//! IMB-IO's command line (the front-end layer: the benchmarks import
//! nothing of the front ends): IMB-MPI1's flags, as IMB-IO 2021.11 takes
//! them, with its process counts from 1 (IMB-IO's default -npmin).

use super::SUITE;
use crate::bench::imb::front::{Action, Family};

/// IMB-IO's command line.
pub static FAMILY: Family = Family {
    program: "IMB-IO",
    subcommand: "imb-io",
    suite: SUITE,
    table: SUITE,
    list_heading: "IO",
    help: concat!(
        "IMB-IO 2021 arguments (IMB's own spelling, one dash):\n",
        crate::imb_flags!("IMB-IO"),
        "\n",
        "  -iter N,VOL,MSGS_NONAGGR      the third value: the most repetitions in non-aggregate mode
                                (default 100)

Benchmarks: S_Write_Indv S_Write_Expl P_Write_Indv P_Write_Shared P_Write_Priv P_Write_Expl
  C_Write_Indv C_Write_Shared C_Write_Expl S_Read_Indv S_Read_Expl P_Read_Indv P_Read_Shared
  P_Read_Priv P_Read_Expl C_Read_Indv C_Read_Shared C_Read_Expl Open_Close. X bytes per
  repetition split among the processes of the file (S_: one; P_, C_: all); writes in aggregate
  mode (the repetitions' writes, then MPI_File_sync, MPI_Barrier, MPI_File_sync, inside the clock
  pair) and non-aggregate mode (that after every write); reads in aggregate mode. P_ and C_ run on
  1, 2, 4, ... processes (-npmin, default 1).
mpibench options may be mixed in: -n N (self-launch), --json FILE, --csv FILE, --check, --stats,
  --io-dir DIR (where the files go; default: the current directory), --io-hint KEY=VALUE.
  Every file the run creates is removed when it ends.
Example: mpirun -np 2 mpibench imb-io -msglog 0:12 -iter 50 P_Write_Indv P_Read_Indv Open_Close"
    ),
    parse,
    list: crate::bench::imb::front::list,
    modes: true,
    listed: None,
};

/// IMB-MPI1's parse; process counts from 1 unless -npmin says otherwise.
fn parse(f: &Family, params: &[String], argv0: &str) -> Result<Action, String> {
    let mut a = crate::bench::imb::front::parse(f, params, argv0)?;
    if let Action::Run(args, _) = &mut a {
        if args.sweep.npmin.is_none() {
            args.sweep.npmin = Some(1);
        }
    }
    Ok(a)
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_imb_flag_is_taken() {
        crate::bench::imb::front::takes_mpi1_flags(&super::FAMILY, "S_Write_Indv");
    }
}
