//! `mpibench imb-mpi4`, the drop-in for IMB-MPI4 2021 (MPI-4 persistent
//! collectives): its output read by an IMB-output parser into the same
//! tables as real IMB-MPI4 2021.11 output (tests/fixtures/imb2021, run
//! with MPICH 4.0.2), on 2 and 4 ranks, under MPICH (MPI_Xxx_init) and Open
//! MPI 4.1 (MPIX_Xxx_init); the header's calls; every benchmark validated
//! under `--check`, a planted corruption caught; the IMB-MPI4 name.

mod common;
use common::imb_output::*;
use common::*;

/// The header line saying which calls ran, for this build's library.
fn calls_line(out: &str) -> &str {
    out.lines()
        .find(|l| l.starts_with("# Persistent collectives "))
        .unwrap_or_else(|| panic!("no calls line in {out}"))
}

fn assert_calls(out: &str) {
    let line = calls_line(out);
    if is_open_mpi(&mpiexec()) {
        assert!(line.contains("MPIX_Xxx_init"), "{line}");
    } else {
        assert!(line.contains("MPI-4 MPI_Xxx_init"), "{line}");
    }
}

#[test]
fn msglog_iter_on_2() {
    let out = same_program_tables_as(
        "np2-IMB-MPI4-msglog0-12.txt",
        "imb-mpi4",
        2,
        "-msglog 0:12 -iter 100",
    );
    assert!(out.contains("Intel(R) MPI Benchmarks 2021.11, MPI-4 part"));
    assert_calls(&out);
    overlap_figures_hold(&out);
}

/// On 4 ranks under both libraries (oversubscribed MPICH with a time cap
/// per length and no warm-up, which change no row or column).
#[test]
fn npmin4_on_4() {
    let out = same_program_tables_as(
        "np4-IMB-MPI4-npmin4-msglog0-10.txt",
        "imb-mpi4",
        4,
        "-npmin 4 -msglog 0:10 -iter 50 Bcast_persist Allreduce_persist Alltoall_persist Barrier_persist Allreduce_persist_pure",
    );
    assert_calls(&out);
    overlap_figures_hold(&out);
}

const NAMES: [&str; 13] = [
    "Bcast_persist",
    "Allgather_persist",
    "Allgatherv_persist",
    "Gather_persist",
    "Gatherv_persist",
    "Scatter_persist",
    "Scatterv_persist",
    "Alltoall_persist",
    "Alltoallv_persist",
    "Reduce_persist",
    "Reduce_scatter_persist",
    "Allreduce_persist",
    "Barrier_persist",
];

/// MPICH 4.0.2's persistent MPI_Allgather_init, MPI_Gather_init and
/// MPI_Scatter_init deliver nothing from the other ranks after the first
/// MPI_Start on 2 ranks (Gather on 3 too): a ten-line C program shows it
/// (MPI_Allgather_init of 4 bytes, started three times: the peer's block
/// keeps its poison from the second start on). `--check` reports it
/// ([`mpich_broken_gathers_are_caught`]); the others validate.
fn broken_here() -> &'static [&'static str] {
    if is_open_mpi(&mpiexec()) {
        &[]
    } else {
        &["Allgather_persist", "Gather_persist", "Scatter_persist"]
    }
}

/// Every IMB-MPI4 benchmark, its _pure variant too, validated on 2 and 3
/// processes (but those the library breaks, [`broken_here`]).
#[test]
fn every_benchmark_validates_on_2_and_3() {
    let names: Vec<&str> = NAMES
        .into_iter()
        .filter(|n| !broken_here().contains(n))
        .collect();
    overlap_family_validates("imb-mpi4", &names, &[2, 3]);
}

