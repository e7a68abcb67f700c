//! `mpibench report`, `plot` and `compare` on real runs (mpiexec) and on
//! synthetic JSON; the report is opened in a real browser (headless Chromium).

mod common;

use common::browser::{headless, ink};

use std::path::Path;
use std::process::Command;

use serde_json::{json, Value};

fn mpibench() -> assert_cmd::Command {
    let mut c = assert_cmd::Command::cargo_bin("mpibench").unwrap();
    // These subcommands never launch MPI: a broken launcher must not matter.
    c.env("MPIBENCH_MPIEXEC", "/nonexistent/mpiexec");
    c.timeout(std::time::Duration::from_secs(120));
    c
}

/// A real run: `mpiexec -n ranks mpibench run ARGS --json path`.
fn real_run(ranks: usize, args: &[&str], path: &Path) -> Value {
    let mut a: Vec<&str> = vec!["run", "-q"];
    a.extend_from_slice(args);
    a.extend_from_slice(&["--json", path.to_str().unwrap()]);
    common::mpirun(ranks, &a).assert().success();
    common::read_json(path)
}

fn write_json(path: &Path, v: &Value) {
    std::fs::write(path, serde_json::to_vec_pretty(v).unwrap()).unwrap();
}

/// Every timing of every row (and its samples) multiplied by `f`.
fn scaled(v: &Value, f: f64) -> Value {
    let mut v = v.clone();
    for r in v["results"].as_array_mut().unwrap() {
        for row in r["rows"].as_array_mut().unwrap() {
            for k in [
                "t_min_us",
                "t_max_us",
                "t_avg_us",
                "t_median_us",
                "t_p5_us",
                "t_p95_us",
                "ci95_lo_us",
                "ci95_hi_us",
                "t_median_min_us",
                "t_median_max_us",
                "t_median_avg_us",
            ] {
                if let Some(x) = row.get(k).and_then(|x| x.as_f64()) {
                    row[k] = json!(x * f);
                }
            }
            if let Some(s) = row.get_mut("samples_us").and_then(|s| s.as_array_mut()) {
                for x in s {
                    *x = json!(x.as_f64().unwrap() * f);
                }
            }
        }
    }
    v
}

/// The figures a 4-rank default IMB run must get: latency for every sized
/// benchmark, bandwidth where IMB defines a throughput, time against P for
/// those that run on 2 and 4 processes (Barrier has only that one).
const IMB_FIGURES_4_RANKS: usize = 2 + 2 + 3 + 3 + 7 * 2 + 1;

#[test]
fn report_of_a_real_4_rank_run_renders_in_chromium() {
    let dir = tempfile::tempdir().unwrap();
    let json_path = dir.path().join("r.json");
    real_run(
        4,
        &["--timing", "per-call", "--msglog", "0:12", "--iter", "30"],
        &json_path,
    );
    let html_path = dir.path().join("report.html");
    mpibench()
        .args(["report", json_path.to_str().unwrap(), "-o"])
        .arg(&html_path)
        .assert()
        .success();
    let html = std::fs::read_to_string(&html_path).unwrap();
    assert_eq!(html.matches("<figure").count(), IMB_FIGURES_4_RANKS);
    for banned in ["<script", "<link", "@import", "url(", "<img"] {
        assert!(!html.contains(banned), "not self-contained: {banned}");
    }
    let url = format!("file://{}", html_path.display());
    let dom = headless(&["--dump-dom"], &url);
    let dom = String::from_utf8_lossy(&dom.stdout);
    assert!(
        dom.contains("mpibench report"),
        "{}",
        &dom[..dom.len().min(500)]
    );
    assert_eq!(dom.matches("<svg").count(), IMB_FIGURES_4_RANKS);
    let shot = dir.path().join("shot.png");
    headless(
        &[
            "--window-size=1400,1800",
            &format!("--screenshot={}", shot.display()),
        ],
        &url,
    );
    let (share, colours) = ink(&shot);
    assert!(
        share > 0.03 && colours > 20,
        "the screenshot looks blank: {:.1}% ink, {colours} colours",
        share * 100.0
    );
}

