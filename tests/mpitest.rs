//! MPITEST on real mpiexec: every construct validated on 1..4 ranks, the
//! seed's own command line, its parameter errors, and the MPI error path.

mod common;
use common::*;

const CONSTRUCTS: [&str; 13] = [
    "TIMING",
    "BARRIER",
    "ALLREDUCE",
    "REDUCE",
    "BROADCAST",
    "GATHER",
    "ALLGATHER",
    "ALL-TO-ALL",
    "ISEND & WAIT",
    "BLOCKING SEND",
    "SENDRECV",
    "SEND & RECV",
    "SIGNAL SENDING",
];

const P2P: [&str; 5] = [
    "ISEND & WAIT",
    "BLOCKING SEND",
    "SENDRECV",
    "SEND & RECV",
    "SIGNAL SENDING",
];

fn checked(n: usize) {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("m.json");
    mpirun(
        n,
        &[
            "run",
            "--suite",
            "mpitest",
            "--sizes",
            "4,40,4000",
            "--iter",
            "6",
            "--fast-iter",
            "20",
            "--check",
            "--stats",
            "-q",
            "--json",
            json.to_str().unwrap(),
        ],
    )
    .assert()
    .success();
    let v = read_json(&json);
    assert_eq!(v["status"], "ok");
    let results = v["results"].as_array().unwrap();
    let names: Vec<&str> = results
        .iter()
        .map(|r| r["benchmark"].as_str().unwrap())
        .collect();
    assert_eq!(names, CONSTRUCTS, "the seed's order");
    for r in results {
        let name = r["benchmark"].as_str().unwrap();
        assert_eq!(r["suite"], "mpitest");
        if n == 1 && P2P.contains(&name) {
            assert!(r["skipped"].as_str().unwrap().contains("at least 2"), "{r}");
            continue;
        }
        assert_eq!(r["method"], "mpitest", "{name}");
        assert_eq!(
            r["processes"], n as u64,
            "{name}: MPITEST runs on all processes"
        );
        assert!(r["dt_us"].as_f64().unwrap() > 0.0, "{name}");
        assert!(r["db_us"].as_f64().is_some(), "{name}");
        let rows = r["rows"].as_array().unwrap();
        let fast = ["TIMING", "BARRIER", "SIGNAL SENDING"].contains(&name);
        let want_reps = if fast { 20 } else { 6 };
        for row in rows {
            assert_eq!(row["errors"], 0, "{name} {row}");
            assert_eq!(row["repetitions"], want_reps, "{name}");
            let t = row["t_avg_us"].as_f64().unwrap();
            assert!(t.is_finite(), "{name} {row}");
            assert!(row["below_resolution"].is_boolean(), "{name} {row}");
            assert_eq!(row["samples_n"], want_reps, "{name}");
        }
        if matches!(name, "TIMING" | "BARRIER" | "SIGNAL SENDING") {
            assert_eq!(rows.len(), 1, "{name}");
        } else {
            let n_of: Vec<u64> = rows
                .iter()
                .map(|x| x["params"]["n"].as_u64().unwrap())
                .collect();
            assert_eq!(n_of, vec![1, 10, 1000], "{name}: N integers");
            assert_eq!(r["datatype"], "MPI_INT");
        }
    }
}

#[test]
fn every_construct_validates_on_one_rank() {
    checked(1);
}

#[test]
fn every_construct_validates_on_two_ranks() {
    checked(2);
}

#[test]
fn every_construct_validates_on_three_ranks() {
    checked(3);
}

#[test]
fn every_construct_validates_on_four_ranks() {
    checked(4);
}

