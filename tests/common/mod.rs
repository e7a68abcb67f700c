//! Helpers for integration tests that launch a real mpiexec.
#![allow(dead_code)]

pub mod browser;
pub mod imb_output;

use std::path::Path;
use std::process::Command;

/// The mpiexec to use: $MPIBENCH_MPIEXEC, else Open MPI's, else `mpiexec`.
pub fn mpiexec() -> String {
    if let Ok(m) = std::env::var("MPIBENCH_MPIEXEC") {
        return m;
    }
    for c in ["mpiexec.openmpi", "mpiexec"] {
        if Command::new(c).arg("--version").output().is_ok() {
            return c.to_string();
        }
    }
    "mpiexec".to_string()
}

pub fn is_open_mpi(mpiexec: &str) -> bool {
    Command::new(mpiexec)
        .arg("--version")
        .output()
        .map(|o| {
            let s = String::from_utf8_lossy(&o.stdout).to_string()
                + &String::from_utf8_lossy(&o.stderr);
            s.contains("Open MPI") || s.contains("OpenRTE")
        })
        .unwrap_or(false)
}

/// `mpiexec -n N mpibench ARGS...`, oversubscribed, allowed to run as root.
pub fn mpirun(n: usize, args: &[&str]) -> assert_cmd::Command {
    let mut cmd = mpirun_program(n, &assert_cmd::cargo::cargo_bin("mpibench"));
    cmd.args(args);
    cmd
}

/// `mpiexec -n N PROGRAM` (the binary, or a link to it under another
/// name), oversubscribed, allowed to run as root, bounded; arguments follow.
#[allow(dead_code)]
pub fn mpirun_program(n: usize, program: &Path) -> assert_cmd::Command {
    let m = mpiexec();
    let mut cmd = assert_cmd::Command::new(&m);
    if is_open_mpi(&m) {
        cmd.args(["--oversubscribe", "--quiet"]);
        cmd.env("OMPI_ALLOW_RUN_AS_ROOT", "1")
            .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1");
    }
    cmd.arg("-n").arg(n.to_string());
    cmd.arg(program);
    cmd.env_remove("MPIBENCH_MPIEXEC");
    cmd.timeout(std::time::Duration::from_secs(300));
    cmd
}

pub fn read_json(path: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(path).expect("results file exists");
    serde_json::from_str(&text).expect("results file is valid JSON")
}

/// `mpibench run -q --json FILE ARGS...` on N ranks, successful: its results.
pub fn run_json(n: usize, args: &[&str]) -> serde_json::Value {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("r.json");
    let mut a: Vec<&str> = vec!["run", "-q", "--json", json.to_str().unwrap()];
    a.extend_from_slice(args);
    mpirun(n, &a).assert().success();
    read_json(&json)
}

/// Every (benchmark, processes) pair of a report.
pub fn entries(v: &serde_json::Value) -> Vec<(String, u64)> {
    v["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["benchmark"].as_str().unwrap().to_string(),
                r["processes"].as_u64().unwrap(),
            )
        })
        .collect()
}

pub const ALL: [&str; 12] = [
    "PingPong",
    "PingPing",
    "Sendrecv",
    "Exchange",
    "Allreduce",
    "Reduce",
    "Reduce_scatter",
    "Allgather",
    "Allgatherv",
    "Alltoall",
    "Bcast",
    "Barrier",
];

/// Asserts what every checked run must satisfy: rows for the sizes, no
/// validation errors, positive times.
pub fn assert_clean(v: &serde_json::Value, sizes: &[u64]) {
    assert_eq!(v["schema"], "mpibench/1");
    assert_eq!(v["complete"], true);
    for r in v["results"].as_array().unwrap() {
        if r.get("skipped").is_some() {
            continue;
        }
        let name = r["benchmark"].as_str().unwrap();
        let rows = r["rows"].as_array().unwrap();
        let got: Vec<u64> = rows.iter().map(|x| x["bytes"].as_u64().unwrap()).collect();
        if name == "Barrier" {
            assert_eq!(got, vec![0], "{name}");
        } else {
            assert_eq!(got, sizes, "{name}");
        }
        for row in rows {
            assert_eq!(row["errors"], 0, "{name} {row}");
            assert!(row["repetitions"].as_u64().unwrap() >= 1, "{name} {row}");
            for f in ["t_min_us", "t_max_us", "t_avg_us"] {
                let t = row[f].as_f64().unwrap();
                assert!(t > 0.0 && t.is_finite(), "{name} {f} = {t}");
            }
            assert!(row["t_min_us"].as_f64() <= row["t_avg_us"].as_f64());
            assert!(row["t_avg_us"].as_f64() <= row["t_max_us"].as_f64());
        }
    }
}

/// `mpibench ARGS...` started without a launcher: it launches itself.
pub fn self_launched(args: &[&str]) -> assert_cmd::Command {
    let mut cmd = assert_cmd::Command::cargo_bin("mpibench").unwrap();
    cmd.args(args)
        .env("MPIBENCH_MPIEXEC", mpiexec())
        .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        .timeout(std::time::Duration::from_secs(300));
    for v in [
        "OMPI_COMM_WORLD_SIZE",
        "PMI_RANK",
        "PMI_SIZE",
        "PMIX_RANK",
        "MPI_LOCALRANKID",
        "MPIBENCH_LAUNCHED",
        "SLURM_STEP_ID",
        "SLURM_PROCID",
    ] {
        cmd.env_remove(v);
    }
    cmd
}

/// `LINK ARG` without a launcher (-list, -h): its stdout.
pub fn named(link: &Path, arg: &str) -> String {
    let out = assert_cmd::Command::new(link).arg(arg).assert().success();
    String::from_utf8_lossy(&out.get_output().stdout).into_owned()
}

/// `mpibench ARGS`, a usage error: its one line on stderr (exit 2).
pub fn usage_error(args: &[&str]) -> String {
    let bad = assert_cmd::Command::cargo_bin("mpibench")
        .unwrap()
        .args(args)
        .assert()
        .code(2);
    let err = String::from_utf8_lossy(&bad.get_output().stderr).into_owned();
    assert_eq!(err.lines().count(), 1, "{err}");
    err.trim_end().to_string()
}

/// Each command line a usage error whose line starts as said.
pub fn usage_errors_start_with(cases: &[(&[&str], &str)]) {
    for (args, says) in cases {
        let err = usage_error(args);
        assert!(err.starts_with(says), "{args:?}: {err}");
    }
}