#[test]
fn plot_writes_svg_and_gnuplot_files() {
    let dir = tempfile::tempdir().unwrap();
    let json_path = dir.path().join("r.json");
    real_run(
        2,
        &["pingpong", "bcast", "--msglog", "0:6", "--iter", "10"],
        &json_path,
    );
    let svg_dir = dir.path().join("svg");
    mpibench()
        .args(["plot", json_path.to_str().unwrap(), "-o"])
        .arg(&svg_dir)
        .assert()
        .success();
    let mut names: Vec<String> = std::fs::read_dir(&svg_dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            "imb-bcast-primary-latency.svg",
            "imb-pingpong-primary-bandwidth.svg",
            "imb-pingpong-primary-latency.svg"
        ]
    );
    for n in &names {
        let s = std::fs::read_to_string(svg_dir.join(n)).unwrap();
        assert!(
            s.starts_with("<svg") && s.trim_end().ends_with("</svg>"),
            "{n}"
        );
        assert!(s.contains("<polyline") || s.contains("<path"), "{n}");
    }
    let gp_dir = dir.path().join("gp");
    mpibench()
        .args(["plot", json_path.to_str().unwrap(), "--gnuplot", "-o"])
        .arg(&gp_dir)
        .assert()
        .success();
    let gp = std::fs::read_to_string(gp_dir.join("imb-pingpong-primary-latency.gp")).unwrap();
    assert!(gp.contains("set logscale x 2") && gp.contains("'imb-pingpong-primary-latency.dat'"));
    let dat = std::fs::read_to_string(gp_dir.join("imb-pingpong-primary-latency.dat")).unwrap();
    assert_eq!(dat.lines().filter(|l| !l.starts_with('#')).count(), 7);
    if Command::new("gnuplot").arg("--version").output().is_ok() {
        let st = Command::new("gnuplot")
            .arg("imb-pingpong-primary-latency.gp")
            .current_dir(&gp_dir)
            .status()
            .unwrap();
        assert!(st.success());
        assert!(gp_dir.join("imb-pingpong-primary-latency.svg").exists());
    }
}

fn compare_json(a: &Path, b: &Path, extra: &[&str]) -> (Value, i32) {
    let out_path = a.with_extension("cmp.json");
    let out = mpibench()
        .arg("compare")
        .arg(a)
        .arg(b)
        .arg("--json")
        .arg(&out_path)
        .args(extra)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(text.contains("rows compared"), "{text}");
    (common::read_json(&out_path), out.status.code().unwrap())
}

fn verdicts(c: &Value) -> Vec<String> {
    c["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["verdict"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn compare_real_runs_same_configuration_and_scaled_copy() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a.json"), dir.path().join("b.json"));
    let args = [
        "pingpong",
        "sendrecv",
        "allreduce",
        "bcast",
        "--timing",
        "per-call",
        "--msglog",
        "0:14",
        "--iter",
        "200",
    ];
    // Same configuration: mostly no significant difference. Timings are never
    // asserted, but a whole launch can run slower when other jobs share the
    // machine (a shift of every row alike, which compare rightly reports), so
    // up to three pairs of launches are tried.
    let mut va = Value::Null;
    let mut seen = Vec::new();
    for _attempt in 0..3 {
        va = real_run(2, &args, &a);
        real_run(2, &args, &b);
        let (c, code) = compare_json(&a, &b, &[]);
        assert_eq!(code, 0);
        assert_eq!(c["different_library"], false);
        assert!(c["only_in_a"].as_array().unwrap().is_empty());
        let v = verdicts(&c);
        assert_eq!(v.len(), 4 * 16);
        // No claim of a real difference: not significant, or within the
        // launch-to-launch noise.
        let same = v
            .iter()
            .filter(|x| *x != "slower" && *x != "faster")
            .count();
        seen.push(same);
        if same * 2 > v.len() {
            break;
        }
    }
    assert!(
        seen.iter().any(|&s| s * 2 > 4 * 16),
        "rows called neither slower nor faster in each attempt (of 64): {seen:?}"
    );

    // A copy with every timing (and sample) scaled by 1.3.
    let slow = dir.path().join("slow.json");
    write_json(&slow, &scaled(&va, 1.3));
    let (c, code) = compare_json(&a, &slow, &["--fail-if-slower", "10"]);
    assert_eq!(code, 1, "--fail-if-slower 10 must fail");
    for r in c["rows"].as_array().unwrap() {
        let ratio = r["ratio"].as_f64().unwrap();
        assert!((ratio - 1.3).abs() < 1e-9, "{r}");
        // Rows with samples (or disjoint CIs) are slower; none is faster.
        if r["basis"] == "mann-whitney-u" {
            assert_eq!(r["verdict"], "slower", "{r}");
        }
        assert_ne!(r["verdict"], "faster", "{r}");
    }
    assert!(c["summary"]["slower"].as_u64().unwrap() > 0);
    let (_, code) = compare_json(&a, &slow, &["--fail-if-slower", "40"]);
    assert_eq!(code, 0, "30% slower does not fail a 40% gate");
}

