//! `mpibench imb-io`, the drop-in for IMB-IO 2021 (MPI-IO): its output
//! read by an IMB-output parser into the same tables as real IMB-IO
//! 2021.11 output (tests/fixtures/imb2021, Open MPI 4.1.4) on 1, 2 and 4
//! ranks; every benchmark validated under `--check` on 1, 2 and 4 ranks, a
//! planted corruption caught; the benchmark files removed; the IMB-IO name.

mod common;
use common::imb_output::*;
use common::*;

/// The fixture's command line with the files in a fresh directory, which
/// is empty again afterwards: the same tables (names, process counts,
/// modes, columns, lengths) and header lines from the calling sequence on
/// (IMB-IO's banner line runs into its rule: "MPI-IO partn#---").
fn shape(fixture_file: &str, np: usize, args: &str) -> String {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let out = program("imb-io", np, &format!("{args} --io-dir {d}"));
    assert_no_files(dir.path());
    let want_text = fixture(fixture_file);
    assert_same_tables(fixture_file, &want_text, &out);
    let heads = |s: &str| -> Vec<String> {
        let from = s.find("# Calling").unwrap_or(0);
        s[from..]
            .lines()
            .filter(|l| {
                l.starts_with("# Minimum")
                    || l.starts_with("# Maximum")
                    || l.starts_with("# List of")
                    || l.starts_with("# Benchmarking")
                    || l.starts_with("# #processes")
                    || l.contains("additional process")
                    || l.starts_with("#    MODE")
                    || l.starts_with("#---")
                    || l.starts_with("# All processes")
            })
            .map(str::to_string)
            .collect()
    };
    assert_eq!(
        heads(&out),
        heads(&want_text),
        "header lines differ from {fixture_file}"
    );
    out
}

fn assert_no_files(dir: &std::path::Path) {
    let left: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name())
        .collect();
    assert!(left.is_empty(), "files left: {left:?}");
}

#[test]
fn msglog_on_1() {
    let out = shape(
        "np1-IMB-IO-msglog0-10.txt",
        1,
        "-msglog 0:10 -iter 20 S_Write_Indv P_Read_Indv Open_Close",
    );
    assert!(out.contains("Intel(R) MPI Benchmarks 2021.11, MPI-IO part"));
}

#[test]
fn blocking_on_2() {
    shape(
        "np2-IMB-IO-blocking-msglog0-12.txt",
        2,
        "-msglog 0:12 -iter 50 S_Write_Indv S_Read_Expl P_Write_Indv P_Read_Shared P_Write_Priv C_Write_Expl C_Read_Indv C_Write_Shared Open_Close",
    );
}

#[test]
fn npmin4_on_4() {
    if shape_on_4_skipped() {
        return;
    }
    shape(
        "np4-IMB-IO-npmin4-msglog0-8.txt",
        4,
        "-npmin 4 -msglog 0:8 -iter 20 P_Write_Indv P_Read_Expl C_Write_Shared Open_Close",
    );
}

/// The non-blocking fixture's command line (fewer repetitions): IMB-IO's
/// overlap tables, aggregate mode only, and its CPU_Exploit lines.
#[test]
fn nonblocking_on_2() {
    let out = shape(
        "np2-IMB-IO-nonblocking-msglog0-6.txt",
        2,
        "-msglog 0:6 -iter 2 P_IWrite_Indv C_IRead_Expl",
    );
    overlap_figures_hold(&out);
    assert!(
        out.contains("# For nonblocking benchmarks:\n\n# Function CPU_Exploit obtains an undisturbed\n# performance of "),
        "{out}"
    );
    assert!(
        out.contains("# MPI-IO hints taken (MPI_File_get_info): "),
        "{out}"
    );
    assert!(out.contains("# --io-sync: off"), "{out}");
}

/// The tables of two non-blocking benchmarks of the full run's fixture
/// (every benchmark, IMB-IO's order): the same tables, columns and lengths.
#[test]
fn nonblocking_of_the_full_list_on_2() {
    let names = ["S_IWrite_Indv", "P_IWrite_Shared"];
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let out = program(
        "imb-io",
        2,
        &format!("-msglog 0:12 -iter 2 {} --io-dir {d}", names.join(" ")),
    );
    assert_no_files(dir.path());
    let file = "np2-IMB-IO-msglog0-12-partial.txt";
    let keep = |t: Vec<Table>| -> Vec<Table> {
        t.into_iter()
            // "S_IWrite_Indv AGGREGATE": the name, then the mode.
            .filter(|x| names.contains(&x.name.split(' ').next().unwrap_or_default()))
            .collect()
    };
    let want = keep(parse_imb(&fixture(file)));
    let got = keep(parse_imb(&out));
    assert_eq!(want.len(), 3, "{file}");
    assert_eq!(
        common::imb_output::shape(&got),
        common::imb_output::shape(&want),
        "{file}"
    );
}

