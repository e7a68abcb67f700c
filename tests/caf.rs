//! The EPCC coarray suite on MPI one-sided communication, against a real
//! mpiexec (Open MPI in `make test-openmpi`, MPICH in `make test-mpich`):
//! every point-to-point mode × put/get × sync kind × window kind × RMA
//! synchronisation on 2, 3 and 4 ranks with --check; synchronisation
//! overheads; halo swaps; the cafbench front end; bad input. Where a
//! library is known to be broken (MPICH 4.0.2's MPI_Win_allocate), the
//! test asserts that mpibench reports it.
//!
//! Sizes and repetitions are tiny: the tests check what must hold whatever
//! the noise (validation, rows, parameters, exit codes), never timings.

mod common;
use common::*;

use std::collections::BTreeSet;

const P2P: [&str; 9] = [
    "put",
    "many put",
    "strided put",
    "strided many put",
    "get",
    "many get",
    "strided get",
    "strided many get",
    "MPI Send",
];

const SYNC: [&str; 8] = [
    "sync all",
    "sync mpi barrier",
    "sync images pairwise",
    "sync images ring",
    "sync images random",
    "sync images 3d grid",
    "sync lock",
    "sync critical",
];

/// The shortest delay subtraction worth running: 3 × 2 repetitions of 1 µs.
const SHORT_SYNC: [&str; 6] = ["--outer", "3", "--inner", "2", "--delay-us", "1"];

fn open_mpi() -> bool {
    is_open_mpi(&mpiexec())
}

/// Runs `mpibench run --suite caf ARGS --json` on `n` ranks; the exit code,
/// stdout, stderr and the results.
fn caf(n: usize, args: &[&str]) -> (i32, String, String, serde_json::Value) {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("r.json");
    let mut a: Vec<&str> = vec![
        "run",
        "--suite",
        "caf",
        "-q",
        "--json",
        json.to_str().unwrap(),
    ];
    a.extend_from_slice(args);
    let out = mpirun(n, &a).output().unwrap();
    let v = read_json(&json);
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        v,
    )
}

fn param<'a>(row: &'a serde_json::Value, k: &str) -> &'a str {
    row["params"][k].as_str().unwrap_or("")
}

/// Every row of every result, with its benchmark.
fn rows(v: &serde_json::Value) -> Vec<(String, serde_json::Value)> {
    v["results"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|r| {
            let name = r["benchmark"].as_str().unwrap().to_string();
            r["rows"]
                .as_array()
                .unwrap()
                .iter()
                .map(move |row| (name.clone(), row.clone()))
        })
        .collect()
}

/// The point-to-point matrix on `n` ranks: every mode, with and without
/// global synchronisation, in every window kind and RMA synchronisation
/// given, each transfer validated.
fn p2p_matrix(n: usize, windows: &str, rma: &str, extra: &[&str]) -> (String, BTreeSet<String>) {
    let mut args: Vec<&str> = P2P.to_vec();
    args.extend_from_slice(&[
        "--window",
        windows,
        "--rma-sync",
        rma,
        "--sync-kind",
        "global,p2p",
        "--check",
        "--iter",
        "2",
        "--warmup",
        "1",
    ]);
    args.extend_from_slice(extra);
    let (code, stdout, stderr, v) = caf(n, &args);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(v["status"], "ok");
    let want_windows: BTreeSet<&str> = windows.split(',').collect();
    let want_rma: BTreeSet<&str> = rma.split(',').collect();
    let mut seen = BTreeSet::new();
    let mut kinds = BTreeSet::new();
    for (name, row) in rows(&v) {
        kinds.insert(param(&row, "pingpong").to_string());
        assert_eq!(row["errors"], 0, "{name} {row}");
        assert!(row["repetitions"].as_u64().unwrap() >= 1);
        assert!(row["t_max_us"].as_f64().unwrap() > 0.0, "{name} {row}");
        assert!(
            row["mbytes_per_sec"].as_f64().unwrap() > 0.0,
            "{name} {row}"
        );
        let p = &row["params"];
        let (c, b, s) = (
            p["count"].as_u64().unwrap(),
            p["blksize"].as_u64().unwrap(),
            p["stride"].as_u64().unwrap(),
        );
        assert_eq!(p["ndata"].as_u64().unwrap(), c * b, "{row}");
        assert_eq!(p["nextent"].as_u64().unwrap(), b + (c - 1) * s, "{row}");
        assert_eq!(row["bytes"].as_u64().unwrap(), 8 * c * b);
        assert_eq!(param(&row, "mode"), name);
        if name == "MPI Send" {
            assert_eq!(param(&row, "sync"), "none");
            continue;
        }
        assert!(want_windows.contains(param(&row, "window")), "{row}");
        assert!(want_rma.contains(param(&row, "rma_sync")), "{row}");
        seen.insert((
            name,
            param(&row, "window").to_string(),
            param(&row, "rma_sync").to_string(),
            param(&row, "sync").to_string(),
        ));
    }
    // Every RMA mode × window kind × RMA sync × sync kind ran.
    assert_eq!(
        seen.len(),
        8 * want_windows.len() * want_rma.len() * 2,
        "{seen:?}"
    );
    assert!(stdout.contains("All results validated"));
    assert!(!stdout.contains("ERROR"));
    (stdout, kinds)
}

