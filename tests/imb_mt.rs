//! `mpibench imb-mt`, the drop-in for IMB-MT 2021: its tables against real
//! IMB-MT 2021.11 output (tests/fixtures/imb2021/np2-IMB-MT-default.txt),
//! every benchmark validated with several threads on 2, 3 and 4 processes,
//! the IMB-MT name, its usage errors, and `mpibench run --suite imb-mt`.
//! Under both MPIs (`MPIBENCH_MPIEXEC`); small counts and repetitions.

mod common;
use common::*;

use std::path::PathBuf;

/// One IMB-MT table: its benchmark, "#processes = P (threads: T)" as
/// printed, the window line, the column titles and the #bytes column.
#[derive(Debug, Default, Clone, PartialEq)]
struct Block {
    name: String,
    processes: String,
    window: Option<String>,
    columns: Vec<String>,
    bytes: Vec<u64>,
    rows: Vec<Vec<f64>>,
}

/// Reads IMB-MT output as a parser does: a block per "# Benchmarking".
fn blocks(text: &str) -> Vec<Block> {
    let mut out: Vec<Block> = Vec::new();
    for line in text.lines() {
        if let Some(n) = line.strip_prefix("# Benchmarking ") {
            out.push(Block {
                name: n.trim().to_string(),
                ..Block::default()
            });
            continue;
        }
        let Some(b) = out.last_mut() else { continue };
        if let Some(p) = line.strip_prefix("# #processes = ") {
            b.processes = p.to_string();
        } else if let Some(w) = line.strip_prefix("# window_size = ") {
            b.window = Some(w.to_string());
        } else if line.starts_with('#') || line.trim().is_empty() {
        } else if line.contains("#repetitions") {
            b.columns = line.split_whitespace().map(str::to_string).collect();
        } else {
            let v: Vec<f64> = line
                .split_whitespace()
                .map(|x| x.parse().unwrap_or_else(|_| panic!("number in '{line}'")))
                .collect();
            assert_eq!(v.len(), b.columns.len(), "row '{line}' of {}", b.name);
            if b.columns[0] == "#bytes" {
                b.bytes.push(v[0] as u64);
            }
            b.rows.push(v);
        }
    }
    out
}