#[test]
fn compare_loop_timed_runs_are_judged_by_ratio() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("loop.json");
    let va = real_run(
        2,
        &["pingpong", "bcast", "--msglog", "0:8", "--iter", "50"],
        &a,
    );
    let slow = dir.path().join("slow.json");
    write_json(&slow, &scaled(&va, 1.3));
    // No significance test, but a 30% slower copy fails a 10% gate by ratio.
    let (c, code) = compare_json(&a, &slow, &["--fail-if-slower", "10"]);
    assert_eq!(code, 1);
    let v = verdicts(&c);
    assert!(!v.is_empty());
    assert!(
        v.iter()
            .all(|x| x.ends_with("(by ratio, no significance test)")),
        "{v:?}"
    );
    assert!(c["rows"]
        .as_array()
        .unwrap()
        .iter()
        .all(|r| r["p_value"].is_null() && r["basis"] == "ratio"));
    assert_eq!(c["gate"]["outcome"], "slower");
    let (_, code) = compare_json(&a, &slow, &["--fail-if-slower", "40"]);
    assert_eq!(code, 0, "30% slower does not fail a 40% gate");
}

/// A synthetic run with samples (the engine adds `samples_us` with per-call
/// timing): 1.3× slower everywhere must be "slower" on every row.
fn synthetic(library: &str, scale: f64, seed: u64) -> Value {
    let mut x = seed | 1;
    let mut rnd = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        (x >> 11) as f64 / (1u64 << 53) as f64
    };
    let rows: Vec<Value> = (0..12)
        .map(|k| {
            let t = 1.0 + (1u64 << k) as f64 / 500.0;
            let mut s: Vec<f64> = (0..300).map(|_| t * scale * (1.0 + 0.2 * rnd().powi(3))).collect();
            s.sort_by(f64::total_cmp);
            let med = s[150];
            json!({
                "bytes": 1u64 << k, "repetitions": 300, "params": {},
                "t_min_us": s[0], "t_max_us": s[299], "t_avg_us": med,
                "mbytes_per_sec": null, "errors": null,
                "t_median_us": med, "t_p5_us": s[15], "t_p95_us": s[284],
                "ci95_lo_us": s[133], "ci95_hi_us": s[167],
                "valid": 300, "invalid": 0, "outliers": 0, "t_global_us": null, "stopped_on_bound": null,
                "samples_us": s, "samples_n": 300
            })
        })
        .collect();
    json!({
        "schema": "mpibench/1", "mpibench_version": "0.1.0",
        "command": ["mpibench", "run"], "started": "2026-01-01T00:00:00Z",
        "complete": true, "status": "ok",
        "mpi": { "library": library, "version": [3, 1] },
        "world_size": 2, "hosts": ["node01"], "ranks_per_host": [2],
        "settings": { "sync": "barrier", "timing": "per-call", "check": false, "iter": null,
                      "time_limit_s": 10.0, "root_shift": false, "min_iter": 1, "max_iter": 1000,
                      "precision": null, "window_us": null, "mem_limit_bytes": 1073741824,
                      "timeout_s": null, "large_messages": "derived-datatype" },
        "results": [ { "benchmark": "PingPong", "suite": "imb", "class": "single transfer",
                       "processes": 2, "mode": "primary", "groups": 1, "active": 2,
                       "method": "per-call", "rows": rows } ]
    })
}

