//! Every OMB 7.4 program of `../shared/reference/osu-output/all-programs/`
//! (one run of each, OMB 7.4 on Open MPI 4.1.4) with every flag its `-h`
//! lists (OMB's `print_help_message_common` prints exactly the letters of
//! the program's option string, with their long names), and the positional
//! buffer locations: none is an error, except the few this build lacks,
//! each refused in one line that says so.

use super::*;

/// The programs of all-programs/ (its fake2nodes runs are osu_bw_fan_in/out).
const ALL_PROGRAMS: &[&str] = &[
    "osu_acc_latency",
    "osu_allgather",
    "osu_allgatherv",
    "osu_allreduce",
    "osu_alltoall",
    "osu_alltoallv",
    "osu_alltoallw",
    "osu_barrier",
    "osu_bcast",
    "osu_bibw",
    "osu_bibw_persistent",
    "osu_bw",
    "osu_bw_fan_in",
    "osu_bw_fan_out",
    "osu_bw_persistent",
    "osu_cas_latency",
    "osu_fop_latency",
    "osu_gather",
    "osu_gatherv",
    "osu_get_acc_latency",
    "osu_get_bw",
    "osu_get_latency",
    "osu_hello",
    "osu_iallgather",
    "osu_iallgatherv",
    "osu_iallreduce",
    "osu_ialltoall",
    "osu_ialltoallv",
    "osu_ialltoallw",
    "osu_ibarrier",
    "osu_ibcast",
    "osu_igather",
    "osu_igatherv",
    "osu_ineighbor_allgather",
    "osu_ineighbor_allgatherv",
    "osu_ineighbor_alltoall",
    "osu_ineighbor_alltoallv",
    "osu_ineighbor_alltoallw",
    "osu_init",
    "osu_ireduce",
    "osu_ireduce_scatter",
    "osu_ireduce_scatter_block",
    "osu_iscatter",
    "osu_iscatterv",
    "osu_latency",
    "osu_latency_mp",
    "osu_latency_mt",
    "osu_latency_persistent",
    "osu_mbw_mr",
    "osu_multi_lat",
    "osu_neighbor_allgather",
    "osu_neighbor_allgatherv",
    "osu_neighbor_alltoall",
    "osu_neighbor_alltoallv",
    "osu_neighbor_alltoallw",
    "osu_put_bibw",
    "osu_put_bw",
    "osu_put_latency",
    "osu_reduce",
    "osu_reduce_scatter",
    "osu_reduce_scatter_block",
    "osu_scatter",
    "osu_scatterv",
];

/// A value OMB 7.4 takes for flag `c` of `name` (None: the flag takes none).
fn value(c: char, name: &str) -> Option<&'static str> {
    Some(match c {
        'm' => "1:64",
        'x' => "2",
        'i' => "3",
        'b' => "multiple",
        'u' => "1",
        'G' => "tty",
        'D' => "cont",
        'T' => "mpi_char",
        'W' => "4",
        't' if name == "osu_latency_mt" => "1:2",
        't' if name == "osu_latency_mp" => "2:2",
        't' => "1",
        'M' => "1048576",
        'a' => "4",
        'k' => "rotate",
        'N' => "cart:1:1",
        'w' => "create",
        's' => "fence",
        'p' => "2",
        'R' => "0",
        'P' => "cycles",
        _ => return None,
    })
}

/// OMB flags this build refuses on purpose, and what the one line says.
fn refused(c: char, name: &str) -> Option<&'static str> {
    match c {
        'I' => Some("sessions"),
        'P' => Some("PAPI"),
        // -D on the neighbourhood and reducing collectives: no derived datatypes there.
        'D' if !takes_derived(name) => Some("not supported"),
        _ => None,
    }
}

fn outcome(name: &str, words: &[String]) -> Result<(), String> {
    parse(name, words, name).map(|_| ())
}