#[test]
fn p2p_every_mode_window_and_sync_on_two_ranks() {
    p2p_matrix(
        2,
        "create,allocate,dynamic",
        "lockall,fence,pscw",
        &["--max-ndata", "4", "--max-stride", "2"],
    );
}

// MPICH busy-polls: on two oversubscribed cores each of its collectives
// takes a scheduler time slice (5-30 ms here, with other jobs running),
// about 0.2 s per point. Its legs on 3 and 4 ranks keep every mode × put/get
// × sync kind × window kind, with the shortest sweeps (and on 4 ranks the
// crossing ping-pong for the whole matrix; single and multiple with one
// window kind); Open MPI runs everything with gaps in every strided pattern.

#[test]
fn p2p_every_mode_window_and_sync_on_three_ranks() {
    // Single ping-pong 0 <-> 2: rank 1 idles but takes part in sync all
    // (and, with fence, in every synchronisation).
    let sweep: &[&str] = if open_mpi() {
        &["--max-ndata", "4", "--max-stride", "2"]
    } else {
        &["--max-ndata", "2", "--max-stride", "1"]
    };
    p2p_matrix(3, "create,allocate,dynamic", "lockall,fence,pscw", sweep);
}

#[test]
fn p2p_every_mode_window_and_sync_on_four_ranks() {
    let mut out = String::new();
    let mut kinds = BTreeSet::new();
    let runs: Vec<(&str, &str, Vec<&str>)> = if open_mpi() {
        vec![(
            "create,allocate,dynamic",
            "lockall,fence,pscw",
            vec!["--max-ndata", "4", "--max-stride", "2"],
        )]
    } else {
        vec![
            (
                "create,allocate,dynamic",
                "lockall,fence,pscw",
                vec![
                    "--max-ndata",
                    "2",
                    "--max-stride",
                    "1",
                    "--pingpong",
                    "crossing",
                ],
            ),
            (
                "create",
                "lockall",
                vec![
                    "--max-ndata",
                    "2",
                    "--max-stride",
                    "1",
                    "--pingpong",
                    "single,multiple",
                ],
            ),
        ]
    };
    for (w, r, extra) in runs {
        let (o, k) = p2p_matrix(4, w, r, &extra);
        out.push_str(&o);
        kinds.extend(k);
    }
    // The three ping-pongs of 4 images: 0 <-> 3; i <-> i+2; and crossed.
    let want: BTreeSet<String> = ["single", "multiple", "crossing"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    assert_eq!(kinds, want);
    for k in [
        "Single ping-pong: image1, image2 = 0, 3",
        "Multiple ping-pong: images i, i+2 for i < 2",
        "Crossing ping-pong: images i, i+2 for i < 2, every other pair reversed",
    ] {
        assert!(out.contains(k), "{k}");
    }
}

/// MPICH 4.0.2 (Debian, ch4) misplaces MPI_Put and MPI_Get in
/// MPI_Win_allocate windows whose size is an odd multiple of 8 bytes: with
/// a coarray of 3 doubles every such point is wrong. mpibench must report
/// it (errors per row, a line naming the ranks, exit code 1); with
/// MPI_Win_create and dynamic windows, and with Open MPI, all is clean.
#[test]
fn allocate_windows_are_validated_and_mpich_corruption_is_reported() {
    let (code, _stdout, stderr, v) = caf(
        2,
        &[
            "put",
            "get",
            "--window",
            "create,allocate,dynamic",
            "--max-ndata",
            "3",
            "--check",
            "--iter",
            "3",
            "--warmup",
            "1",
        ],
    );
    let mut allocate_errors = 0;
    for (name, row) in rows(&v) {
        let e = row["errors"].as_u64().unwrap();
        if param(&row, "window") == "allocate" {
            allocate_errors += e;
        } else {
            assert_eq!(e, 0, "{name} {row}");
        }
    }
    if open_mpi() {
        assert_eq!(code, 0, "{stderr}");
        assert_eq!(allocate_errors, 0);
        assert_eq!(v["status"], "ok");
    } else {
        assert_eq!(
            code, 1,
            "MPICH's allocate corruption was not reported: {stderr}"
        );
        assert!(allocate_errors > 0);
        assert_eq!(v["status"], "validation_errors");
        assert!(stderr.contains("validation found"), "{stderr}");
        assert!(
            stderr.contains("window allocate") && stderr.contains("rank"),
            "{stderr}"
        );
    }
}

#[test]
fn corrupted_transfers_are_reported() {
    for mode in ["put", "strided get", "MPI Send"] {
        let (code, _, stderr, v) = caf(
            2,
            &[
                mode,
                "--max-ndata",
                "4",
                "--max-stride",
                "2",
                "--check",
                "--corrupt",
                "--iter",
                "2",
            ],
        );
        assert_eq!(code, 1, "{mode}: {stderr}");
        assert!(stderr.contains("doubles wrong"), "{mode}: {stderr}");
        assert!(rows(&v)
            .iter()
            .all(|(_, r)| r["errors"].as_u64().unwrap() > 0));
    }
}

/// Every synchronisation type on `n` ranks in every window kind given (and
/// every RMA synchronisation), with --check. A library whose RMA is broken
/// in a window kind must be reported (errors in that kind's rows, an error
/// line, exit code 1), never hang in the lock spin: `--timeout` turns a
/// hang into an abort, which fails the test. The exit code and the results.
fn sync_matrix(n: usize, windows: &str) -> (String, serde_json::Value) {
    let mut args: Vec<&str> = SYNC.to_vec();
    args.extend_from_slice(&[
        "--window",
        windows,
        "--rma-sync",
        "lockall,fence,pscw",
        "--outer",
        "6",
        "--inner",
        "2",
        "--delay-us",
        "2",
        "--check",
        "--timeout",
        "200",
    ]);
    let (code, stdout, stderr, v) = caf(n, &args);
    let results = v["results"].as_array().unwrap();
    let names: Vec<&str> = results
        .iter()
        .map(|r| r["benchmark"].as_str().unwrap())
        .collect();
    assert_eq!(names, SYNC.to_vec(), "{stderr}");
    let mut broken = BTreeSet::new();
    for r in results.iter().filter(|r| r["skipped"].is_null()) {
        assert_eq!(r["method"], "delay-subtraction", "{r}");
        for row in r["rows"].as_array().unwrap() {
            // outer × inner repetitions, the median difference with its CI,
            // outliers counted, and the verdict on resolution.
            assert_eq!(row["repetitions"], 12, "{row}");
            assert_eq!(row["samples_n"], 6, "{row}");
            let (lo, med, hi) = (
                row["ci95_lo_us"].as_f64().unwrap(),
                row["t_median_us"].as_f64().unwrap(),
                row["ci95_hi_us"].as_f64().unwrap(),
            );
            assert!(lo <= med && med <= hi, "{row}");
            assert!(row["outliers"].as_u64().is_some());
            assert_eq!(
                row["below_resolution"].as_bool().unwrap(),
                lo <= 0.0 && hi >= 0.0,
                "{row}"
            );
            assert!(row["params"]["neighbours"].as_u64().is_some());
            assert_eq!(param(row, "mode"), r["benchmark"].as_str().unwrap());
            if row["errors"] != 0 {
                broken.insert(param(row, "window").to_string());
            }
        }
    }
    if broken.is_empty() {
        assert_eq!(code, 0, "{stderr}");
        assert_eq!(v["status"], "ok");
    } else {
        // Reported, in the window kind MPICH 4.0.2 gets wrong only.
        assert!(!open_mpi(), "Open MPI errors in {broken:?}: {stderr}");
        assert_eq!(broken, BTreeSet::from(["allocate".to_string()]), "{stderr}");
        assert_eq!(code, 1, "{stderr}");
        assert_eq!(v["status"], "validation_errors");
        assert!(stderr.contains("error: "), "{stderr}");
    }
    (stdout, v)
}

// MPICH busy-polls (see above): its sync legs leave out dynamic windows.
fn sync_windows() -> (&'static str, usize) {
    if open_mpi() {
        ("create,allocate,dynamic", 3)
    } else {
        ("create,allocate", 2)
    }
}

#[test]
fn synchronisation_overheads_on_four_ranks() {
    let (windows, nw) = sync_windows();
    let (stdout, v) = sync_matrix(4, windows);
    let results = v["results"].as_array().unwrap();
    // Ring and random: N = 2 on 4 ranks (at most P - 1); the 3-D grid of 4
    // is 2x2x1, two distinct neighbours; every window kind × three modes.
    let ring = &results[3]["rows"];
    assert_eq!(ring.as_array().unwrap().len(), nw * 3);
    assert_eq!(ring[0]["params"]["neighbours"], 2);
    assert_eq!(results[5]["rows"][0]["params"]["neighbours"], 2);
    assert_eq!(results[1]["rows"].as_array().unwrap().len(), 1);
    assert_eq!(results[6]["rows"].as_array().unwrap().len(), nw);
    // The table never prints a negative overhead as a figure.
    for line in stdout.lines() {
        let f: Vec<&str> = line.split_whitespace().collect();
        if f.len() >= 2 && f[0].parse::<u64>().is_ok() && line.contains('[') {
            if let Ok(x) = f[1].parse::<f64>() {
                assert!(x > 0.0, "{line}");
            } else {
                assert!(line.contains("below resolution"), "{line}");
            }
        }
    }
}

#[test]
fn synchronisation_in_every_window_kind_on_two_and_three_ranks() {
    let (windows, nw) = sync_windows();
    for n in [2, 3] {
        let (_, v) = sync_matrix(n, windows);
        let results = v["results"].as_array().unwrap();
        // On 2 ranks ring and random are skipped (N = 2 distinct
        // neighbours need 3 images); on 3 they run with N = 2. The others
        // run in every window kind (lock and critical: one row per kind).
        if n == 2 {
            assert!(results[3]["skipped"].is_string() && results[4]["skipped"].is_string());
        } else {
            for k in [3, 4] {
                let rows = results[k]["rows"].as_array().unwrap();
                assert_eq!(rows.len(), nw * 3, "{n}");
                assert_eq!(rows[0]["params"]["neighbours"], 2, "{n}");
            }
        }
        assert_eq!(results[0]["rows"].as_array().unwrap().len(), nw * 3, "{n}");
        assert_eq!(results[6]["rows"].as_array().unwrap().len(), nw, "{n}");
        assert_eq!(results[7]["rows"].as_array().unwrap().len(), nw, "{n}");
    }
}

/// A lock word holding a value no image writes (`--corrupt` makes image 0
/// take the lock with a foreign mark and keep it, as wrong RMA atomics
/// would): every image reports it and gives up, the run ends with exit
/// code 1, and nothing spins for ever (--timeout would abort it).
#[test]
fn a_broken_lock_word_is_reported_not_spun_on() {
    for (n, window) in [(2, "create"), (3, "allocate")] {
        let (code, _, stderr, v) = caf(
            n,
            &[
                "sync lock",
                "--window",
                window,
                "--outer",
                "4",
                "--inner",
                "3",
                "--delay-us",
                "1",
                "--check",
                "--corrupt",
                "--timeout",
                "120",
            ],
        );
        assert_eq!(code, 1, "{n} ranks: {stderr}");
        assert_eq!(v["status"], "validation_errors");
        assert!(
            stderr.contains("sync lock: rank ") && stderr.contains("a value no image writes"),
            "{stderr}"
        );
        assert!(rows(&v)[0].1["errors"].as_u64().unwrap() > 0);
    }
    // Without --check the lock word is validated all the same.
    let mut args = vec!["sync lock"];
    args.extend_from_slice(&SHORT_SYNC);
    let (code, _, stderr, v) = caf(2, &args);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(rows(&v)[0].1["errors"], 0);
}

#[test]
fn synchronisation_on_two_ranks_skips_what_needs_more() {
    let mut args = vec![
        "sync all",
        "sync images ring",
        "sync images pairwise",
        "sync lock",
    ];
    args.extend_from_slice(&SHORT_SYNC);
    let (code, stdout, stderr, v) = caf(2, &args);
    assert_eq!(code, 0, "{stderr}");
    let ring = &v["results"][1];
    assert!(
        ring["skipped"].as_str().unwrap().contains("at least 3"),
        "{ring}"
    );
    assert!(stdout.contains("sync images ring: skipped"));
    assert_eq!(v["results"][2]["rows"][0]["params"]["neighbours"], 1);
}

fn halo(n: usize, windows: &str, sizes: &str) -> (i32, String, serde_json::Value) {
    let (code, stdout, stderr, v) = caf(
        n,
        &[
            "halo put-put",
            "halo get-get",
            "--halo-sizes",
            sizes,
            "--window",
            windows,
            "--rma-sync",
            "lockall,fence,pscw",
            "--iter",
            "2",
            "--warmup",
            "1",
        ],
    );
    let _ = stdout;
    (code, stderr, v)
}

#[test]
fn halo_swaps_validate_on_two_three_and_four_ranks() {
    for n in [2, 3, 4] {
        // Even edges: (n + 2)^3 doubles are a multiple of 16 bytes.
        let sizes = if open_mpi() || n == 2 { "2,4" } else { "2" };
        let (code, stderr, v) = halo(n, "create,allocate,dynamic", sizes);
        assert_eq!(code, 0, "{n} ranks: {stderr}");
        let rows = rows(&v);
        let ns = sizes.split(',').count();
        assert_eq!(rows.len(), 2 * 3 * 3 * 2 * ns, "{n} ranks");
        for (name, row) in rows {
            // Always validated, without --check.
            assert_eq!(row["errors"], 0, "{name} {row}");
            assert_eq!(param(&row, "mode"), &name["halo ".len()..], "{row}");
            let e = row["params"]["n"].as_u64().unwrap();
            assert_eq!(row["params"]["ndata"].as_u64().unwrap(), 6 * e * e);
            assert_eq!(row["bytes"].as_u64().unwrap(), 48 * e * e);
            let dims = match n {
                2 => "2x1x1",
                3 => "3x1x1",
                _ => "2x2x1",
            };
            assert_eq!(param(&row, "codims"), dims);
        }
        assert_eq!(v["settings"]["check"], false);
    }
}

#[test]
fn a_wrong_halo_names_the_rank_and_the_face() {
    let (code, _, stderr, v) = caf(
        4,
        &[
            "halo put-put",
            "--halo-sizes",
            "2",
            "--iter",
            "2",
            "--check",
            "--corrupt",
            "--sync-kind",
            "global",
        ],
    );
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.contains("has a wrong -x halo (from rank"),
        "{stderr}"
    );
    assert!(stderr.contains("halo swap: rank "), "{stderr}");
    assert!(rows(&v)[0].1["errors"].as_u64().unwrap() > 0);
}