#[test]
fn compare_samples_with_mann_whitney() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b, slow) = (
        dir.path().join("a.json"),
        dir.path().join("b.json"),
        dir.path().join("slow.json"),
    );
    write_json(&a, &synthetic("Open MPI v4.1.4", 1.0, 1));
    write_json(&b, &synthetic("MPICH Version: 4.0.2", 1.0, 99));
    write_json(&slow, &synthetic("Open MPI v4.1.4", 1.3, 1));
    let (c, code) = compare_json(&a, &b, &["--fail-if-slower", "10"]);
    assert_eq!(code, 0);
    assert_eq!(c["different_library"], true);
    let v = verdicts(&c);
    assert!(
        v.iter()
            .filter(|x| *x == "no significant difference")
            .count()
            >= 10,
        "{v:?}"
    );
    let (c, code) = compare_json(&a, &slow, &["--fail-if-slower", "10"]);
    assert_eq!(code, 1);
    assert!(verdicts(&c).iter().all(|x| x == "slower"));
    assert!(c["rows"]
        .as_array()
        .unwrap()
        .iter()
        .all(|r| r["basis"] == "mann-whitney-u" && r["p_value"].as_f64().unwrap() < 1e-6));
    // The text names both libraries and says they differ.
    mpibench()
        .arg("compare")
        .arg(&a)
        .arg(&b)
        .assert()
        .success()
        .stdout(predicates::str::contains("different MPI libraries"));
}

#[test]
fn bad_input_is_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing.json");
    mpibench()
        .arg("report")
        .arg(&missing)
        .args(["-o", "x.html"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("cannot read"));
    let junk = dir.path().join("junk.json");
    std::fs::write(&junk, "{\"schema\": 1}").unwrap();
    mpibench()
        .arg("compare")
        .arg(&junk)
        .arg(&junk)
        .assert()
        .code(2)
        .stderr(predicates::str::contains(
            "not an mpibench JSON results file",
        ));
    mpibench().args(["report"]).assert().code(2);
    mpibench()
        .args(["compare", "a.json", "b.json", "--fail-if-slower", "-3"])
        .assert()
        .code(2);
}

/// A large synthetic run of every suite (the fields the engine adds), for
/// size: the HTML must stay under 5 MB. Writes the figures to stderr.
#[test]
fn report_of_every_suite_is_small() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("all.json");
    write_json(&path, &all_suites());
    if let Ok(keep) = std::env::var("MPIBENCH_KEEP_SYNTHETIC") {
        std::fs::copy(&path, keep).unwrap();
    }
    let html = dir.path().join("all.html");
    let t = std::time::Instant::now();
    mpibench()
        .arg("report")
        .arg(&path)
        .arg("-o")
        .arg(&html)
        .assert()
        .success();
    let secs = t.elapsed().as_secs_f64();
    let json_size = std::fs::metadata(&path).unwrap().len();
    let size = std::fs::metadata(&html).unwrap().len();
    eprintln!(
        "report of every suite: {} KiB JSON -> {} KiB HTML in {secs:.2} s",
        json_size / 1024,
        size / 1024
    );
    assert!(size < 5_000_000, "{size} bytes");
    let page = std::fs::read_to_string(&html).unwrap();
    for id in [
        "cresta-delay-primary-vs-t-delay-us",
        "cresta-delay-primary-vs-processes",
        "cresta-calc-primary-vs-t-calc-us",
        "commtest-swap-primary-vs-packets",
        "caf-sync-primary-bars",
        "caf-halo-primary-vs-n",
        "mpigraph-mpigraph-primary-send-mbs-p8-a",
        "osu-osu-latency-primary-latency",
        "mpitest-ping-primary-latency",
        "allreduce-allreduce-primary-latency",
    ] {
        assert!(
            page.contains(&format!("<figure id=\"{id}\"")),
            "no figure {id}"
        );
    }
    assert!(page.contains("below the clock&#39;s resolution"));
    assert!(page.contains("fit: α="));
}

