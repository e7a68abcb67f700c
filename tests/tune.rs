//! `mpibench tune` against the library the binary is linked with (both
//! MPIs, each leg its own build): it finds the library's algorithms for
//! Allreduce and Bcast, writes the library's rules file, and the library
//! reads it: a run with the file loaded succeeds, and the same file with
//! its algorithm names or numbers broken makes the library fail (so the
//! file is read, not ignored); on 4 oversubscribed ranks each process count
//! of IMB's sweep gets its rules. No timing is asserted.

mod common;
use common::*;

use std::path::Path;

/// Loads `file` into `mpiexec -n 2 mpibench run` of Allreduce and Bcast
/// (under mpiexec, so that the library's own messages reach stderr).
fn run_with(file: &Path, open_mpi: bool) -> assert_cmd::Command {
    let mut cmd = mpirun(
        2,
        &[
            "run",
            "--suite",
            "imb",
            "Allreduce",
            "Bcast",
            "--sizes",
            "8,64K",
            "--iter",
            "5",
        ],
    );
    if open_mpi {
        cmd.env("OMPI_MCA_coll_tuned_use_dynamic_rules", "1")
            .env("OMPI_MCA_coll_tuned_dynamic_rules_filename", file);
    } else {
        cmd.env("MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE", file);
    }
    cmd
}

