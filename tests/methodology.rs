//! Measurement methodology: clock synchronisation, per-call samples,
//! statistics fields, window synchronisation, adaptive repetitions, raw samples.

mod common;
use common::*;

fn run_json(n: usize, args: &[&str]) -> serde_json::Value {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("r.json");
    let mut a: Vec<&str> = vec!["run", "-q", "--json", json.to_str().unwrap()];
    a.extend_from_slice(args);
    mpirun(n, &a).assert().success();
    read_json(&json)
}

fn clocksync_residuals_are_small(n: usize) {
    let v = run_json(n, &["clocksync"]);
    let r = &v["results"][0];
    assert_eq!(r["benchmark"], "clocksync");
    let rows = r["rows"].as_array().unwrap();
    assert_eq!(rows.len(), n);
    for (k, row) in rows.iter().enumerate() {
        assert_eq!(row["rank"], k as u64);
        for f in ["offset_us", "drift_ppm", "residual_us"] {
            assert!(row[f].as_f64().unwrap().is_finite(), "{f}: {row}");
        }
        // One node shares one clock: whatever the load (a loaded,
        // oversubscribed machine puts a few hundred microseconds into a
        // round trip), far below what a wrong sign or unit would give.
        assert!(row["residual_us"].as_f64().unwrap() < 50_000.0, "{row}");
    }
    assert_eq!(rows[0]["offset_us"], 0.0);
    assert_eq!(rows[0]["residual_us"], 0.0);
}

#[test]
fn clocksync_on_two_ranks() {
    clocksync_residuals_are_small(2);
}

#[test]
fn clocksync_on_four_ranks() {
    clocksync_residuals_are_small(4);
}