/// A tiny real run of every suite (2 ranks, one JSON file each), reported
/// together: every suite gets its section, COMMTEST its fitted lines and
/// LogGP its table (and no figures against its measured values), ALLREDUCE
/// its time against size; `compare` matches LogGP rows whatever they measured.
#[test]
fn report_of_a_tiny_real_run_of_every_suite() {
    let dir = tempfile::tempdir().unwrap();
    let runs: [(&str, &[&str]); 9] = [
        (
            "imb",
            &["pingpong", "allreduce", "--msglog", "0:4", "--iter", "20"],
        ),
        (
            "mpitest",
            &["--suite", "mpitest", "--sizes", "4,64", "--iter", "10"],
        ),
        (
            "cresta",
            &[
                "--suite",
                "cresta",
                "bcast",
                "--sizes",
                "8",
                "--iter",
                "5",
                "--delay-max",
                "4",
                "--calc-max",
                "4",
            ],
        ),
        (
            "caf",
            &[
                "--suite",
                "caf",
                "put",
                "sync all",
                "sync lock",
                "halo put-put",
                "--max-ndata",
                "4",
                "--halo-sizes",
                "2,4,6",
                "--outer",
                "3",
                "--inner",
                "2",
                "--delay-us",
                "1",
                "--iter",
                "4",
            ],
        ),
        (
            "commtest",
            &[
                "--suite",
                "commtest",
                "swap",
                "loggp",
                "--volume",
                "64K",
                "--min-packet",
                "8K",
                "--protocols",
                "(0,3),(1,0)",
                "--iter",
                "5",
            ],
        ),
        (
            "allreduce",
            &[
                "--suite",
                "allreduce",
                "--sizes",
                "8,64,512",
                "--iter",
                "10",
            ],
        ),
        (
            "osu",
            &[
                "--suite",
                "osu",
                "osu_latency",
                "osu_bw",
                "--sizes",
                "1,64",
                "--iter",
                "10",
            ],
        ),
        (
            "mpigraph",
            &["--suite", "mpigraph", "--sizes", "1024", "--iter", "5"],
        ),
        ("clock", &["--suite", "clock"]),
    ];
    let mut files = Vec::new();
    for (suite, args) in runs {
        let path = dir.path().join(format!("{suite}.json"));
        let v = real_run(2, args, &path);
        assert!(
            v["results"]
                .as_array()
                .unwrap()
                .iter()
                .any(|r| r["suite"] == suite),
            "{suite}"
        );
        files.push(path);
    }
    let html = dir.path().join("all.html");
    mpibench()
        .arg("report")
        .args(&files)
        .arg("-o")
        .arg(&html)
        .assert()
        .success();
    let page = std::fs::read_to_string(&html).unwrap();
    for (suite, _) in runs {
        assert!(
            page.contains(&format!("<section id=\"{suite}-")),
            "no section of {suite}"
        );
    }
    let figure = |id: &str| -> &str {
        let start = page
            .find(&format!("<figure id=\"{id}\""))
            .unwrap_or_else(|| panic!("no figure {id}"));
        let end = start + page[start..].find("</figure>").unwrap();
        &page[start..end]
    };
    // COMMTEST: the fitted line of each protocol, from the run's own fits.
    let packets = figure("commtest-swap-primary-vs-packets");
    assert_eq!(packets.matches("fit: α=").count(), 2, "{packets}");
    assert!(page.contains("Fits t(k) = k·α + V/β"));
    // LogGP: a table of L, o_s, o_r, g, G; no figure against measured values.
    assert!(page.contains("LogGP parameters"));
    for col in ["L [µs]", "o_s [µs]", "o_r [µs]", "g [µs]", "G [µs/byte]"] {
        assert!(page.contains(&format!("<th>{col}</th>")), "{col}");
    }
    for measured in ["prtt", "gap-us", "d-us", "o-s-us", "o-r-us"] {
        assert!(
            !page.contains(&format!("commtest-loggp-primary-vs-{measured}")),
            "{measured}"
        );
    }
    // ALLREDUCE: time against size, one line per algorithm (n is the size).
    let ar = figure("allreduce-allreduce-primary-latency");
    assert!(ar.contains("algorithm=ring"), "{ar}");
    assert!(!page.contains("allreduce-allreduce-primary-vs-n"));
    // Halo: against size and n; nx, ny, nz and ndata are n and the size again.
    figure("caf-halo-put-put-primary-latency");
    figure("caf-halo-put-put-primary-vs-n");
    for k in ["nx", "ny", "nz", "ndata"] {
        assert!(
            !page.contains(&format!("caf-halo-put-put-primary-vs-{k}\"")),
            "{k}"
        );
    }

    // Two LogGP runs that measured other values still match row for row.
    let a = dir.path().join("commtest.json");
    let mut other = common::read_json(&a);
    for r in other["results"].as_array_mut().unwrap() {
        for m in r["measured_params"].as_array().cloned().unwrap_or_default() {
            for row in r["rows"].as_array_mut().unwrap() {
                let k = m.as_str().unwrap();
                row["params"][k] = json!(row["params"][k].as_f64().unwrap() * 1.1 + 0.5);
            }
        }
    }
    let b = dir.path().join("other.json");
    write_json(&b, &other);
    let (c, code) = compare_json(&a, &b, &[]);
    assert_eq!(code, 0);
    assert!(c["only_in_a"].as_array().unwrap().is_empty(), "{c}");
    assert!(c["only_in_b"].as_array().unwrap().is_empty(), "{c}");
}