/// MPICH's MPI_Win_allocate corruption in a halo swap with an odd edge
/// ((3 + 2)^3 doubles = 1000 bytes): reported, with the rank and the face.
#[test]
fn halo_swaps_in_allocate_windows_of_odd_edges() {
    let (code, stderr, v) = halo(2, "allocate", "3");
    let errors: u64 = rows(&v)
        .iter()
        .map(|(_, r)| r["errors"].as_u64().unwrap())
        .sum();
    if open_mpi() {
        assert_eq!(code, 0, "{stderr}");
        assert_eq!(errors, 0);
    } else {
        assert_eq!(code, 1, "MPICH's allocate corruption was not reported");
        assert!(errors > 0);
        assert!(stderr.contains("halo (from rank"), "{stderr}");
    }
}

#[test]
fn cafbench_front_end_prints_its_sections() {
    let out = mpirun(
        2,
        &[
            "cafbench",
            "--max-ndata",
            "2",
            "--halo-sizes",
            "2",
            "--iter",
            "2",
            "--outer",
            "3",
            "--inner",
            "2",
            "--delay-us",
            "1",
            "--check",
            "-q",
        ],
    )
    .assert()
    .success()
    .get_output()
    .clone();
    let s = String::from_utf8_lossy(&out.stdout);
    for want in [
        "CAF Benchmark",
        "numimages =",
        "Point-to-point",
        "Single ping-pong: image1, image2 = 0, 1",
        "note: multiple ping-pong needs an even number of processes greater than 2",
        "count   blksize stride  ndata   nextent nrep    time      latency   bwidth",
        "All results validated",
        "Synchronisation",
        "cafsync: Synchronisation type: sync images 3d grid",
        "3D Halo Swaps",
        "cafhaloswap: All results validated",
        "Benchmark finished",
        "Validation: 0 errors",
    ] {
        assert!(s.contains(want), "missing {want:?} in\n{s}");
    }
    // Sections in cafbench's order, each header once.
    let (a, b, c) = (
        s.find(" Point-to-point").unwrap(),
        s.find(" Synchronisation\n").unwrap(),
        s.find(" 3D Halo Swaps").unwrap(),
    );
    assert!(a < b && b < c);
    assert_eq!(s.matches(" Point-to-point\n").count(), 1);
}