#[test]
fn timing_reports_resolution_and_read_cost() {
    let v = run_json(2, &["clock/timing"]);
    let rows = v["results"][0]["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 2);
    for row in rows {
        let dt = row["overhead_us"].as_f64().unwrap();
        let res = row["resolution_us"].as_f64().unwrap();
        assert!(dt > 0.0 && dt < 100.0, "{row}");
        assert!(res > 0.0 && res.is_finite(), "{row}");
        assert!(row["tick_us"].as_f64().unwrap() > 0.0);
    }
}

fn assert_stats(row: &serde_json::Value) {
    let f = |k: &str| {
        row[k]
            .as_f64()
            .unwrap_or_else(|| panic!("{k} missing in {row}"))
    };
    let (lo, med, hi) = (f("ci95_lo_us"), f("t_median_us"), f("ci95_hi_us"));
    assert!(lo <= med && med <= hi && lo > 0.0, "{row}");
    assert!(f("t_p5_us") <= med && med <= f("t_p95_us"), "{row}");
    assert!(row["valid"].as_u64().unwrap() >= 1);
    assert!(row["invalid"].as_u64().is_some());
    assert!(row["outliers"].as_u64().is_some());
}

#[test]
fn per_call_timing_gives_statistics_per_row() {
    for sync in ["barrier", "dissemination", "none"] {
        let v = run_json(
            3,
            &[
                "pingpong",
                "allreduce",
                "--sizes",
                "8,1K",
                "--iter",
                "50",
                "--timing",
                "per-call",
                "--sync",
                sync,
            ],
        );
        assert_eq!(v["settings"]["timing"], "per-call");
        assert_eq!(v["settings"]["sync"], sync);
        for r in v["results"].as_array().unwrap() {
            for row in r["rows"].as_array().unwrap() {
                assert_stats(row);
                assert_eq!(
                    row["valid"].as_u64().unwrap() + row["invalid"].as_u64().unwrap(),
                    50
                );
                let (a, b) = (
                    row["t_median_min_us"].as_f64().unwrap(),
                    row["t_median_max_us"].as_f64().unwrap(),
                );
                assert!(
                    a <= row["t_median_avg_us"].as_f64().unwrap()
                        && row["t_median_avg_us"].as_f64().unwrap() <= b
                );
                assert!(
                    row["t_global_us"].is_null(),
                    "no global clock without --sync window"
                );
            }
        }
    }
}

#[test]
fn loop_timing_keeps_pmb_fields_and_adds_statistics() {
    let v = run_json(2, &["sendrecv", "--sizes", "64", "--iter", "20"]);
    let row = &v["results"][0]["rows"][0];
    assert_stats(row);
    assert!(row["stopped_on_bound"].is_null());
}

#[test]
fn window_sync_reports_global_time_and_late_starts() {
    let v = run_json(
        2,
        &[
            "allreduce",
            "pingpong",
            "--sizes",
            "8,1K",
            "--iter",
            "40",
            "--sync",
            "window",
            "--timing",
            "per-call",
            "--window-us",
            "50",
        ],
    );
    for r in v["results"].as_array().unwrap() {
        assert_eq!(r["sync"], "window");
        for row in r["rows"].as_array().unwrap() {
            let valid = row["valid"].as_u64().unwrap();
            assert_eq!(valid + row["invalid"].as_u64().unwrap(), 40, "{row}");
            assert!(row["window_us"].as_f64().unwrap() >= 49.99, "{row}");
            if valid == 0 {
                // Never a figure from nothing: null statistics and a note.
                assert!(row["t_median_us"].is_null(), "{row}");
                assert!(row["note"].as_str().unwrap().contains("no valid sample"));
                continue;
            }
            let g = row["t_global_us"]
                .as_f64()
                .expect("t_global_us with synchronised clocks");
            assert!(g > 0.0 && g.is_finite());
            assert!(row["skew_us"].as_f64().unwrap() >= 0.0, "{row}");
        }
    }
}

#[test]
fn precision_adapts_and_flags_bounds() {
    let v = run_json(2, &["pingpong", "--sizes", "8", "--precision", "0.05"]);
    let row = &v["results"][0]["rows"][0];
    assert_stats(row);
    assert!(row["stopped_on_bound"].is_boolean());
    if row["stopped_on_bound"] == false {
        let (lo, med, hi) = (
            row["ci95_lo_us"].as_f64().unwrap(),
            row["t_median_us"].as_f64().unwrap(),
            row["ci95_hi_us"].as_f64().unwrap(),
        );
        assert!((hi - lo) / 2.0 / med <= 0.05 + 1e-9, "{row}");
    }
    // An impossible target stops on --max-iter, and says so.
    let v = run_json(
        2,
        &[
            "pingpong",
            "--sizes",
            "8",
            "--precision",
            "0.000001",
            "--max-iter",
            "40",
        ],
    );
    let row = &v["results"][0]["rows"][0];
    assert_eq!(row["stopped_on_bound"], true);
    assert!(row["repetitions"].as_u64().unwrap() <= 40);
}

#[test]
fn raw_samples_have_one_line_per_call_and_rank() {
    let dir = tempfile::tempdir().unwrap();
    let raw = dir.path().join("raw.csv");
    mpirun(
        2,
        &[
            "run",
            "-q",
            "bcast",
            "--sizes",
            "0,8",
            "--iter",
            "7",
            "--timing",
            "per-call",
            "--raw",
            raw.to_str().unwrap(),
        ],
    )
    .assert()
    .success();
    let text = std::fs::read_to_string(raw).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[0],
        "rank,benchmark,processes,bytes,repetition,start_s,end_s"
    );
    assert_eq!(lines.len(), 1 + 2 * 2 * 7);
    for l in &lines[1..] {
        let f: Vec<&str> = l.split(',').collect();
        let (s, e): (f64, f64) = (f[5].parse().unwrap(), f[6].parse().unwrap());
        assert!(e >= s, "{l}");
    }
}

#[test]
fn stats_table_shows_median_and_ci() {
    let out = mpirun(
        2,
        &[
            "run", "pingpong", "--sizes", "8", "--iter", "30", "--timing", "per-call", "--stats",
        ],
    )
    .assert()
    .success()
    .get_output()
    .stdout
    .clone();
    let s = String::from_utf8(out).unwrap();
    assert!(
        s.contains("t_median[usec]") && s.contains("ci95_lo") && s.contains("outliers"),
        "{s}"
    );
}