fn row(bytes: u64, t: f64, params: Value, samples: bool) -> Value {
    let s: Vec<f64> = (0..128)
        .map(|i| t * (1.0 + (i % 97) as f64 / 970.0))
        .collect();
    let mut r = json!({
        "bytes": bytes, "repetitions": 1000, "params": params,
        "t_min_us": t * 0.9, "t_max_us": t * 1.3, "t_avg_us": t * 1.05,
        "mbytes_per_sec": if bytes > 0 { json!(bytes as f64 / 1.048576 / t) } else { Value::Null },
        "errors": 0, "t_median_us": t, "t_p5_us": t * 0.95, "t_p95_us": t * 1.2,
        "ci95_lo_us": t * 0.98, "ci95_hi_us": t * 1.03, "valid": 1000, "invalid": 0,
        "outliers": 3, "t_global_us": null, "stopped_on_bound": null
    });
    if samples {
        r["samples_us"] = json!(s);
        r["samples_n"] = json!(5000);
    }
    r
}

fn result(suite: &str, bench: &str, p: u64, method: &str, rows: Vec<Value>) -> Value {
    json!({ "benchmark": bench, "suite": suite, "class": "collective", "processes": p,
            "mode": "primary", "groups": 1, "active": p, "method": method, "rows": rows })
}

