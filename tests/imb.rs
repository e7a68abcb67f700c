//! PMB-MPI1 integration tests on 1, 2, 3 and 4 ranks (oversubscribed).

mod common;
use common::*;

const SIZES: &str = "0,1,4,1K,64K";
const SIZE_LIST: [u64; 5] = [0, 1, 4, 1024, 65536];

fn checked_run(n: usize, extra: &[&str]) -> serde_json::Value {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("r.json");
    let mut args = vec![
        "run",
        "--sizes",
        SIZES,
        "--iter",
        "8",
        "--check",
        "-q",
        "--json",
        json.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    mpirun(n, &args).assert().success();
    let v = read_json(&json);
    assert_clean(&v, &SIZE_LIST);
    assert_eq!(v["world_size"], n as u64);
    v
}

#[test]
fn one_rank_runs_collectives_and_skips_single_transfers() {
    let v = checked_run(1, &[]);
    let e = entries(&v);
    for r in v["results"].as_array().unwrap() {
        let name = r["benchmark"].as_str().unwrap();
        if name == "PingPong" || name == "PingPing" {
            assert!(r["skipped"].as_str().unwrap().contains("at least 2"), "{r}");
        } else {
            assert!(r.get("skipped").is_none(), "{r}");
            assert_eq!(r["processes"], 1);
        }
    }
    assert_eq!(e.len(), 12);
}

#[test]
fn two_ranks_run_everything() {
    let v = checked_run(2, &[]);
    let e = entries(&v);
    for b in ALL {
        assert_eq!(e.iter().filter(|(n, _)| n == b).count(), 1, "{b}: {e:?}");
        assert!(e.contains(&(b.to_string(), 2)));
    }
}

#[test]
fn three_ranks_sweep_2_then_3() {
    let v = checked_run(3, &[]);
    let e = entries(&v);
    assert!(e.contains(&("PingPong".into(), 2)));
    assert!(!e.contains(&("PingPong".into(), 3)));
    for b in &ALL[2..] {
        assert!(e.contains(&(b.to_string(), 2)), "{b}");
        assert!(e.contains(&(b.to_string(), 3)), "{b}");
    }
    let pp = &v["results"].as_array().unwrap()[0];
    assert_eq!(pp["active"], 2);
}

#[test]
fn four_ranks_with_root_shift_and_npmin() {
    let v = checked_run(4, &["--root-shift"]);
    let e = entries(&v);
    for b in ["Bcast", "Reduce", "Alltoall", "Reduce_scatter"] {
        assert!(
            e.contains(&(b.to_string(), 2)) && e.contains(&(b.to_string(), 4)),
            "{b}"
        );
    }
    let v = checked_run(4, &["--npmin", "4", "allgatherv", "exchange"]);
    assert_eq!(
        entries(&v),
        vec![("Allgatherv".to_string(), 4), ("Exchange".to_string(), 4)]
    );
}

#[test]
fn multi_mode_runs_disjoint_groups() {
    let v = checked_run(4, &["--multi", "--multi-detail", "pingpong", "sendrecv"]);
    let r = v["results"].as_array().unwrap();
    assert_eq!(r[0]["benchmark"], "PingPong");
    assert_eq!(r[0]["mode"], "multi");
    assert_eq!(r[0]["groups"], 2);
    assert_eq!(r[0]["group_rows"].as_array().unwrap().len(), 2);
    // The reported maximum covers every group.
    let max = r[0]["rows"][3]["t_max_us"].as_f64().unwrap();
    for g in r[0]["group_rows"].as_array().unwrap() {
        assert!(g["rows"][3]["t_max_us"].as_f64().unwrap() <= max);
    }
}

#[test]
fn table_output_looks_like_pmb() {
    let out = mpirun(
        3,
        &[
            "run", "pingpong", "sendrecv", "--sizes", "0,1K", "--iter", "5",
        ],
    )
    .assert()
    .success()
    .get_output()
    .stdout
    .clone();
    let s = String::from_utf8(out).unwrap();
    assert!(s.contains("# Benchmarking PingPong"));
    assert!(
        s.contains("#bytes #repetitions      t[usec]   Mbytes/sec"),
        "{s}"
    );
    assert!(s.contains("t_min[usec]  t_max[usec]  t_avg[usec]   Mbytes/sec"));
    assert!(s.contains("( 1 additional processes waiting in MPI_Barrier)"));
    assert!(s.contains("# MPI library"));
    assert!(s.contains("# Command               : mpibench run pingpong"));
}

#[test]
fn csv_has_a_line_per_row() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("r.csv");
    mpirun(
        2,
        &[
            "run",
            "pingpong",
            "barrier",
            "--sizes",
            "0,8",
            "--iter",
            "3",
            "-q",
            "--csv",
            csv.to_str().unwrap(),
        ],
    )
    .assert()
    .success();
    let text = std::fs::read_to_string(csv).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[0].starts_with("benchmark,suite,processes,mode,group,bytes,repetitions,t_min_us"));
    assert_eq!(lines.len(), 1 + 2 + 1);
}

#[test]
fn self_launch_without_mpiexec() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("r.json");
    let mut cmd = assert_cmd::Command::cargo_bin("mpibench").unwrap();
    cmd.args([
        "run",
        "-n",
        "3",
        "barrier",
        "-q",
        "--iter",
        "2",
        "--json",
        json.to_str().unwrap(),
    ])
    .env("MPIBENCH_MPIEXEC", mpiexec())
    .timeout(std::time::Duration::from_secs(120));
    for v in [
        "OMPI_COMM_WORLD_SIZE",
        "PMI_RANK",
        "PMI_SIZE",
        "PMIX_RANK",
        "MPIBENCH_LAUNCHED",
        "SLURM_STEP_ID",
    ] {
        cmd.env_remove(v);
    }
    cmd.assert().success();
    assert_eq!(read_json(&json)["world_size"], 3);
}

#[test]
fn usage_errors_are_one_line_and_exit_2() {
    let out = mpirun(2, &["run", "PingPang"])
        .assert()
        .code(2)
        .get_output()
        .clone();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        err.trim(),
        "error: unknown benchmark 'PingPang' (did you mean PingPong?)"
    );
    mpirun(2, &["run", "--msglog", "5:3"]).assert().code(2);
    mpirun(2, &["run", "--npmin", "3"]).assert().code(2);
}

#[test]
fn list_shows_every_benchmark() {
    let out = assert_cmd::Command::cargo_bin("mpibench")
        .unwrap()
        .arg("list")
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let s = String::from_utf8(out).unwrap();
    for b in ALL {
        assert!(
            s.lines().any(|l| l.starts_with(b) && l.contains("imb")),
            "{b}"
        );
    }
}