/// What MPICH 4.0.2 breaks, `--check` reports: errors, exit 1.
#[test]
fn mpich_broken_gathers_are_caught() {
    if broken_here().is_empty() {
        return;
    }
    let a = [
        "imb-mpi4",
        "-msglog",
        "2:4",
        "-iter",
        "10",
        "--check",
        "Allgather_persist",
    ];
    let out = mpirun(2, &a).assert().code(1).get_output().clone();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("validation found"), "{err}");
}

/// `mpibench run --suite imb-mpi4`: mpibench's own options over the same
/// benchmarks (statistics, JSON, --check), and a planted corruption
/// (`--corrupt` spoils a received element) is caught.
#[test]
fn run_suite_checks_and_catches_corruption() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("r.json");
    let j = json.to_str().unwrap();
    let base = [
        "run", "--suite", "imb-mpi4", "--sizes", "0,64,1K", "--iter", "20", "--check", "--stats",
    ];
    let mut a = base.to_vec();
    a.extend([
        "Allreduce_persist",
        "Gatherv_persist_pure",
        "Barrier_persist",
        "--json",
        j,
    ]);
    mpirun(2, &a).assert().success();
    let v = read_json(&json);
    assert_eq!(v["status"], "ok");
    let rs = v["results"].as_array().unwrap();
    assert_eq!(rs.len(), 3);
    for r in rs {
        for row in r["rows"].as_array().unwrap() {
            assert_eq!(row["errors"], 0, "{row}");
        }
    }
    let mut a = base.to_vec();
    a.extend([
        "Allreduce_persist",
        "Bcast_persist_pure",
        "--corrupt",
        "--json",
        j,
    ]);
    let out = mpirun(2, &a).assert().code(1).get_output().clone();
    let v = read_json(&json);
    for r in v["results"].as_array().unwrap() {
        let bad = r["rows"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|row| row["bytes"].as_u64().unwrap() > 0)
            .all(|row| row["errors"].as_u64().unwrap() > 0);
        assert!(bad, "{}: {r}", String::from_utf8_lossy(&out.stderr));
    }
}

#[test]
fn the_binary_named_imb_mpi4_is_imb_mpi4() {
    let dir = tempfile::tempdir().unwrap();
    let link = dir.path().join("IMB-MPI4");
    std::os::unix::fs::symlink(assert_cmd::cargo::cargo_bin("mpibench"), &link).unwrap();
    let mut cmd = mpirun_program(2, &link);
    cmd.args([
        "-msglog",
        "0:2",
        "Allreduce_persist",
        "Barrier_persist_pure",
    ]);
    let out = stdout(&cmd.assert().success().get_output().clone());
    let t = parse_imb(&out);
    let names: Vec<&str> = t.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(
        names,
        ["Allreduce_persist", "Barrier_persist_pure"],
        "{out}"
    );
    assert_eq!(t[0].columns[2], "t_ovrl[usec]");
    assert_eq!(
        t[1].columns,
        ["#repetitions", "t_min[usec]", "t_max[usec]", "t_avg[usec]"]
    );
    assert!(out.contains(&format!(
        "# {} -msglog 0:2 Allreduce_persist Barrier_persist_pure",
        link.display()
    )));
    assert_calls(&out);
    // -list and -h under the name; a flag IMB-MPI4 does not know.
    let list = named(&link, "-list");
    assert!(
        list.starts_with(
            "IMB-MPI4\nList of benchmarks:\nIMB-MPI4:\n    Allgather_persist (non-default)\n    Allgather_persist_pure (non-default)\n    Allgatherv_persist\n"
        ),
        "{list}"
    );
    assert!(
        list.contains("    Bcast_persist_pure (non-default)\n"),
        "{list}"
    );
    assert!(named(&link, "-h").contains("IMB-MPI4 2021 arguments"));
    assert_eq!(
        usage_error(&["imb-mpi4", "-nosuch"]),
        "error: unknown IMB-MPI4 flag '-nosuch' (see mpibench imb-mpi4 -h)"
    );
    assert!(usage_error(&["imb-mpi4", "Ibcast"]).contains("Ibcast"));
}
