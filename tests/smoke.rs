//! Smoke test run against every MPI implementation (`make test` runs it
//! against MPICH as well): all benchmarks, checked, on 2 ranks.

mod common;
use common::*;

#[test]
fn every_benchmark_validates_on_two_ranks() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("r.json");
    mpirun(
        2,
        &[
            "run",
            "--sizes",
            "0,1,1K,100K",
            "--iter",
            "10",
            "--check",
            "-q",
            "--json",
            json.to_str().unwrap(),
        ],
    )
    .assert()
    .success();
    let v = read_json(&json);
    assert_clean(&v, &[0, 1, 1024, 102400]);
    let e = entries(&v);
    for b in ALL {
        assert!(e.contains(&(b.to_string(), 2)), "{b} missing: {e:?}");
    }
    assert_eq!(v["world_size"], 2);
}

#[test]
fn corrupted_buffer_is_detected() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("r.json");
    let out = mpirun(
        2,
        &[
            "run",
            "pingpong",
            "allreduce",
            "--sizes",
            "64",
            "--iter",
            "5",
            "--check",
            "--corrupt",
            "-q",
            "--json",
            json.to_str().unwrap(),
        ],
    )
    .assert()
    .code(1)
    .get_output()
    .clone();
    assert!(String::from_utf8_lossy(&out.stderr).contains("validation found"));
    let v = read_json(&json);
    assert_eq!(v["complete"], true);
    for r in v["results"].as_array().unwrap() {
        assert!(r["rows"][0]["errors"].as_u64().unwrap() > 0, "{r}");
    }
}

/// bench/overhead.sh takes at least 9 interleaved rounds: fewer are a usage
/// error before anything is built or launched.
#[test]
fn the_overhead_yardstick_refuses_fewer_than_nine_rounds() {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/bench/overhead.sh");
    for rounds in ["1", "8"] {
        let out = std::process::Command::new("bash")
            .arg(script)
            .env("ROUNDS", rounds)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "ROUNDS={rounds}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("at least 9"), "ROUNDS={rounds}: {err}");
        assert_eq!(err.trim().lines().count(), 1, "{err}");
    }
}