fn fixture() -> String {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/imb2021/np2-IMB-MT-default.txt");
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// `mpiexec -n NP mpibench ARGS` with OMP_NUM_THREADS=T.
fn threaded(np: usize, threads: usize, args: &[&str]) -> assert_cmd::Command {
    let mut cmd = mpirun(np, args);
    cmd.env("OMP_NUM_THREADS", threads.to_string());
    cmd
}

/// `mpiexec -n NP mpibench imb-mt ARGS` with T threads per rank: its stdout.
fn imb_mt(np: usize, threads: usize, args: &str) -> String {
    let mut a = vec!["imb-mt"];
    a.extend(args.split_whitespace());
    let out = threaded(np, threads, &a)
        .assert()
        .success()
        .get_output()
        .clone();
    String::from_utf8(out.stdout).unwrap()
}

/// Oversubscribed MPICH, whose ranks busy-poll, runs 2 threads on each of
/// 3 or 4 ranks of a 2-core machine very slowly: one thread there.
fn threads_on(np: usize) -> usize {
    if np > 2 && !is_open_mpi(&mpiexec()) {
        1
    } else {
        2
    }
}

#[test]
fn mt_on_2_has_imb_mts_tables() {
    let ours = imb_mt(
        2,
        1,
        "-thread_level multiple -count 1,8,64,512,4096 -repeat 200",
    );
    let (got, want) = (blocks(&ours), blocks(&fixture()));
    assert_eq!(want.len(), 10);
    // Everything but the figures: names, process lines, windows, columns, #bytes.
    let shape = |b: &[Block]| -> Vec<Block> {
        b.iter()
            .map(|b| Block {
                rows: Vec::new(),
                ..b.clone()
            })
            .collect()
    };
    assert_eq!(shape(&got), shape(&want), "{ours}");
    assert!(ours.starts_with(
        "#------------------------------------------------------------------\n#    Intel(R) MPI Benchmarks 2021.11, MT part (mpibench "
    ));
    assert!(ours.ends_with("\n\n"), "{ours}");
    // IMB-MT's figures hold together: t_min <= t_avg <= t_max, and
    // Mbytes/sec = #bytes x factor / t_max (PingPongMT: 1, SendRecvMT: 2).
    for b in &got {
        for r in &b.rows {
            let at = |c: &str| b.columns.iter().position(|x| x == c).map(|i| r[i]);
            if let (Some(lo), Some(avg), Some(hi)) =
                (at("t_min[usec]"), at("t_avg[usec]"), at("t_max[usec]"))
            {
                assert!(lo <= avg + 0.01 && avg <= hi + 0.01, "{}: {r:?}", b.name);
            }
            let factor = match b.name.as_str() {
                "PingPongMT" | "PingPingMT" => 1.0,
                "SendRecvMT" => 2.0,
                "ExchangeMT" => 4.0,
                _ => continue,
            };
            let (x, hi, mb) = (r[0], at("t_max[usec]").unwrap(), at("Mbytes/sec").unwrap());
            // t_max is printed to 0.01 us: the bandwidth lies within what
            // the times it rounds from give (0.17 us holds 0.165 to 0.175).
            let most = x * factor / (hi - 0.005).max(1e-9);
            let least = x * factor / (hi + 0.005);
            assert!(
                mb >= least * 0.99 - 0.02 && mb <= most * 1.01 + 0.02,
                "{}: {r:?}",
                b.name
            );
        }
    }
}

/// Every benchmark on 2, 3 and 4 processes with threads, validated: no
/// wrong byte or sum on any thread, -repeat's repetitions, the threads and
/// the processes that took part (on 3, a pair and an idle rank).
#[test]
fn mt_every_benchmark_validates_on_2_3_4() {
    for np in [2, 3, 4] {
        let t = threads_on(np);
        let dir = tempfile::tempdir().unwrap();
        let json = dir.path().join("r.json");
        let args = format!(
            "-thread_level multiple -count 1,100 -repeat 6 -warmup 2 -window_size 4 --check --json {}",
            json.display()
        );
        let text = imb_mt(np, t, &args);
        let v = read_json(&json);
        assert_eq!(v["status"], "ok", "{np} ranks");
        let rs = v["results"].as_array().unwrap();
        assert_eq!(rs.len(), 10, "{np} ranks");
        for r in rs {
            let name = r["benchmark"].as_str().unwrap();
            assert_eq!(r["suite"], "imb-mt");
            let rows = r["rows"].as_array().unwrap();
            let want_rows = if name == "BarrierMT" { 1 } else { 2 };
            assert_eq!(rows.len(), want_rows, "{name} on {np}");
            let paired = matches!(name, "PingPongMT" | "PingPingMT" | "UniBandMT" | "BiBandMT");
            let active = if paired { np / 2 * 2 } else { np };
            for row in rows {
                assert_eq!(row["errors"], 0, "{name} on {np}: {row}");
                assert_eq!(row["repetitions"], 6, "{name}");
                assert_eq!(row["params"]["threads"], t, "{name}");
                assert_eq!(row["params"]["active_processes"], active, "{name}");
                let (lo, hi) = (row["t_min_us"].as_f64(), row["t_max_us"].as_f64());
                assert!(lo.unwrap() > 0.0 && lo <= hi, "{name}: {row}");
            }
        }
        assert!(
            text.contains(&format!(
                "# Benchmarking PingPongMT\n# #processes = {} (threads: {t})\n",
                np / 2 * 2
            )),
            "{text}"
        );
        assert!(text.contains("      defects\n"), "{text}");
    }
}

#[test]
fn mt_check_catches_corrupt_data() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("r.json");
    let j = json.to_str().unwrap();
    let a = "imb-mt -count 4 -repeat 3 -warmup 0 --check --corrupt PingPongMT AllReduceMT --json";
    let mut a: Vec<&str> = a.split_whitespace().collect();
    a.push(j);
    threaded(2, 2, &a).assert().code(1);
    let v = read_json(&json);
    for r in v["results"].as_array().unwrap() {
        let errors = r["rows"][0]["errors"].as_u64().unwrap();
        assert!(errors > 0, "{r}");
    }
}