/// The rules file with every algorithm made one the library does not have:
/// Open MPI's rule lines ("bytes alg fan seg") get algorithm 99, MPICH's
/// Allreduce and Bcast containers a name it does not know.
fn broken(text: &str, open_mpi: bool) -> String {
    if !open_mpi {
        return text
            .replace(
                "algorithm=MPIR_Allreduce_intra_",
                "algorithm=MPIR_Allreduce_intra_bogus_",
            )
            .replace(
                "algorithm=MPIR_Bcast_intra_",
                "algorithm=MPIR_Bcast_intra_bogus_",
            );
    }
    text.lines()
        .map(|l| {
            let rule = l.split('#').next().unwrap_or("");
            let f: Vec<&str> = rule.split_whitespace().collect();
            if f.len() == 4 && f.iter().all(|x| x.parse::<u64>().is_ok()) {
                format!("{} 99 4 0", f[0])
            } else {
                l.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn tune_finds_algorithms_writes_a_rules_file_and_the_library_reads_it() {
    let dir = tempfile::tempdir().unwrap();
    let rules = dir.path().join("rules");
    let json = dir.path().join("tune.json");
    let out = self_launched(&[
        "tune",
        "Allreduce",
        "bcast",
        "-n",
        "2",
        "--sizes",
        "8,64K",
        "--iter",
        "10",
        "--rules",
        rules.to_str().unwrap(),
        "--json",
        json.to_str().unwrap(),
    ])
    .assert()
    .success();
    let stdout = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    assert!(stdout.contains("# Allreduce on 2 processes"), "{stdout}");
    assert!(stdout.contains("# Bcast on 2 processes"), "{stdout}");
    assert!(stdout.contains("# load it with: "), "{stdout}");
    let v = read_json(&json);
    assert_eq!(v["schema"], "mpibench-tune/1");
    let rows = v["rows"].as_array().unwrap();
    let mut seen = Vec::new();
    for r in rows {
        let coll = r["collective"].as_str().unwrap();
        seen.push((coll.to_string(), r["bytes"].as_u64().unwrap()));
        assert_eq!(r["processes"], 2, "{r}");
        let algs = r["algorithms"].as_array().unwrap();
        let measured = algs.iter().filter(|a| a["median_us"].is_f64()).count();
        assert!(
            measured >= 2,
            "{coll}: at least two algorithms measured: {r}"
        );
        assert!(r["default_us"].as_f64().unwrap() > 0.0, "{r}");
        assert!(r["after_us"].as_f64().unwrap() > 0.0, "{r}");
        let rule = r["rule"].as_str().unwrap();
        assert!(
            rule == "default"
                || algs
                    .iter()
                    .any(|a| rule == format!("{} {}", a["id"], a["name"].as_str().unwrap())),
            "{r}"
        );
        if !r["reverted_p"].is_null() {
            assert_eq!(rule, "default", "a reverted size keeps the default: {r}");
        }
    }
    seen.sort();
    assert_eq!(
        seen,
        [
            ("Allreduce".to_string(), 8),
            ("Allreduce".to_string(), 65536),
            ("Bcast".to_string(), 8),
            ("Bcast".to_string(), 65536)
        ]
    );
    // The library's own format, which it reads.
    let text = std::fs::read_to_string(&rules).unwrap();
    let open_mpi = text.contains("coll_tuned");
    if open_mpi {
        assert!(text.starts_with("# mpibench tune"), "{text}");
    } else {
        let tree: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert!(
            tree["collective=allreduce"]["comm_type=intra"]["comm_size<=2"].is_object(),
            "{text}"
        );
        assert!(tree["collective=bcast"].is_object() && tree["collective=barrier"].is_object());
    }
    run_with(&rules, open_mpi).assert().success();
    let bad = dir.path().join("broken");
    std::fs::write(&bad, broken(&text, open_mpi)).unwrap();
    assert_ne!(std::fs::read_to_string(&bad).unwrap(), text);
    let out = run_with(&bad, open_mpi).assert().failure();
    let err = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    let says = if open_mpi {
        "MPI_ERR_ARG"
    } else {
        "unrecognized key"
    };
    assert!(
        err.contains(says),
        "the library read the broken file: {err}"
    );
}

#[test]
fn bad_command_lines_are_one_line_usage_errors() {
    usage_errors_start_with(&[
        (
            &["tune"],
            "error: mpibench tune needs a collective to tune: Allreduce, Bcast",
        ),
        (
            &["tune", "Allgatherv"],
            "error: mpibench tune knows no collective 'Allgatherv'",
        ),
        (&["tune", "Allreduce", "--sizes", "8,x"], "error: "),
        (
            &["tune", "Allreduce", "--iter", "2"],
            "error: --iter must be at least 5",
        ),
        (
            &["tune", "Allreduce", "--bogus"],
            "error: unexpected argument '--bogus'",
        ),
        (
            &["tune", "Allreduce", "--rules", "/nonexistent/dir/r.conf"],
            "error: cannot write '/nonexistent/dir/r.conf'",
        ),
        (
            &["tune", "Allreduce", "--rules", "/tmp"],
            "error: cannot write '/tmp': is a directory",
        ),
    ]);
    // Under a launcher: once, not once per rank.
    let out = mpirun(2, &["tune", "Allreduce"]).assert().code(2);
    let err = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert_eq!(
        err.matches("mpibench tune starts its own launches").count(),
        1,
        "{err}"
    );
}

#[test]
fn four_oversubscribed_ranks_get_rules_per_process_count() {
    let dir = tempfile::tempdir().unwrap();
    let rules = dir.path().join("rules");
    let json = dir.path().join("tune.json");
    self_launched(&[
        "tune",
        "allreduce",
        "-n",
        "4",
        "--sizes",
        "8",
        "--iter",
        "5",
        "--rules",
        rules.to_str().unwrap(),
        "--json",
        json.to_str().unwrap(),
    ])
    .env("OMPI_MCA_rmaps_base_oversubscribe", "1")
    .assert()
    .success();
    let v = read_json(&json);
    let counts: Vec<u64> = v["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["processes"].as_u64().unwrap())
        .collect();
    assert_eq!(counts, [2, 4], "IMB's sweep: one row per process count");
    let text = std::fs::read_to_string(&rules).unwrap();
    for p in [2, 4] {
        let block = if text.contains("coll_tuned") {
            format!("\n{p} # from {p} processes\n")
        } else {
            format!("\"comm_size<={p}\": {{")
        };
        assert!(text.contains(&block), "{block}: {text}");
    }
}