#[test]
fn every_flag_of_every_omb_program_is_taken() {
    let long = |c: char| {
        LONG.iter()
            .find(|(_, x, _)| *x == c)
            .map(|(n, _, a)| (*n, *a))
    };
    let mut checked = 0;
    for &name in ALL_PROGRAMS {
        assert!(
            known_program(name).is_some(),
            "{name} is not a program here"
        );
        for (c, arg) in letters(optstring(name)) {
            if c == 'h' || c == 'v' {
                continue;
            }
            let v = value(c, name);
            assert_eq!(v.is_some(), arg == Arg::Required, "{name} -{c}");
            let mut short = vec![format!("-{c}")];
            short.extend(v.map(String::from));
            let mut forms = vec![short];
            // OMB declares some long forms with a value their short form
            // lacks (--vary-window): getopt_long then wants one.
            if let Some((l, long_arg)) = long(c) {
                forms.push(match (v, long_arg) {
                    (Some(v), _) => vec![format!("--{l}"), v.to_string()],
                    (None, Arg::Required) => vec![format!("--{l}"), "1".to_string()],
                    (None, _) => vec![format!("--{l}")],
                });
            }
            for words in forms {
                let got = outcome(name, &words);
                match (refused(c, name), got) {
                    (None, Ok(())) => {}
                    (None, Err(e)) => panic!("{name} {words:?}: {e}"),
                    (Some(why), Err(e)) => {
                        assert!(
                            e.contains(why) && !e.contains('\n'),
                            "{name} {words:?}: {e}"
                        )
                    }
                    (Some(_), Ok(())) => panic!("{name} {words:?}: taken, but listed as refused"),
                }
                checked += 1;
            }
        }
    }
    assert!(checked > 800, "{checked}");
}

#[test]
fn buffer_locations_are_host_buffers_as_omb_without_a_device() {
    for &name in ALL_PROGRAMS {
        for tail in ["H H", "D D", "M M", "MH MD", "D H", "H"] {
            // osu_init and osu_hello take no -m, -x, -i.
            let flags = if osu::STARTUP.contains(&name) {
                &[][..]
            } else {
                &["-m", "1:8", "-x", "1", "-i", "2"][..]
            };
            let mut words: Vec<String> = flags.iter().map(|s| s.to_string()).collect();
            words.extend(tail.split_whitespace().map(String::from));
            outcome(name, &words).unwrap_or_else(|e| panic!("{name} {tail}: {e}"));
        }
    }
    // ReFrame's hpctestlib command lines.
    for (name, line) in [
        ("osu_latency", "-m 8 -x 10 -i 1000 -c D D"),
        ("osu_bw", "-m 4194304 -x 10 -i 1000 -c D D"),
        ("osu_allreduce", "-m 8 -x 10 -i 1000 -c"),
        ("osu_alltoall", "-m 8 -x 10 -i 1000 -c"),
    ] {
        let words: Vec<String> = line.split_whitespace().map(String::from).collect();
        match parse(name, &words, name).unwrap() {
            Action::Run(a, notes) => {
                assert!(a.check, "{line}");
                if line.ends_with("D D") {
                    assert!(notes.iter().any(|n| n.contains("host memory")), "{notes:?}");
                }
            }
            a => panic!("{a:?}"),
        }
    }
    for bad in ["H H H", "X", "d d", "HD"] {
        let words: Vec<String> = bad.split_whitespace().map(String::from).collect();
        let e = outcome("osu_latency", &words).unwrap_err();
        assert!(e.contains("unexpected argument"), "{bad}: {e}");
    }
}

#[test]
fn accelerators_are_refused_in_one_line() {
    for accel in ["cuda", "rocm", "openacc"] {
        for name in ["osu_latency", "osu_bw", "osu_allreduce", "osu_put_latency"] {
            for words in [vec!["-d", accel], vec!["--accelerator", accel]] {
                let words: Vec<String> = words.iter().map(|s| s.to_string()).collect();
                let e = outcome(name, &words).unwrap_err();
                assert!(e.contains("no GPU support") && !e.contains('\n'), "{e}");
            }
        }
    }
}
