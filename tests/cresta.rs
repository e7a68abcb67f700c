//! The CRESTA suite on real mpiexec: every collective validates in every
//! scenario, T bounds the delay, the calc and every participant's own time,
//! the seed's command line and its output blocks, the plot, bad input.

mod common;
use common::*;

use serde_json::Value;

const COLLECTIVES: [&str; 18] = [
    "Barrier",
    "Ibarrier",
    "Bcast",
    "Ibcast",
    "Gather",
    "Igather",
    "Allgather",
    "Iallgather",
    "Allreduce",
    "Iallreduce",
    "Reduce",
    "Ireduce",
    "Alltoall",
    "Ialltoall",
    "Scatter",
    "Iscatter",
    "Reduce_scatter_block",
    "Ireduce_scatter_block",
];

/// The collectives whose outbound buffer holds one block per participant.
const SPLIT: [&str; 6] = [
    "Alltoall",
    "Ialltoall",
    "Scatter",
    "Iscatter",
    "Reduce_scatter_block",
    "Ireduce_scatter_block",
];

fn result<'a>(v: &'a Value, name: &str, q: u64) -> &'a Value {
    v["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["benchmark"] == name && r["processes"] == q)
        .unwrap_or_else(|| panic!("no {name} on {q}"))
}

fn run_json(n: usize, args: &[&str]) -> Value {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("r.json");
    let mut a: Vec<&str> = vec![
        "run",
        "--suite",
        "cresta",
        "-q",
        "--json",
        json.to_str().unwrap(),
    ];
    a.extend_from_slice(args);
    mpirun(n, &a).assert().success();
    read_json(&json)
}

fn rows(v: &Value) -> Vec<(String, u64, &Value)> {
    v["results"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r.get("skipped").is_none())
        .flat_map(|r| {
            let name = r["benchmark"].as_str().unwrap().to_string();
            let q = r["processes"].as_u64().unwrap();
            r["rows"]
                .as_array()
                .unwrap()
                .iter()
                .map(move |x| (name.clone(), q, x))
        })
        .collect()
}

fn param(row: &Value, k: &str) -> Option<f64> {
    row["params"][k].as_f64()
}

fn samples(row: &Value) -> Vec<f64> {
    row["samples_us"]
        .as_array()
        .map(|a| a.iter().map(|x| x.as_f64().unwrap()).collect())
        .unwrap_or_default()
}

fn check_all(n: usize) {
    let v = run_json(
        n,
        &[
            "--check",
            "--npmin",
            "1",
            "--iter",
            "4",
            "--sizes",
            "1,1K",
            "--delay-min",
            "8",
            "--delay-max",
            "8",
            "--calc-min",
            "8",
            "--calc-max",
            "8",
            "--delayed",
            "last",
        ],
    );
    assert_eq!(v["complete"], true);
    assert_eq!(v["status"], "ok");
    let all = rows(&v);
    for name in COLLECTIVES {
        for q in (0..)
            .map(|k| 1u64 << k)
            .take_while(|&q| q < n as u64)
            .chain([n as u64])
        {
            let mine: Vec<&Value> = all
                .iter()
                .filter(|(b, p, _)| b == name && *p == q)
                .map(|(_, _, x)| *x)
                .collect();
            // m is the outbound buffer: the per-partner collectives move
            // blocks of m/P, and m = 1 on more than one participant is none.
            let split = SPLIT.contains(&name);
            let sizes = if name.ends_with("arrier") || (split && q > 1) {
                1
            } else {
                2
            };
            assert_eq!(mine.len(), 3 * sizes, "{name} on {q}: {mine:?}");
            if split && q > 1 {
                let note = result(&v, name, q)["note"]
                    .as_str()
                    .unwrap_or_default()
                    .to_string();
                assert!(
                    note.contains("blocks of m/P = 0 bytes"),
                    "{name} on {q}: {note}"
                );
            }
            for s in 1..=3 {
                assert!(
                    mine.iter().any(|x| param(x, "scenario") == Some(s as f64)),
                    "{name} on {q}: no scenario {s}"
                );
            }
            for x in mine {
                assert_eq!(x["errors"], 0, "{name} on {q}: {x}");
                assert_eq!(x["repetitions"], 4, "{name} on {q}: {x}");
                if param(x, "scenario") == Some(2.0) {
                    assert_eq!(x["params"]["delayed_rank"], q - 1, "{x}");
                }
            }
        }
    }
}