/// The seed's example: `mpirun -np 4 mpitest m1 M100 K10 T100 t100000 R2 otransfer.dat`
/// (T and t lowered here: on 4 oversubscribed ranks MPICH's busy-polling
/// barrier takes milliseconds; the unit tests parse the verbatim line).
fn seed_example(out: &std::path::Path, launch: impl FnOnce(&[&str]) -> assert_cmd::Command) {
    let o = format!("o{}", out.display());
    let args = [
        "mpitest",
        "m1",
        "M100",
        "K10",
        "T10",
        "t100",
        "R2",
        o.as_str(),
    ];
    let run = launch(&args).assert().success().get_output().clone();
    // The tables go to the file, not the terminal.
    assert!(!String::from_utf8_lossy(&run.stdout).contains("ALLREDUCE"));
    let text = std::fs::read_to_string(out).expect("transfer.dat written");
    assert!(text.contains("# Parameters            : m1 M100 K10 T10 t100 R2"));
    for c in CONSTRUCTS {
        assert!(
            text.contains(&format!("# repeat 1 of 2: {c} on 4 processes")),
            "{c}"
        );
        assert!(
            text.contains(&format!("# repeat 2 of 2: {c} on 4 processes")),
            "{c}"
        );
        assert!(
            text.contains(&format!("# aggregate of 2 repeats: {c} on 4 processes")),
            "{c}"
        );
    }
    // N = 1, 10, 100 integers: 4, 40, 400 bytes.
    assert!(text.lines().any(|l| {
        let f: Vec<&str> = l.split_whitespace().collect();
        f.len() >= 3 && f[0] == "100" && f[1] == "400" && f[2] == "10"
    }));
    assert!(text.contains("DT = ") && text.contains("DB = "));
}

#[test]
fn seed_command_under_a_launcher_writes_transfer_dat() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("transfer.dat");
    seed_example(&out, |a| mpirun(4, a));
}

#[test]
fn seed_command_self_launched() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("transfer.dat");
    seed_example(&out, |a| {
        let mut args = vec!["-n", "4"];
        args.extend_from_slice(a);
        // -n goes after the subcommand name: mpibench mpitest -n 4 m1 ...
        let mut v = vec![args[2]];
        v.extend_from_slice(&args[..2]);
        v.extend_from_slice(&args[3..]);
        self_launched(&v)
    });
}

#[test]
fn bad_parameters_are_one_line_and_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let unwritable = format!("o{}/no/such/dir/t.dat", dir.path().display());
    for (args, want) in [
        (vec!["mpitest", "m100", "M10"], "must not be smaller"),
        (vec!["mpitest", "K1"], "at least 2"),
        (vec!["mpitest", "q7"], "unknown MPITEST parameter"),
        (vec!["mpitest", "T"], "needs a value"),
        (vec!["mpitest", "m1", unwritable.as_str()], "cannot write"),
    ] {
        let out = mpirun(2, &args).assert().code(2).get_output().clone();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.trim().lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains(want), "{args:?}: {err}");
    }
}

#[test]
fn an_ambiguous_name_is_one_line_listing_the_candidates_and_exit_2() {
    let out = mpirun(2, &["run", "timing", "-q"])
        .assert()
        .code(2)
        .get_output()
        .clone();
    let err = String::from_utf8_lossy(&out.stderr);
    let lines: Vec<&str> = err.lines().filter(|l| !l.trim().is_empty()).collect();
    assert_eq!(lines.len(), 1, "{err}");
    assert!(lines[0].contains("ambiguous"), "{err}");
    assert!(lines[0].contains("mpitest/TIMING"), "{err}");
    assert!(lines[0].contains("clock/timing"), "{err}");
}

/// MPITEST's b: a length whose buffers do not fit b bytes is skipped, with
/// a note that says so; the lengths that fit run.
#[test]
fn lengths_beyond_the_buffer_b_are_skipped_with_a_note() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("b.json");
    let out = mpirun(
        2,
        &[
            "mpitest",
            "m1",
            "M1000",
            "K10",
            "T2",
            "t2",
            "b2000",
            "--json",
            json.to_str().unwrap(),
            "-q",
        ],
    )
    .assert()
    .success()
    .get_output()
    .clone();
    let text = String::from_utf8_lossy(&out.stdout);
    let v = read_json(&json);
    let r = v["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["benchmark"] == "BLOCKING SEND")
        .unwrap();
    let n_of: Vec<u64> = r["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["params"]["n"].as_u64().unwrap())
        .collect();
    // 1000 integers are 4000 bytes: beyond b = 2000.
    assert_eq!(n_of, vec![1, 10, 100], "{r}");
    let note = r["note"].as_str().unwrap_or_else(|| panic!("no note: {r}"));
    assert!(
        note.contains("skipped") && note.contains("2000 bytes"),
        "{note}"
    );
    assert!(text.contains("# note: points from 4000 bytes"), "{text}");
}

#[test]
fn an_mpi_error_is_one_line_and_exit_3() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("e.json");
    let out = mpirun(2, &failing_pingpong("1", &json))
        .assert()
        .code(3)
        .get_output()
        .clone();
    let err = String::from_utf8_lossy(&out.stderr);
    let line = err
        .lines()
        .find(|l| l.starts_with("error:"))
        .unwrap_or_else(|| panic!("no error line: {err}"));
    assert!(line.contains("MPI_Send failed on rank 1"), "{line}");
    assert!(line.contains("PingPong, 8 bytes, 2 processes"), "{line}");
    assert_ne!(read_json(&json)["status"], "ok");
}