#[test]
fn the_binary_named_imb_mt_is_imb_mt() {
    let dir = tempfile::tempdir().unwrap();
    let link = dir.path().join("IMB-MT");
    std::os::unix::fs::symlink(assert_cmd::cargo::cargo_bin("mpibench"), &link).unwrap();
    let mut cmd = mpirun_program(2, &link);
    cmd.args(["-count", "2", "-repeat", "5", "uniBandMT,BARRIERMT"]);
    cmd.env("OMP_NUM_THREADS", "3");
    let out = String::from_utf8(cmd.assert().success().get_output().stdout.clone()).unwrap();
    let b = blocks(&out);
    let names: Vec<&str> = b.iter().map(|b| b.name.as_str()).collect();
    assert_eq!(names, ["UniBandMT", "BarrierMT"], "{out}");
    // -thread_level single (the default): one thread, whatever OMP_NUM_THREADS says.
    assert_eq!(b[0].processes, "2 (threads: 1)");
    assert_eq!(b[0].bytes, [8]);
    assert_eq!(b[0].window.as_deref(), Some("64"));
    let list = named(&link, "-list");
    assert!(
        list.starts_with("IMB-MT\nList of benchmarks:\nIMB-MT:\n    AllReduceMT\n"),
        "{list}"
    );
    assert!(named(&link, "-h").contains("IMB-MT 2021 arguments"));
    usage_errors_start_with(&[
        (
            &["imb-mt", "-mode", "x"][..],
            "error: unknown IMB-MT flag '-mode' (see mpibench imb-mt -h)",
        ),
        (
            &["imb-mt", "PingPong"][..],
            "error: unknown IMB-MT benchmark 'PingPong'",
        ),
        (
            &["imb-mt", "-repeat", "0"][..],
            "error: invalid -repeat argument '0'",
        ),
        (
            &["imb-mt", "-barrier", "x"][..],
            "error: invalid -barrier argument 'x'",
        ),
    ]);
}

/// One process: the paired benchmarks have nobody to pair with (IMB-MT's
/// "NO SUCCESSFUL EXECUTIONS"), the others run on it alone.
#[test]
fn mt_on_1_has_no_pairs() {
    let out = imb_mt(1, 1, "-count 1 -repeat 3 -warmup 0 PingPongMT SendRecvMT");
    assert!(
        out.contains("# Benchmarking PingPongMT\n# NO SUCCESSFUL EXECUTIONS\n"),
        "{out}"
    );
    assert!(out.contains("# Benchmarking SendRecvMT\n# #processes = 1 (threads: 1)\n"));
}

/// `mpibench run --suite imb-mt`, no benchmark named: MPI_THREAD_MULTIPLE
/// all the same, OMP_NUM_THREADS threads, IMB-MT's figures in the JSON.
#[test]
fn run_suite_imb_mt_runs_threads() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("r.json");
    let mut a: Vec<&str> = "run -q --suite imb-mt --iter 4 --sizes 4,64 --json"
        .split_whitespace()
        .collect();
    a.push(json.to_str().unwrap());
    threaded(2, 2, &a).assert().success();
    let v = read_json(&json);
    let rs = v["results"].as_array().unwrap();
    assert_eq!(rs.len(), 10);
    for r in rs {
        for row in r["rows"].as_array().unwrap() {
            assert_eq!(row["params"]["threads"], 2, "{r}");
            assert_eq!(row["repetitions"], 4, "{r}");
            assert!(row["t_avg_us"].as_f64().unwrap() > 0.0, "{r}");
        }
    }
    // Not a whole number of MPI_INTs: refused with a reason.
    let v = run_json(
        2,
        &[
            "--suite", "imb-mt", "--iter", "2", "--sizes", "6", "BcastMT",
        ],
    );
    let why = v["results"][0]["skipped"].as_str().unwrap_or_default();
    assert!(why.contains("not a whole number"), "{v}");
}