#[test]
fn every_collective_validates_in_every_scenario_on_1_rank() {
    check_all(1);
}

#[test]
fn every_collective_validates_in_every_scenario_on_2_ranks() {
    check_all(2);
}

#[test]
fn every_collective_validates_in_every_scenario_on_3_ranks() {
    check_all(3);
}

#[test]
fn every_collective_validates_in_every_scenario_on_4_ranks() {
    check_all(4);
}

#[test]
fn a_delay_of_2000_us_bounds_every_valid_t() {
    let v = run_json(
        3,
        &[
            "Bcast",
            "Ibcast",
            "Barrier",
            "Iallreduce",
            "Alltoall",
            "--scenarios",
            "2",
            "--delay-min",
            "2000",
            "--delay-max",
            "2000",
            "--iter",
            "8",
            "--sizes",
            "1K",
        ],
    );
    let mut seen = 0;
    for (name, q, x) in rows(&v) {
        if param(x, "scenario") != Some(2.0) {
            continue;
        }
        assert_eq!(param(x, "t_delay_us"), Some(2000.0));
        // The busy-wait aims early by at most 1 µs of calibrated overshoot.
        assert!(param(x, "t_delay_achieved_us").unwrap() >= 1999.0, "{x}");
        if x["valid"].as_u64().unwrap() == 0 {
            continue;
        }
        seen += 1;
        assert!(
            x["t_min_us"].as_f64().unwrap() >= 2000.0,
            "{name} on {q}: {x}"
        );
        assert!(
            samples(x).iter().all(|&t| t >= 2000.0),
            "{name} on {q}: {x}"
        );
        let unabsorbed = param(x, "t_minus_delay_us").unwrap();
        assert!((unabsorbed - (x["t_avg_us"].as_f64().unwrap() - 2000.0)).abs() < 1e-6);
    }
    assert!(seen > 0, "no scenario-2 row with valid samples");
}

#[test]
fn every_valid_t_of_scenario_3_covers_the_calc_achieved() {
    let v = run_json(
        3,
        &[
            "Ibcast",
            "Iallreduce",
            "Allreduce",
            "Ibarrier",
            "Ialltoall",
            "--scenarios",
            "3",
            "--calc-min",
            "200",
            "--calc-max",
            "200",
            "--iter",
            "8",
            "--sizes",
            "1K,1M",
        ],
    );
    let mut seen = 0;
    for (name, q, x) in rows(&v) {
        if param(x, "scenario") != Some(3.0) {
            continue;
        }
        let mean = param(x, "t_calc_achieved_us").unwrap();
        let shortest = param(x, "t_calc_achieved_min_us").unwrap();
        assert!(shortest > 0.0 && shortest <= mean, "{x}");
        if x["valid"].as_u64().unwrap() == 0 {
            continue;
        }
        seen += 1;
        assert!(
            samples(x).iter().all(|&t| t >= shortest),
            "{name} on {q}: {x}"
        );
        assert!(
            x["t_min_us"].as_f64().unwrap() >= shortest,
            "{name} on {q}: {x}"
        );
        // Against scenario 1 where it has valid samples.
        if q > 1 && param(x, "t_sc1_us").is_some() {
            for k in ["overlap_osu_pct", "overlap_nbc_pct"] {
                let o = param(x, k).unwrap_or_else(|| panic!("{k} missing: {x}"));
                assert!((0.0..=100.0).contains(&o), "{k} = {o}: {x}");
            }
        }
    }
    assert!(seen > 0, "no scenario-3 row with valid samples");
}

#[test]
fn t_is_at_least_every_participants_own_time() {
    let v = run_json(
        2,
        &[
            "Bcast",
            "Iallreduce",
            "Igather",
            "--iter",
            "30",
            "--sizes",
            "1K,64K",
            "--delay-min",
            "50",
            "--delay-max",
            "50",
            "--calc-min",
            "50",
            "--calc-max",
            "50",
        ],
    );
    let mut seen = 0;
    for (name, q, x) in rows(&v) {
        if x["valid"] == 0 {
            // No statistics without a valid repetition.
            continue;
        }
        let own = x["t_median_max_us"].as_f64().unwrap();
        let own_min = x["t_median_min_us"].as_f64().unwrap();
        assert!(own_min <= own);
        // With every repetition valid, T_i ≥ d_(r,i) for every rank r and
        // repetition i, so T's median dominates every rank's own median.
        if x["invalid"] == 0 {
            seen += 1;
            let t = x["t_median_us"].as_f64().unwrap();
            assert!(t >= own * (1.0 - 1e-4) - 1e-3, "{name} on {q}: {x}");
        }
    }
    eprintln!("{seen} rows with every repetition valid");
}

