//! COMMTEST: all 21 protocols × SWAP and SENDRECV × the basic and the
//! prepost program, validated, on 2, 3 and 4 ranks; distance and node-zero
//! placements; LogGP; the front end; bad input. Small volumes and one
//! iteration: these tests check correctness, never timings.

mod common;
use common::*;

use serde_json::Value;

fn s<'v>(row: &'v Value, k: &str) -> &'v str {
    row["params"][k]
        .as_str()
        .unwrap_or_else(|| panic!("{k} in {row}"))
}

/// Every protocol, both programs, checked: 21 basic and 20 prepost sweeps
/// of 2 packet counts per pattern ((0,6) native sendrecv has no prepost program).
fn all_protocols_checked(n: usize) {
    let v = run_json(
        n,
        &[
            "--suite",
            "commtest",
            "swap",
            "sendrecv",
            "--volume",
            "4K",
            "--min-packet",
            "2K",
            "--iter",
            "1",
            "--warmup",
            "1",
            "--prepost=both",
            "--check",
        ],
    );
    assert_eq!(v["complete"], true);
    let results = v["results"].as_array().unwrap();
    assert_eq!(results.len(), 2);
    for r in results {
        let name = r["benchmark"].as_str().unwrap();
        assert_eq!(r["processes"], n as u64);
        assert_eq!(r["method"], "max-over-processes");
        let rows = r["rows"].as_array().unwrap();
        assert_eq!(rows.len(), 41 * 2, "{name} on {n}");
        let mut sweeps: Vec<(String, bool)> = Vec::new();
        for row in rows {
            assert_eq!(row["errors"], 0, "{name} on {n}: {row}");
            assert_eq!(row["bytes"], 4096);
            assert_eq!(s(row, "pattern"), name);
            let k = row["params"]["packets"].as_u64().unwrap();
            assert_eq!(row["params"]["packet_bytes"].as_u64().unwrap() * k, 4096);
            assert_eq!(row["params"]["distance"], 1);
            assert!(row["t_median_us"].as_f64().unwrap() > 0.0);
            assert!(
                row["t_global_us"].as_f64().is_some(),
                "synchronised clocks give t_glob"
            );
            assert!(row["discrepant"].as_bool().is_some());
            let key = (
                s(row, "protocol").to_string(),
                row["params"]["prepost"].as_bool().unwrap(),
            );
            if !sweeps.contains(&key) {
                sweeps.push(key);
            }
        }
        assert_eq!(sweeps.len(), 41);
        assert!(!sweeps.contains(&("(0,6)".to_string(), true)));
        assert!(sweeps.contains(&("(1,10)".to_string(), true)));
        assert!(r["note"].as_str().unwrap().contains("no separate receive"));
        // One fit per sweep, and the fastest protocols per program and packet count.
        let fits = r["fits"].as_array().unwrap();
        assert_eq!(fits.len(), 41);
        for f in fits {
            assert_eq!(f["points"], 2);
            assert!(f["alpha_us"].as_f64().unwrap().is_finite());
            assert!(f["max_mbs"].as_f64().unwrap() > 0.0);
            assert_eq!(f["spots"].as_array().unwrap().len(), 1);
        }
        assert_eq!(r["best"].as_array().unwrap().len(), 4);
    }
    let sendrecv = &results[1];
    assert_eq!(sendrecv["placement"], "r->r+1");
}

#[test]
fn all_protocols_on_2_ranks() {
    all_protocols_checked(2);
}

#[test]
fn all_protocols_on_3_ranks() {
    all_protocols_checked(3);
}

#[test]
fn all_protocols_on_4_ranks() {
    all_protocols_checked(4);
}

#[test]
fn distance_and_node_zero() {
    let common = [
        "--suite",
        "commtest",
        "--volume",
        "2K",
        "--min-packet",
        "1K",
        "--iter",
        "1",
        "--warmup",
        "1",
        "--protocols",
        "(0,4),(1,6),(1,10)",
        "--prepost=both",
        "--check",
        "--distance",
        "2",
    ];
    let mut a = common.to_vec();
    a.extend(["swap", "sendrecv", "--communicating", "zero"]);
    let v = run_json(4, &a);
    let r = v["results"].as_array().unwrap();
    assert_eq!(r[0]["placement"], "0<->2");
    assert_eq!(r[1]["placement"], "0->2 cycle");
    // The seed's words on --pairs: the same placement.
    let mut a = common.to_vec();
    a.extend(["swap", "--pairs", "zero"]);
    let v = run_json(4, &a);
    assert_eq!(v["results"][0]["placement"], "0<->2");
    assert_eq!(v["results"][0]["rows"][0]["params"]["pairs"], "zero");
    let mut a = common.to_vec();
    a.extend(["sendrecv"]);
    let v = run_json(3, &a);
    let r = &v["results"][0];
    assert_eq!(r["placement"], "r->r+2");
    for row in r["rows"].as_array().unwrap() {
        assert_eq!(row["errors"], 0, "{row}");
        assert_eq!(row["params"]["distance"], 2);
    }
}

