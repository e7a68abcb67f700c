//! `--launches N` through real launches: the self-launching parent runs N
//! launches, keeps every launch's rows under `launches` and combines each
//! row into the median of the launch medians with a between-launch CI and
//! both spreads; a launcher of the user's cannot relaunch; `compare` takes
//! the launch medians as replicates. No timing is asserted.

mod common;
use common::*;

fn f(v: &serde_json::Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

/// `mpibench run -n 2 --launches N ...` in a fresh directory: its JSON and stdout.
fn launched(n: usize, args: &[&str]) -> (serde_json::Value, String, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("l.json");
    let n = n.to_string();
    let mut a = vec![
        "run",
        "-n",
        "2",
        "-q",
        "--launches",
        &n,
        "--json",
        json.to_str().unwrap(),
    ];
    a.extend_from_slice(args);
    let out = self_launched(&a).current_dir(dir.path()).assert().success();
    let stdout = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    // The launches' private files are gone.
    let left: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(left, ["l.json"], "{left:?}");
    (read_json(&json), stdout, dir)
}

const PINGPONG: &[&str] = &[
    "--suite", "imb", "PingPong", "Sendrecv", "--sizes", "8,1K", "--iter", "50", "--timing",
    "per-call",
];

#[test]
fn three_launches_keep_their_rows_and_every_combined_row_its_launch_medians() {
    let (v, stdout, _dir) = launched(3, PINGPONG);
    assert_eq!(v["status"], "ok");
    assert_eq!(v["complete"], true);
    let launches = v["launches"].as_array().unwrap();
    assert_eq!(launches.len(), 3);
    for (k, l) in launches.iter().enumerate() {
        assert_eq!(l["launch"], k + 1);
        assert_eq!(l["status"], "ok");
        let names: Vec<&str> = l["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["benchmark"].as_str().unwrap())
            .collect();
        // Each launch runs the whole list: the benchmarks alternate.
        assert_eq!(names, ["PingPong", "Sendrecv"]);
        for r in l["results"].as_array().unwrap() {
            let rows = r["rows"].as_array().unwrap();
            assert_eq!(rows.len(), 2);
            for row in rows {
                assert!(row["samples_us"].as_array().is_some_and(|s| !s.is_empty()));
                assert!(row.get("launch_medians_us").is_none());
            }
        }
    }
    let results = v["results"].as_array().unwrap();
    assert_eq!(results.len(), 2);
    for (i, r) in results.iter().enumerate() {
        for (j, row) in r["rows"].as_array().unwrap().iter().enumerate() {
            let medians: Vec<f64> = row["launch_medians_us"]
                .as_array()
                .unwrap()
                .iter()
                .map(f)
                .collect();
            assert_eq!(medians.len(), 3, "{row}");
            // Each is its launch's own median of the row.
            for (k, m) in medians.iter().enumerate() {
                let own = &launches[k]["results"][i]["rows"][j];
                assert_eq!(*m, f(&own["t_median_us"]), "{own}");
            }
            let mut sorted = medians.clone();
            sorted.sort_by(f64::total_cmp);
            let median = f(&row["t_median_us"]);
            assert_eq!(median, sorted[1]);
            let (lo, hi) = (f(&row["between_ci95_lo_us"]), f(&row["between_ci95_hi_us"]));
            assert!(lo <= median && median <= hi, "{row}");
            // With three launches the CI is their range.
            assert_eq!((lo, hi), (sorted[0], sorted[2]));
            assert_eq!((f(&row["ci95_lo_us"]), f(&row["ci95_hi_us"])), (lo, hi));
            let between = f(&row["between_spread_us"]);
            assert!((between - (sorted[2] - sorted[0])).abs() < 1e-9, "{row}");
            let within = f(&row["within_spread_us"]);
            assert!(within >= 0.0);
            // Ties (the clock's steps) are not domination.
            let flag = row["launch_spread_dominates"].as_bool().unwrap();
            assert_eq!(flag, between - within > 1e-9 * median, "{row}");
            assert_eq!(row["repetitions"], 150);
        }
    }
    // The table: the suite's own, then the launches part of each result.
    assert!(stdout.contains("# Benchmarking PingPong"), "{stdout}");
    assert!(stdout.contains("# PingPong, 3 launches:"), "{stdout}");
    assert!(stdout.contains("# Sendrecv, 3 launches:"), "{stdout}");
    assert!(stdout.contains("between CI95[usec]"), "{stdout}");
}

#[test]
fn compare_takes_the_launch_medians_as_replicates() {
    let args = ["--suite", "imb", "PingPong", "--sizes", "8", "--iter", "20"];
    let (_, _, a) = launched(4, &args);
    let (_, _, b) = launched(4, &args);
    let out = assert_cmd::Command::cargo_bin("mpibench")
        .unwrap()
        .args([
            "compare",
            a.path().join("l.json").to_str().unwrap(),
            b.path().join("l.json").to_str().unwrap(),
        ])
        .assert()
        .success();
    let text = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    assert!(
        text.contains("Mann-Whitney U over launch medians") && text.contains("(n=4/4)"),
        "{text}"
    );
}

#[test]
fn one_launch_is_a_plain_run_and_n_must_be_positive() {
    let (v, _, _dir) = launched(1, &["PingPong", "--sizes", "8", "--iter", "10"]);
    assert!(v.get("launches").is_none(), "{v}");
    assert!(v["results"][0]["rows"][0]
        .get("launch_medians_us")
        .is_none());
    usage_errors_start_with(&[
        (
            &["run", "--launches", "0", "PingPong"],
            "error: invalid value '0'",
        ),
        (
            &[
                "run",
                "-n",
                "2",
                "--launches",
                "2",
                "--raw",
                "-",
                "PingPong",
            ],
            "error: --launches 2 cannot write --raw",
        ),
        (
            &[
                "run",
                "-n",
                "2",
                "--launches",
                "2",
                "--repeats",
                "2",
                "PingPong",
            ],
            "error: --launches 2 and --repeats",
        ),
    ]);
}

#[test]
fn a_launcher_of_the_users_cannot_relaunch() {
    let out = mpirun(2, &["run", "--launches", "3", "PingPong", "--sizes", "8"])
        .assert()
        .code(2);
    let o = out.get_output();
    assert!(o.stdout.is_empty());
    let err = String::from_utf8_lossy(&o.stderr);
    let ours: Vec<&str> = err.lines().filter(|l| l.contains("--launches")).collect();
    assert_eq!(
        ours,
        ["error: --launches 3 needs mpibench to start the launches itself: run it without mpiexec or srun (inside a Slurm allocation, mpibench run calls srun)"],
        "{err}"
    );
}

#[test]
fn a_failed_launch_fails_the_run_in_one_line_and_keeps_the_launches_before_it() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("l.json");
    let out = self_launched(&[
        "run",
        "-n",
        "2",
        "-q",
        "--launches",
        "3",
        "--json",
        json.to_str().unwrap(),
        "PingPong",
        "--sizes",
        "8",
        "--iter",
        "10",
    ])
    .env("MPIBENCH_TEST_FAIL_LAUNCH", "2")
    .current_dir(dir.path())
    .assert()
    .code(3);
    let err = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.starts_with("error: rank 1"), "{err}");
    let v = read_json(&json);
    assert_eq!(v["complete"], false);
    assert_eq!(v["status"], "aborted");
    // Launch 2 died before it wrote anything: launch 1 alone, no launch 3.
    assert_eq!(v["launches"].as_array().unwrap().len(), 1);
    assert_eq!(v["launches"][0]["status"], "ok");
    let row = &v["results"][0]["rows"][0];
    assert_eq!(row["launch_medians_us"].as_array().unwrap().len(), 1);
    let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert_eq!(left.len(), 1, "the launches' private files are gone");
}

/// Issue 36: `--dry-run` with `--launches N` says so, and prints one
/// launch's command, which runs as it is printed.
#[test]
fn a_dry_run_of_launches_prints_a_command_that_runs() {
    let dir = tempfile::tempdir().unwrap();
    let out = self_launched(&[
        "run",
        "-n",
        "2",
        "--launches",
        "3",
        "--dry-run",
        "PingPong",
        "--sizes",
        "8",
        "--iter",
        "10",
        "-q",
    ])
    .current_dir(dir.path())
    .assert()
    .success();
    let text = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2, "{text}");
    assert!(lines[0].starts_with("# --launches 3: "), "{text}");
    assert!(!lines[1].contains("--launches"), "{text}");
    assert!(!lines[1].contains("--dry-run"), "{text}");
    let run = std::process::Command::new("bash")
        .args(["-c", lines[1]])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}: {}",
        lines[1],
        String::from_utf8_lossy(&run.stderr)
    );
    assert!(
        String::from_utf8_lossy(&run.stdout).contains("PingPong"),
        "{}",
        String::from_utf8_lossy(&run.stdout)
    );
}