#[test]
fn the_seed_command_line_prints_gnuplot_blocks_and_a_plot() {
    let dir = tempfile::tempdir().unwrap();
    let svg = dir.path().join("fig1.svg");
    let out = mpirun(
        3,
        &[
            "cresta",
            "broadcast",
            "1",
            "6",
            "512",
            "1024",
            "50",
            // delay_P as the seed numbers it: P_max (3) is D = P, the last.
            "3",
            "--plot",
            svg.to_str().unwrap(),
            "-q",
        ],
    )
    .assert()
    .success()
    .get_output()
    .clone();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("\nBroadcast:\nData  ranks  average (us)  min (us)  max (us)  stdDev (us)\n"),
        "{text}"
    );
    assert!(
        text.contains("Broadcast, scenario 2, t_delay = 50 us:"),
        "{text}"
    );
    assert!(
        text.contains("Broadcast, scenario 3, t_calc = 50 us:"),
        "{text}"
    );
    assert!(
        text.contains("# Bcast, scenario 2: participant D = 1 of P = 1, rank 0; D = 2 of P = 2, rank 1; D = 3 of P = 3, rank 2 delayed"),
        "{text}"
    );
    assert!(text.contains("Broadcast, scenario 3 overlap:"), "{text}");
    // Every data line of the three T blocks: m, P and five numbers or "-".
    let data: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("512 ") || l.starts_with("1024 "))
        .collect();
    assert_eq!(data.len(), 3 * 2 * 3, "{text}");
    for l in &data {
        let f: Vec<&str> = l.split_whitespace().collect();
        assert_eq!(f.len(), 6, "{l}");
        assert!(["1", "2", "3"].contains(&f[1]), "{l}");
    }
    let s = std::fs::read_to_string(&svg).unwrap();
    assert!(s.starts_with("<svg"));
    assert!(s.contains("Broadcast, scenario 1"));
    assert!(s.contains("m = 1024 B"));
}

fn usage_error(n: Option<usize>, args: &[&str], want: &str) {
    let mut cmd = match n {
        Some(n) => mpirun(n, args),
        None => {
            let mut c = assert_cmd::Command::cargo_bin("mpibench").unwrap();
            c.args(args);
            c
        }
    };
    let out = cmd.assert().code(2).get_output().clone();
    let err = String::from_utf8_lossy(&out.stderr);
    let lines: Vec<&str> = err.lines().filter(|l| !l.trim().is_empty()).collect();
    assert_eq!(lines.len(), 1, "{args:?}: {err}");
    assert!(lines[0].contains(want), "{args:?}: {err}");
}

#[test]
fn bad_input_is_one_line_and_exit_code_2() {
    usage_error(
        None,
        &["cresta", "broadcast", "2", "10", "4096", "512", "100", "1"],
        "m_min (4096) is larger than m_max (512)",
    );
    usage_error(
        None,
        &["cresta", "broadcast", "2", "10", "8", "8", "-5", "1"],
        "delay must not be negative",
    );
    usage_error(
        None,
        &["cresta", "allgaher", "2", "10", "8", "8", "5", "1"],
        "did you mean allGather?",
    );
    usage_error(
        Some(2),
        &["cresta", "broadcast", "3", "10", "8", "8", "5", "1"],
        "larger than the 2 processes",
    );
    // delay_P numbers the participants from 1 to P_max, as the seed does
    // (0 is the first participant too).
    usage_error(
        Some(2),
        &["cresta", "broadcast", "1", "10", "8", "8", "5", "3"],
        "outside 0..2",
    );
    usage_error(
        Some(2),
        &["run", "--suite", "cresta", "--delayed", "2"],
        "outside 0..1",
    );
    usage_error(
        Some(2),
        &["run", "--suite", "cresta", "--delay-min", "-1"],
        "must not be negative",
    );
    usage_error(Some(2), &["run", "--delay-max", "10"], "--suite cresta");
    usage_error(Some(2), &["run", "--plot", "x.svg"], "--suite cresta");
}