/// cafbench's repetition rule: the accepted run took at least 2/3 of the
/// 0.5 s target (the rule's guarantee, not a timing assertion: the timed
/// loop, or its wall time, which adds only a barrier and a reduction).
#[test]
fn repetitions_follow_the_target_time_rule() {
    let (code, _, stderr, v) = caf(
        2,
        &[
            "put",
            "--max-ndata",
            "2",
            "--pingpong",
            "single",
            "--sync-kind",
            "global",
        ],
    );
    assert_eq!(code, 0, "{stderr}");
    for (_, row) in rows(&v) {
        let nrep = row["repetitions"].as_u64().unwrap() as f64;
        let time = row["t_max_us"].as_f64().unwrap() * 2.0 * nrep * 1e-6;
        assert!(time >= 0.2, "{time} s: {row}");
    }
}

#[test]
fn precision_is_the_alternative() {
    let (code, _, stderr, v) = caf(
        2,
        &[
            "get",
            "--max-ndata",
            "2",
            "--pingpong",
            "single",
            "--sync-kind",
            "p2p",
            "--precision",
            "0.5",
            "--min-iter",
            "5",
            "--max-iter",
            "40",
        ],
    );
    assert_eq!(code, 0, "{stderr}");
    for (_, row) in rows(&v) {
        assert!(row["stopped_on_bound"].is_boolean(), "{row}");
        let n = row["repetitions"].as_u64().unwrap();
        assert!((5..=40).contains(&n), "{row}");
    }
}

