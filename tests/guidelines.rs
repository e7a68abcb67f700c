//! The guidelines suite through a real mpiexec: every guideline on 4 ranks
//! with --check (the mock-ups compute what their collective computes), a
//! verdict with every field for every size, the corrupt hook caught on both
//! sides, and the suite's own command line under self-launch.

mod common;
use common::*;

const VERDICTS: [&str; 3] = ["holds", "violated", "inconclusive"];

fn guidelines_json(n: usize, args: &[&str]) -> (serde_json::Value, i32) {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("g.json");
    let mut a = vec!["guidelines", "-q", "--json", json.to_str().unwrap()];
    a.extend_from_slice(args);
    let out = mpirun(n, &a).assert();
    let code = out.get_output().status.code().unwrap_or(-1);
    (read_json(&json), code)
}

#[test]
fn every_guideline_on_4_ranks_is_validated_and_judged_at_every_size() {
    let (v, code) = guidelines_json(
        4,
        &[
            "--sizes", "64,4K", "--iter", "20", "--warmup", "2", "--check",
        ],
    );
    assert_eq!(code, 0, "violations are findings, not failures");
    assert_eq!(v["status"], "ok");
    let results = v["results"].as_array().unwrap();
    assert_eq!(results.len(), 12);
    for r in results {
        let name = r["benchmark"].as_str().unwrap();
        assert_eq!(r["suite"], "guidelines");
        assert_eq!(r["processes"], 4);
        let rows = r["rows"].as_array().unwrap();
        assert_eq!(rows.len(), 4, "{name}: two sizes x two sides");
        for row in rows {
            assert_eq!(row["errors"], 0, "{name}: {row}");
            assert!(["collective", "mockup"].contains(&row["params"]["side"].as_str().unwrap()));
        }
        let g = r["guidelines"].as_array().unwrap();
        let pairs: Vec<_> = g.iter().filter(|x| x["guideline"] == name).collect();
        assert_eq!(pairs.len(), 2, "{name}: one verdict per size");
        for x in g {
            for f in ["guideline", "rule", "collective", "mockup", "verdict"] {
                assert!(
                    x[f].as_str().is_some_and(|s| !s.is_empty()),
                    "{name}: {f}: {x}"
                );
            }
            assert!(VERDICTS.contains(&x["verdict"].as_str().unwrap()), "{x}");
            let (tc, tm) = (
                x["t_collective_us"].as_f64().unwrap(),
                x["t_mockup_us"].as_f64().unwrap(),
            );
            let ratio = x["ratio"].as_f64().unwrap();
            assert!(
                (ratio - tc / tm).abs() <= 1e-9 * ratio.abs().max(1.0),
                "{x}"
            );
            let p = x["p_value"].as_f64().unwrap();
            assert!((0.0..=1.0).contains(&p), "{x}");
            assert_eq!(x["processes"], 4);
            // The verdict follows from the ratio and the p-value.
            let want = if ratio <= 1.05 {
                "holds"
            } else if p < 0.05 {
                "violated"
            } else {
                "inconclusive"
            };
            assert_eq!(x["verdict"], want, "{x}");
        }
        // Sizes are each guideline's n: the Bcast one's a multiple of p.
        let sizes: Vec<u64> = pairs.iter().map(|x| x["bytes"].as_u64().unwrap()).collect();
        assert_eq!(sizes, [64, 4096], "{name}");
    }
}

#[test]
fn bcast_sizes_round_down_to_a_multiple_of_the_processes() {
    let (v, _) = guidelines_json(
        3,
        &[
            "Bcast_Scatter_Allgather",
            "--sizes",
            "64,4K",
            "--iter",
            "5",
            "--check",
        ],
    );
    let rows = v["results"][0]["rows"].as_array().unwrap();
    let mut sizes: Vec<u64> = rows.iter().map(|r| r["bytes"].as_u64().unwrap()).collect();
    sizes.dedup();
    assert_eq!(sizes, [63, 4095]);
    assert!(rows.iter().all(|r| r["errors"] == 0), "{rows:?}");
}

#[test]
fn a_corrupted_result_is_caught_on_both_sides() {
    let (v, code) = guidelines_json(
        2,
        &[
            "Allreduce_Reduce_Bcast",
            "Scan_Exscan_Reduce_local",
            "Bcast_split",
            "--sizes",
            "64",
            "--iter",
            "3",
            "--check",
            "--corrupt",
        ],
    );
    assert_eq!(code, 1, "validation errors");
    for r in v["results"].as_array().unwrap() {
        for row in r["rows"].as_array().unwrap() {
            assert!(
                row["errors"].as_u64().unwrap() > 0,
                "{}: {row}",
                r["benchmark"]
            );
        }
    }
}

#[test]
fn the_suite_is_a_command_of_its_own() {
    let out = self_launched(&[
        "guidelines",
        "-n",
        "2",
        "Scatter_Bcast",
        "--sizes",
        "8",
        "--iter",
        "5",
    ])
    .assert()
    .success();
    let text = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    assert!(
        text.contains("# Scatter_Bcast on 2 processes: MPI_Scatter(n) <= MPI_Bcast(n)"),
        "{text}"
    );
    assert!(text.contains(" verdicts: "), "{text}");
    let err = usage_error(&["guidelines", "Bogus_rule"]);
    assert!(err.contains("Bogus_rule"), "{err}");
    let help = self_launched(&["guidelines", "-h"]).assert().success();
    let help = String::from_utf8_lossy(&help.get_output().stdout).into_owned();
    assert!(help.starts_with("Usage: mpibench guidelines"), "{help}");
}

/// Issue 36, item 8: `guidelines --launches N` judges over the launches, and
/// its summary line counts the verdicts the JSON's combined results hold.
#[test]
fn over_launches_the_summary_counts_the_combined_verdicts() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("g.json");
    let out = self_launched(&[
        "guidelines",
        "-n",
        "2",
        "Scatter_Bcast",
        "Allreduce_Reduce_Bcast",
        "--sizes",
        "8,1K",
        "--iter",
        "20",
        "--launches",
        "2",
        "--json",
        json.to_str().unwrap(),
    ])
    .assert()
    .success();
    let text = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    let v = read_json(&json);
    let verdicts: Vec<serde_json::Value> = v["results"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["aggregate"] != true)
        .flat_map(|r| r["guidelines"].as_array().cloned().unwrap_or_default())
        .collect();
    // Two guidelines at two sizes, and monotony over them: at least 4.
    assert!(verdicts.len() >= 4, "{verdicts:?}");
    let count = |w: &str| verdicts.iter().filter(|x| x["verdict"] == w).count();
    let line = format!(
        "# {} verdicts: {} hold, {} violated, {} inconclusive",
        verdicts.len(),
        count("holds"),
        count("violated"),
        count("inconclusive")
    );
    assert!(text.contains(&line), "{line} not in:\n{text}");
    // Two launches cannot violate a guideline over the launches.
    assert_eq!(count("violated"), 0, "{verdicts:?}");
    for x in &verdicts {
        assert!(VERDICTS.contains(&x["verdict"].as_str().unwrap()), "{x}");
        assert!(x["p_value"].is_null(), "2 launches give no test: {x}");
    }
    // Each launch keeps its own verdicts.
    let launches = v["launches"].as_array().unwrap();
    assert_eq!(launches.len(), 2);
    for l in launches {
        let n: usize = l["results"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|r| r["aggregate"] != true)
            .map(|r| r["guidelines"].as_array().map_or(0, |g| g.len()))
            .sum();
        assert_eq!(n, verdicts.len());
    }
}