#[test]
fn loggp_parameters() {
    let v = run_json(2, &["--suite", "commtest", "loggp", "--iter", "10"]);
    let r = &v["results"][0];
    assert_eq!(r["benchmark"], "loggp");
    assert_eq!(r["rows"].as_array().unwrap().len(), 17);
    let l = &r["loggp"];
    for k in ["L_us", "o_s_us", "o_r_us", "g_us", "G_us_per_byte"] {
        assert!(l[k].as_f64().unwrap().is_finite(), "{k}: {l}");
    }
    assert!(l["L_us"].as_f64().unwrap() > 0.0);
    assert_eq!(l["n"], 10);
    assert_eq!(l["partner"], 1);
    let row = &r["rows"][0];
    assert_eq!(row["bytes"], 1);
    for k in [
        "prtt_1_0_us",
        "prtt_n_0_us",
        "prtt_n_d_us",
        "d_us",
        "o_s_us",
        "o_r_us",
    ] {
        assert!(row["params"][k].as_f64().is_some(), "{k}: {row}");
    }
}

#[test]
fn the_front_end_takes_the_seeds_inputs() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("r.json");
    let out = mpirun(
        2,
        &[
            "commtest",
            "size=8K",
            "min=4K",
            "iterations=2",
            "protocols=(0,3),(1,0)",
            "swap",
            "distance=1",
            "all",
            "--check",
            "-q",
            "--json",
            json.to_str().unwrap(),
        ],
    )
    .assert()
    .success();
    let text = String::from_utf8_lossy(&out.get_output().stdout).to_string();
    assert!(text.contains("# COMMTEST (ORNL)"), "{text}");
    assert!(text.contains(
        "# Inputs                : size=8192 min=4096 iterations=2 protocols=(0,3),(1,0) swap distance=1 all"
    ));
    // A fit, or the best achieved and why the line does not fit (two
    // iterations scatter).
    assert!(
        text.contains("# fit: alpha = ") || text.contains("; no linear fit: "),
        "{text}"
    );
    assert!(
        text.contains("# Summary: the fastest protocol per pattern"),
        "{text}"
    );
    let v = read_json(&json);
    let r = &v["results"][0];
    assert_eq!(r["benchmark"], "SWAP");
    let rows = r["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 4);
    assert_eq!(rows[0]["repetitions"], 2);
    assert_eq!(s(&rows[3], "protocol"), "(1,0)");
}

#[test]
fn csv_rows_carry_the_params() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("r.csv");
    mpirun(
        2,
        &[
            "run",
            "--suite",
            "commtest",
            "swap",
            "--volume",
            "2K",
            "--min-packet",
            "1K",
            "--protocols",
            "(0,6)",
            "--iter",
            "1",
            "-q",
            "--csv",
            csv.to_str().unwrap(),
        ],
    )
    .assert()
    .success();
    let text = std::fs::read_to_string(csv).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[0].ends_with(",params"), "{}", lines[0]);
    assert_eq!(lines.len(), 3);
    assert!(
        lines[1].contains("\"\"protocol\"\":\"\"(0,6)\"\""),
        "{}",
        lines[1]
    );
}

fn usage_error(n: usize, args: &[&str], want: &str) {
    let out = mpirun(n, args).assert().code(2);
    let err = String::from_utf8_lossy(&out.get_output().stderr).to_string();
    let lines: Vec<&str> = err.lines().filter(|l| l.starts_with("error")).collect();
    assert_eq!(lines.len(), 1, "{args:?}: {err}");
    assert!(lines[0].contains(want), "{args:?}: {err}");
}

#[test]
fn bad_input_is_one_line_and_exit_2() {
    usage_error(
        2,
        &["run", "--suite", "commtest", "--volume", "5000B"],
        "not a multiple of the minimum packet length 2048",
    );
    usage_error(
        2,
        &[
            "run", "--suite", "commtest", "--volume", "5000", "--mem", "1",
        ],
        "above the memory limit",
    );
    usage_error(
        2,
        &["run", "--suite", "commtest", "--distance", "2"],
        "--distance 2 must be at least 1 and smaller than the 2 processes",
    );
    usage_error(
        2,
        &["run", "--suite", "commtest", "--protocols", "(0,3),(2,1)"],
        "unknown protocol code '(2,1)'",
    );
    usage_error(
        1,
        &["run", "--suite", "commtest", "sendrecv"],
        "SENDRECV and loggp need at least 2 processes",
    );
    usage_error(
        1,
        &["commtest", "sendrecv"],
        "SENDRECV and loggp need at least 2 processes",
    );
    usage_error(
        2,
        &["run", "PingPong", "--pairs", "zero"],
        "--pairs all|zero is a COMMTEST option",
    );
    usage_error(
        2,
        &[
            "run",
            "--suite",
            "commtest",
            "--pairs",
            "zero",
            "--communicating",
            "all",
        ],
        "name different communicating nodes",
    );
}