fn bad(n: usize, args: &[&str], want: &str) {
    let out = mpirun(n, args).assert().code(2).get_output().clone();
    let err = String::from_utf8_lossy(&out.stderr);
    let lines: Vec<&str> = err.lines().filter(|l| !l.trim().is_empty()).collect();
    assert_eq!(lines.len(), 1, "{args:?}: {err}");
    assert!(lines[0].contains(want), "{args:?}: {err}");
}

#[test]
fn bad_input_is_one_line_and_exit_code_2() {
    bad(
        3,
        &["run", "--suite", "caf", "put", "--pingpong", "multiple"],
        "even number of processes greater than 2",
    );
    bad(
        2,
        &["run", "--suite", "caf", "strided put", "--max-stride", "0"],
        "at least 1",
    );
    bad(
        2,
        &[
            "run",
            "--suite",
            "caf",
            "halo put-put",
            "--halo-sizes",
            "500",
            "--mem",
            "0.1",
        ],
        "--mem",
    );
    bad(
        2,
        &["run", "--suite", "caf", "strided puut"],
        "did you mean strided put",
    );
    bad(2, &["cafbench", "put"], "no parameters");
}

#[test]
fn list_shows_the_aliases() {
    let out = assert_cmd::Command::cargo_bin("mpibench")
        .unwrap()
        .args(["list", "--suite", "caf"])
        .assert()
        .success()
        .get_output()
        .clone();
    let s = String::from_utf8_lossy(&out.stdout);
    for want in [
        "subput, simple subput, all put",
        "sub manyget, many subget",
        "strided subput",
        "sync images 3d grid",
        "halo get-get",
    ] {
        assert!(s.contains(want), "{want}: {s}");
    }
}