/// `mpibench imb-io -h`: IMB-IO's list of benchmarks in its order (the
/// fixture of `IMB-IO -h`, and of the full run), then mpibench's arguments.
#[test]
fn the_help_lists_imb_io_benchmarks_in_its_order() {
    let out = assert_cmd::Command::cargo_bin("mpibench")
        .unwrap()
        .args(["imb-io", "-h"])
        .assert()
        .success()
        .get_output()
        .clone();
    let s = stdout(&out);
    let list = |text: &str| -> Vec<String> {
        text.lines()
            .skip_while(|l| !l.starts_with("# List of Benchmarks"))
            .skip(2)
            .take_while(|l| l.starts_with("# "))
            .map(str::to_string)
            .collect()
    };
    let want = list(&fixture("IMB-IO-h.txt"));
    assert_eq!(want.len(), 37);
    assert_eq!(list(&s), want);
    assert_eq!(list(&fixture("np2-IMB-IO-msglog0-12-partial.txt")), want);
    assert!(s.contains("-npmin P"), "{s}");
    assert!(s.contains("--io-sync"), "{s}");
}

/// `mpibench run --suite imb-io --check`: every benchmark and access mode
/// reads back what it wrote (or compares what it read) with no error on
/// 1, 2 and 4 ranks; no file is left.
#[test]
fn every_benchmark_validates() {
    for np in [1, 2, 4] {
        let dir = tempfile::tempdir().unwrap();
        let json = dir.path().join("r.json");
        let files = dir.path().join("files");
        std::fs::create_dir(&files).unwrap();
        let a = [
            "run",
            "--suite",
            "imb-io",
            "--sizes",
            "0,1,7,4K,65K",
            "--iter",
            "4",
            "--check",
            "--io-dir",
            files.to_str().unwrap(),
            "--json",
            json.to_str().unwrap(),
        ];
        mpirun(np, &a).assert().success();
        let v = read_json(&json);
        assert_eq!(v["status"], "ok");
        let rs = v["results"].as_array().unwrap();
        assert!(rs.len() >= 19, "{np} ranks: {} results", rs.len());
        assert!(rs.len() >= 37, "{np} ranks: {} results", rs.len());
        for r in rs {
            let name = r["benchmark"].as_str().unwrap();
            let nonblocking = name.get(2..3) == Some("I");
            for row in r["rows"].as_array().unwrap() {
                assert_eq!(row["errors"], 0, "{np} ranks, {name}: {row}");
                if nonblocking {
                    for k in ["t_pure_us", "t_cpu_us", "overlap_pct"] {
                        assert!(row["params"][k].is_number(), "{np} ranks, {name}: {row}");
                    }
                    assert_eq!(row["params"]["aggregate"], 1, "{name}: {row}");
                }
            }
        }
        assert_no_files(&files);
    }
}

/// `--corrupt` flips a byte of what a write reads back or a read found:
/// caught, exit 1.
#[test]
fn a_planted_corruption_is_caught() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("r.json");
    let files = dir.path().join("files");
    std::fs::create_dir(&files).unwrap();
    let a = [
        "run",
        "--suite",
        "imb-io",
        "--sizes",
        "64,4K",
        "--iter",
        "4",
        "--check",
        "--corrupt",
        "P_Write_Expl",
        "C_Read_Indv",
        "--io-dir",
        files.to_str().unwrap(),
        "--json",
        json.to_str().unwrap(),
    ];
    mpirun(2, &a).assert().code(1);
    let v = read_json(&json);
    for r in v["results"].as_array().unwrap() {
        for row in r["rows"].as_array().unwrap() {
            assert!(
                row["errors"].as_u64().unwrap() > 0,
                "{}: {row}",
                r["benchmark"]
            );
        }
    }
    assert_no_files(&files);
}

#[test]
fn the_binary_named_imb_io_is_imb_io() {
    let dir = tempfile::tempdir().unwrap();
    let link = dir.path().join("IMB-IO");
    std::os::unix::fs::symlink(assert_cmd::cargo::cargo_bin("mpibench"), &link).unwrap();
    let files = dir.path().join("files");
    std::fs::create_dir(&files).unwrap();
    let mut cmd = mpirun_program(2, &link);
    cmd.args(["-msglog", "0:2", "-iter", "5", "P_Write_Indv", "--io-dir"])
        .arg(&files);
    let out = cmd.assert().success().get_output().clone();
    let s = stdout(&out);
    assert!(s.contains("# Benchmarking P_Write_Indv"), "{s}");
    assert!(s.contains("IMB-IO -msglog 0:2"), "{s}");
    assert_no_files(&files);
}

/// Bad directories: one line, exit 2, before anything is written.
#[test]
fn bad_io_dirs_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("a-file");
    std::fs::write(&file, b"mine").unwrap();
    let missing = dir.path().join("missing");
    for (d, want) in [
        (file.to_str().unwrap(), "not a directory"),
        (missing.to_str().unwrap(), "No such file"),
    ] {
        let out = mpirun(
            1,
            &["imb-io", "-msglog", "0:2", "P_Write_Indv", "--io-dir", d],
        )
        .assert()
        .code(2)
        .get_output()
        .clone();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(want), "{err}");
    }
    assert_eq!(std::fs::read(&file).unwrap(), b"mine");
}