/// `run PingPong` at 8 bytes whose MPI_Send fails on `rank`, JSON to `json`
/// (`-n` may be appended: options follow the subcommand anywhere).
fn failing_pingpong<'a>(rank: &'a str, json: &'a std::path::Path) -> Vec<&'a str> {
    vec![
        "run",
        "pingpong",
        "--sizes",
        "8",
        "-q",
        "--fail-mpi-rank",
        rank,
        "--json",
        json.to_str().unwrap(),
    ]
}

/// Self-launched, the failing rank's line reaches the parent as a rank
/// failure (not as an interruption): exit code 3, status "aborted", on
/// rank 1 and on rank 0.
#[test]
fn an_mpi_error_self_launched_is_exit_3_and_aborted() {
    for rank in ["1", "0"] {
        let err = one_error_exit_3("--fail-mpi-rank", rank);
        assert!(
            err.contains(&format!("MPI_Send failed on rank {rank}")),
            "{err}"
        );
        assert!(!err.contains("interrupted"), "{err}");
    }
}

/// A setup call that fails (as a kernel builds its datatypes, windows,
/// communicators) comes back to the engine as an error, which ends the job
/// at once as a failed call in the loop does: one line naming the call, the
/// rank and the point, exit code 3, status "aborted".
#[test]
fn a_failed_setup_call_is_exit_3_and_aborted() {
    let err = one_error_exit_3("--fail-mpi-setup-rank", "1");
    assert!(
        err.contains("MPI_Type_contiguous failed on rank 1 during PingPong, 8 bytes, 2 processes"),
        "{err}"
    );
}

/// Self-launched `run PingPong` at 8 bytes on 2 ranks with the failure hook
/// `hook` on `rank`: exit code 3, one `error:` line (returned), no
/// interruption and status "aborted".
fn one_error_exit_3(hook: &str, rank: &str) -> String {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("e.json");
    let mut args = failing_pingpong(rank, &json);
    args[5] = hook;
    args.extend(["-n", "2"]);
    let out = self_launched(&args).assert().code(3).get_output().clone();
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    let errors: Vec<&str> = err.lines().filter(|l| l.starts_with("error:")).collect();
    assert_eq!(errors.len(), 1, "{err}");
    assert!(!err.contains("interrupted"), "{err}");
    assert_eq!(read_json(&json)["status"], "aborted", "{err}");
    errors[0].to_string()
}

#[test]
fn window_sync_on_four_oversubscribed_ranks() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("w.json");
    mpirun(
        4,
        &[
            "run",
            "pingpong",
            "allreduce",
            "--sizes",
            "8,1K",
            "--iter",
            "200",
            "--sync",
            "window",
            "--timing",
            "per-call",
            "-q",
            "--json",
            json.to_str().unwrap(),
        ],
    )
    .assert()
    .success();
    let v = read_json(&json);
    for r in v["results"].as_array().unwrap() {
        for row in r["rows"].as_array().unwrap() {
            let (valid, invalid) = (
                row["valid"].as_u64().unwrap(),
                row["invalid"].as_u64().unwrap(),
            );
            assert_eq!(valid + invalid, 200, "{row}");
            assert!(row["window_us"].as_f64().unwrap() > 0.0, "{row}");
            if valid == 0 {
                assert!(row["t_median_us"].is_null(), "{row}");
                assert!(row["note"].is_string(), "{row}");
            } else {
                assert!(row["t_median_us"].as_f64().unwrap() > 0.0, "{row}");
            }
        }
    }
}
