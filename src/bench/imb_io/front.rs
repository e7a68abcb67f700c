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
        "#----------------------------------------------------------------\n",
        "#    Intel(R) MPI Benchmarks 2021.11, MPI-IO part (mpibench, compatible output)\n",
        "#----------------------------------------------------------------\n",
        "\n\n# Calling sequence was: \n\n# IMB-IO -h\n\n",
        "# Minimum io portion in bytes:   0\n",
        "# Maximum io portion in bytes:   4194304\n",
        "#\n#\n#\n\n# List of Benchmarks to run:\n\n",
        "# S_Write_Indv\n",
        "# S_IWrite_Indv\n",
        "# S_Write_Expl\n",
        "# S_IWrite_Expl\n",
        "# P_Write_Indv\n",
        "# P_IWrite_Indv\n",
        "# P_Write_Shared\n",
        "# P_IWrite_Shared\n",
        "# P_Write_Priv\n",
        "# P_IWrite_Priv\n",
        "# P_Write_Expl\n",
        "# P_IWrite_Expl\n",
        "# C_Write_Indv\n",
        "# C_IWrite_Indv\n",
        "# C_Write_Shared\n",
        "# C_IWrite_Shared\n",
        "# C_Write_Expl\n",
        "# C_IWrite_Expl\n",
        "# S_Read_Indv\n",
        "# S_IRead_Indv\n",
        "# S_Read_Expl\n",
        "# S_IRead_Expl\n",
        "# P_Read_Indv\n",
        "# P_IRead_Indv\n",
        "# P_Read_Shared\n",
        "# P_IRead_Shared\n",
        "# P_Read_Priv\n",
        "# P_IRead_Priv\n",
        "# P_Read_Expl\n",
        "# P_IRead_Expl\n",
        "# C_Read_Indv\n",
        "# C_IRead_Indv\n",
        "# C_Read_Shared\n",
        "# C_IRead_Shared\n",
        "# C_Read_Expl\n",
        "# C_IRead_Expl\n",
        "# Open_Close\n",
        "\n# (IMB-IO 2021.11 takes -h for a benchmark name: it prints the list above,\n",
        "# \"Invalid benchmark name -h\", and runs it; mpibench prints its arguments.)\n\n",
        "IMB-IO 2021 arguments (IMB's own spelling, one dash):\n",
        crate::imb_flags!("IMB-IO"),
        "\n",
        "  -iter N,VOL,MSGS_NONAGGR      the third value: the most repetitions in non-aggregate mode
                                (default 100)

Benchmarks: the list above. X bytes per repetition split among the processes of the file (S_: one;
  P_, C_: all); writes in aggregate mode (the repetitions' writes, then MPI_File_sync,
  MPI_Barrier, MPI_File_sync, inside the clock pair) and non-aggregate mode (that after every
  write); reads in aggregate mode. The non-blocking twins (S_IWrite_Indv ... C_IRead_Expl) run in
  aggregate mode only: their blocking pass (t_pure), then the non-blocking calls, each overlapped
  with one CPU exploitation (t_ovrl, t_CPU, overlap[%]). P_ and C_ run on 1, 2, 4, ... processes
  (-npmin, default 1).
mpibench options may be mixed in: -n N (self-launch), --json FILE, --csv FILE, --check, --stats,
  --io-dir DIR (where the files go; default: the current directory), --io-hint KEY=VALUE,
  --io-sync (MPI_File_sync, then the files' cached pages dropped, before reads and after writes).
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
    use super::*;

    #[test]
    fn every_imb_flag_is_taken() {
        crate::bench::imb::front::takes_mpi1_flags(&super::FAMILY, "S_Write_Indv");
    }

    fn run(line: &str) -> Result<Action, String> {
        let v: Vec<String> = line.split_whitespace().map(String::from).collect();
        parse(&FAMILY, &v, "IMB-IO")
    }

    /// Every flag IMB-IO 2021.11 takes (IMB_init.c, MPIIO build) is taken.
    #[test]
    fn every_imb_io_flag_is_accepted() {
        let input = std::env::temp_dir().join(format!("imb-io-input-{}", std::process::id()));
        std::fs::write(&input, "P_Write_Indv\nOpen_Close\n").unwrap();
        let msglen = input.with_extension("len");
        std::fs::write(&msglen, "0\n1024\n").unwrap();
        let table = [
            "-npmin 1",
            "-multi 0",
            "-multi 1",
            "-off_cache -1",
            "-off_cache 16,64",
            "-iter 20",
            "-iter 20,10",
            "-iter 20,10,5",
            "-iter_policy off",
            "-time 2",
            "-mem 0.5",
            "-map 1x1",
            &format!("-msglen {}", msglen.display()),
            &format!("-input {}", input.display()),
            "-include P_IWrite_Indv",
            "-exclude Open_Close",
            "-msglog 0:4",
            "-msglog 4",
            "-thread_level single",
            "-imb_barrier on",
            "-sync on",
            "-root_shift off",
        ];
        for flags in table {
            let a = run(&format!("{flags} P_Write_Indv"));
            assert!(matches!(a, Ok(Action::Run(..))), "{flags}: {a:?}");
        }
        for h in ["-h", "-help"] {
            assert!(matches!(run(h), Ok(Action::Help)), "{h}");
        }
        assert!(matches!(run("-list"), Ok(Action::List)));
        let _ = std::fs::remove_file(input);
        let _ = std::fs::remove_file(msglen);
    }

    #[test]
    fn the_help_lists_imb_ios_benchmarks_in_its_order() {
        let names: Vec<&str> = crate::bench::imb_io::benchmarks()
            .iter()
            .map(|b| b.info().name)
            .collect();
        assert_eq!(names.len(), 37);
        let listed: Vec<&str> = FAMILY
            .help
            .lines()
            .skip_while(|l| !l.starts_with("# List of Benchmarks"))
            .skip(2)
            .take_while(|l| l.starts_with("# "))
            .map(|l| &l[2..])
            .collect();
        assert_eq!(listed, names);
    }
}