/// A run's JSON and its tables.
fn run_json_and_text(n: usize, args: &[&str]) -> (serde_json::Value, String) {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("r.json");
    let mut a: Vec<&str> = vec!["run", "--json", json.to_str().unwrap()];
    a.extend_from_slice(args);
    let out = mpirun(n, &a).assert().success().get_output().stdout.clone();
    (read_json(&json), String::from_utf8_lossy(&out).into_owned())
}

/// Page faults in the timed region: a hidden hook touches 3 fresh pages per
/// repetition inside every timed batch, on every rank; each row counts 3 per
/// repetition (the maximum over the ranks), is flagged, and the table says
/// why. Without it, PingPong's rows count none. `--malloc stable` is in the
/// context and the header.
#[test]
fn page_faults_in_the_timed_region_are_counted_and_flagged() {
    for timing in ["loop", "per-call"] {
        let (v, text) = run_json_and_text(
            2,
            &[
                "imb/PingPong",
                "imb/Allreduce",
                "--sizes",
                "8,1K",
                "--iter",
                "200",
                "--timing",
                timing,
                "--test-fresh-pages",
                "3",
            ],
        );
        for r in v["results"].as_array().unwrap() {
            for row in r["rows"].as_array().unwrap() {
                let f = row["page_faults"].as_f64().unwrap();
                assert!((3.0..3.5).contains(&f), "{timing}: {row}");
                assert_eq!(row["faulted"], true, "{timing}: {row}");
                assert!(
                    row["note"]
                        .as_str()
                        .unwrap()
                        .contains("page faults in the timed region: 3"),
                    "{row}"
                );
            }
        }
        assert!(
            text.contains("page faults in the timed region"),
            "{timing}: {text}"
        );
    }
    let (v, text) = run_json_and_text(
        2,
        &["imb/PingPong", "--sizes", "8,1K", "--malloc", "stable"],
    );
    for row in v["results"][0]["rows"].as_array().unwrap() {
        assert_eq!(row["page_faults"].as_f64(), Some(0.0), "{row}");
        assert!(row.get("faulted").is_none(), "{row}");
    }
    assert_eq!(v["context"]["malloc"], "stable");
    assert!(
        text.contains("# Allocator             : --malloc stable"),
        "{text}"
    );
    assert!(!text.contains("page faults"), "{text}");
}

/// Ranks that share cores: twice as many ranks as this machine has
/// processors say so in the header, the JSON's context and the report, and
/// `--sync window` is warned about before the run starts; two ranks (on a
/// machine of two or more processors) share nothing and say nothing.
#[test]
fn ranks_that_share_cores_are_stated_everywhere() {
    let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
    let n = (2 * cores).min(16);
    let dir = tempfile::tempdir().unwrap();
    let (json, html) = (dir.path().join("r.json"), dir.path().join("r.html"));
    let out = mpirun(
        n,
        &[
            "run",
            "--json",
            json.to_str().unwrap(),
            "--report",
            html.to_str().unwrap(),
            "imb/PingPong",
            "--sizes",
            "8",
            "--iter",
            "20",
            "--sync",
            "window",
            "--timing",
            "per-call",
        ],
    )
    .assert()
    .success()
    .get_output()
    .clone();
    let (text, err) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    let v = read_json(&json);
    let cx = &v["context"];
    assert_eq!(cx["oversubscribed"], true, "{cx}");
    let ranks: u64 = cx["hosts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["ranks"].as_u64().unwrap())
        .sum();
    assert_eq!(ranks, n as u64);
    assert_eq!(cx["binding"].as_array().unwrap().len(), n);
    assert!(cx["mpi_library"].as_str().unwrap().len() > 3, "{cx}");
    assert!(cx["mpibench"]["version"].is_string(), "{cx}");
    assert!(text.contains("ranks share cores"), "{text}");
    assert!(
        err.contains("warning: --sync window on ranks that share cores"),
        "{err}"
    );
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.contains("shared cores"), "the report says it");
    if cores >= 2 {
        let (v, text) = run_json_and_text(2, &["imb/PingPong", "--sizes", "8", "--iter", "20"]);
        assert_eq!(v["context"]["oversubscribed"], false);
        assert!(!text.contains("share cores"), "{text}");
    }
}