fn all_suites() -> Value {
    let sizes: Vec<u64> = std::iter::once(0)
        .chain((0..=22).map(|k| 1u64 << k))
        .collect();
    let mut results = Vec::new();
    let counts = [2u64, 4, 8, 16, 32, 64];
    for suite in ["imb", "osu", "allreduce", "mpitest"] {
        for b in 0..12 {
            let base = match suite {
                "osu" => "osu_latency",
                "mpitest" => "ping",
                s => s,
            };
            let bench = if b == 0 {
                base.to_string()
            } else {
                format!("{base}_{b}")
            };
            for &p in &counts {
                let rows = sizes
                    .iter()
                    .map(|&x| {
                        let mut r = row(x, 1.0 + x as f64 / 5000.0 * p as f64, json!({}), true);
                        if x < 4 {
                            r["below_resolution"] = json!(true);
                        }
                        r
                    })
                    .collect();
                results.push(result(suite, &bench, p, "per-call", rows));
            }
        }
    }
    for &p in &counts {
        let mut rows = Vec::new();
        for d in [0, 16, 64, 256, 1024] {
            for dr in [0, 1] {
                rows.push(row(
                    0,
                    10.0 + d as f64 + p as f64,
                    json!({"scenario": 2, "t_delay_us": d, "delayed_rank": dr}),
                    true,
                ));
            }
        }
        results.push(result("cresta", "delay", p, "delay-subtraction", rows));
        let rows = [32, 128, 512]
            .iter()
            .map(|&c| {
                row(
                    0,
                    c as f64 * 1.1,
                    json!({"scenario": 3, "t_calc_us": c, "t_calc_achieved_us": c as f64 * 1.02}),
                    true,
                )
            })
            .collect();
        results.push(result("cresta", "calc", p, "delay-subtraction", rows));
        let rows = ["ring", "all", "pairwise", "team"]
            .iter()
            .map(|s| row(0, 3.0 + p as f64 / 10.0, json!({ "sync": s }), true))
            .collect();
        results.push(result("caf", "sync", p, "per-call", rows));
        let rows = [10, 20, 50, 100]
            .iter()
            .map(|&n| row(0, (n * n) as f64 / 10.0, json!({ "n": n }), true))
            .collect();
        results.push(result("caf", "halo", p, "per-call", rows));
    }
    // COMMTEST as the engine writes it: a fixed volume V = 2 MiB in k packets,
    // t(k) = k·α + V/β, and the fits in `fits`.
    let v: u64 = 2 << 20;
    let mut rows = Vec::new();
    let mut fits = Vec::new();
    for (proto, alpha) in [("(0,3)", 5.0), ("(1,2)", 7.0)] {
        for k in [1u64, 2, 4, 8, 16, 32, 64] {
            rows.push(row(
                v,
                k as f64 * alpha + v as f64 / 1.048576 / 3000.0,
                json!({"protocol": proto, "protocol_name": "x", "pattern": "SWAP", "packets": k,
                       "packet_bytes": v / k, "prepost": false, "distance": 1, "pairs": "all"}),
                true,
            ));
        }
        fits.push(
            json!({"protocol": proto, "name": "x", "prepost": false, "volume": v,
                         "points": 7, "alpha_us": alpha, "beta_mbs": 3000.0, "r2": 0.999,
                         "t_min_us": 700.0, "t_min_packets": 1, "max_mbs": 2900.0, "spots": []}),
        );
    }
    let mut r = result("commtest", "swap", 16, "max-over-processes", rows);
    r["fits"] = json!(fits);
    results.push(r);
    let n = 8;
    let m: Vec<Vec<Value>> = (0..n)
        .map(|i| {
            (0..n)
                .map(|j| {
                    if i == j {
                        Value::Null
                    } else {
                        json!(1000.0 + (i * j) as f64)
                    }
                })
                .collect()
        })
        .collect();
    let mut r = result("mpigraph", "mpigraph", 8, "per-call", vec![]);
    r["matrix"] =
        json!({"ranks": 8, "hosts": vec!["a"; 8], "send_mbs": m, "recv_mbs": m, "latency_us": m});
    r["outliers"] = json!([{"from": 1, "to": 2}]);
    results.push(r);
    let mut v = synthetic("Open MPI v4.1.4", 1.0, 5);
    v["world_size"] = json!(64);
    v["results"] = json!(results);
    v
}

/// On a terminal the self-launching parent draws rank 0's progress as a bar
/// (and clears it); without one, rank 0 prints its lines.
#[test]
fn progress_is_a_bar_on_a_terminal_and_lines_in_a_pipe() {
    let bin = assert_cmd::cargo::cargo_bin("mpibench");
    let args = "run -n 2 pingpong barrier --sizes 0,64 --iter 200";
    let tty = std::process::Command::new("script")
        .args(["-qec", &format!("{} {args}", bin.display()), "/dev/null"])
        .env("TERM", "xterm")
        .env("MPIBENCH_MPIEXEC", common::mpiexec())
        .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        .env_remove("OMPI_COMM_WORLD_SIZE")
        .env_remove("PMI_RANK")
        .env_remove("MPIBENCH_LAUNCHED")
        .output()
        .expect("script(1) from util-linux runs");
    let screen = String::from_utf8_lossy(&tty.stdout);
    assert!(tty.status.success(), "{screen}");
    assert!(screen.contains("/2 PingPong on 2 processes"), "{screen}");
    assert!(screen.contains("\u{1b}[2K"), "the bar is cleared: {screen}");
    assert!(!screen.contains("mpibench: [1/2]"), "{screen}");
    assert!(screen.contains("#repetitions"), "{screen}");

    let piped = common::self_launched(&args.split(' ').collect::<Vec<_>>())
        .assert()
        .success();
    let err = String::from_utf8_lossy(&piped.get_output().stderr).to_string();
    assert!(
        err.contains("mpibench: [1/2] PingPong on 2 processes"),
        "{err}"
    );
    assert!(
        err.contains("mpibench: [2/2] Barrier on 2 processes"),
        "{err}"
    );
}
