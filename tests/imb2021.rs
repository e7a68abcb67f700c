//! `mpibench imb`, the drop-in for IMB-MPI1 2021: its output read by an
//! IMB-output parser into the same tables as real IMB-MPI1 2021.11 output
//! (tests/fixtures/imb2021, with the command lines of its README), every
//! IMB flag's effect, the IMB-MPI1 name, and IMB 2021's definitions under
//! `mpibench run --definitions imb2021`.

mod common;
use common::imb_output::*;
use common::*;

use std::collections::BTreeSet;
use std::path::PathBuf;

fn same_tables_as(fixture_file: &str, np: usize, args: &str) -> String {
    same_program_tables_as(fixture_file, "imb", np, args)
}

#[test]
fn default_run_on_2_has_imbs_tables() {
    let out = same_tables_as("np2-default.txt", 2, "");
    // IMB's MB is 10^6 bytes: Mbytes/sec = bytes / t[usec].
    let t = parse_imb(&out);
    let pp = t.iter().find(|t| t.name == "PingPong").unwrap();
    let last = pp.rows.last().unwrap();
    assert_eq!(last[0], 4194304.0);
    let want = last[0] / last[2];
    assert!((last[3] - want).abs() <= 0.02 * want + 0.02, "{last:?}");
}

#[test]
fn npmin_msglog_iter_on_4() {
    if shape_on_4_skipped() {
        return;
    }
    let out = same_tables_as(
        "np4-npmin2-msglog3-12.txt",
        4,
        "-npmin 2 -msglog 3:12 -iter 200",
    );
    for t in parse_imb(&out) {
        for r in &t.rows {
            let reps = r[t.columns.iter().position(|c| c == "#repetitions").unwrap()];
            assert_eq!(reps, 200.0, "{}", t.name);
        }
    }
}

#[test]
fn multi_1_on_4() {
    same_tables_as(
        "np4-multi1.txt",
        4,
        "-multi 1 -npmin 2 -msglog 0:8 -iter 100 PingPong Sendrecv Allreduce Barrier",
    );
}

#[test]
fn sync_0_off_cache_on_2() {
    same_tables_as(
        "np2-sync0-offcache.txt",
        2,
        "-sync 0 -off_cache -1 -msglog 10:16 Bcast Reduce_scatter Gather",
    );
}

#[test]
fn the_parser_reads_the_fixtures() {
    let t = parse_imb(&fixture("np4-multi1.txt"));
    let names: Vec<(&str, bool, usize, usize)> = t
        .iter()
        .map(|t| (t.name.as_str(), t.multi, t.procs, t.groups))
        .collect();
    assert_eq!(
        names,
        [
            ("PingPong", true, 2, 2),
            ("Sendrecv", true, 2, 2),
            ("Sendrecv", false, 4, 1),
            ("Allreduce", true, 2, 2),
            ("Allreduce", false, 4, 1),
            ("Barrier", true, 2, 2),
            ("Barrier", false, 4, 1)
        ]
    );
    assert_eq!(t[0].columns[0], "Group");
    assert_eq!(t[0].rows.len(), 20);
    let d = parse_imb(&fixture("np2-default.txt"));
    assert_eq!(d.len(), 19);
    assert_eq!(
        d[18].columns,
        ["#repetitions", "t_min[usec]", "t_max[usec]", "t_avg[usec]"]
    );
}

/// `mpiexec -n P mpibench imb ARGS --json`: the results.
fn imb_json(np: usize, args: &[&str]) -> (serde_json::Value, String, String) {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("r.json");
    let mut a = vec!["imb"];
    a.extend_from_slice(args);
    a.extend(["--json", json.to_str().unwrap(), "-q"]);
    let out = mpirun(np, &a).assert().success().get_output().clone();
    (
        read_json(&json),
        stdout(&out),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn results<'a>(v: &'a serde_json::Value, name: &str) -> Vec<&'a serde_json::Value> {
    v["results"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["benchmark"] == name)
        .collect()
}

fn col(r: &serde_json::Value, f: &str) -> Vec<u64> {
    r["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x[f].as_u64().unwrap())
        .collect()
}

#[test]
fn flags_shape_the_run() {
    // -npmin, -msglog, -iter N,VOL, -root_shift, -imb_barrier, -off_cache
    // with validation, -include/-exclude, -zero_size, -map.
    let (v, _, err) = imb_json(
        4,
        &[
            "-npmin",
            "2",
            "-msglog",
            "2:4",
            "-iter",
            "9,1",
            "-root_shift",
            "on",
            "-imb_barrier",
            "1",
            "-off_cache",
            "1,128",
            "-zero_size",
            "off",
            "-include",
            "Uniband",
            "-exclude",
            "PingPing",
            "-map",
            "2x2",
            "Bcast",
            "PingPing",
            "Scatterv",
            "--check",
        ],
    );
    assert_eq!(v["status"], "ok");
    let names: Vec<&str> = v["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["benchmark"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        ["Uniband", "Uniband", "Bcast", "Bcast", "Scatterv", "Scatterv"]
    );
    for r in v["results"].as_array().unwrap() {
        assert_eq!(col(r, "bytes"), [4, 8, 16], "{r}");
        assert_eq!(col(r, "repetitions"), [9, 9, 9]);
        assert_eq!(r["sync"], "dissemination");
        assert_eq!(r["definitions"], "imb2021");
    }
    assert_eq!(results(&v, "Bcast")[0]["method"], "per-call");
    assert_eq!(results(&v, "Uniband")[1]["processes"], 4);
    assert!(
        results(&v, "Uniband")[0]["rows"][0]["msg_per_sec"]
            .as_f64()
            .unwrap()
            > 0.0
    );
    // Uniband's window: IMB 2021's 256 by default, in every row's params.
    for r in results(&v, "Uniband") {
        for row in r["rows"].as_array().unwrap() {
            assert_eq!(row["params"]["window"], 256, "{row}");
        }
    }
    // What -root_shift, -off_cache and -map did, in the settings.
    let set = &v["settings"];
    assert_eq!(set["root_shift"], true);
    assert_eq!(
        set["off_cache"],
        serde_json::json!({"cache_bytes": 1 << 20, "line": 128})
    );
    assert_eq!(set["imb_map"], "2x2");
    // -map 2x2: new ranks 0, 1, 2, 3 are world ranks 0, 2, 1, 3 ("inter node first").
    assert_eq!(results(&v, "Bcast")[0]["ranks"], serde_json::json!([0, 2]));
    assert_eq!(
        results(&v, "Bcast")[1]["ranks"],
        serde_json::json!([0, 2, 1, 3])
    );
    assert!(!err.contains("-map"), "{err}");

    // -iter N,VOL: at most VOL MiB per length; without those flags the
    // settings say so.
    let (v, _, _) = imb_json(2, &["-msglog", "19:20", "-iter", "100,1", "PingPong"]);
    assert_eq!(col(results(&v, "PingPong")[0], "repetitions"), [100, 2, 1]);
    let set = &v["settings"];
    assert_eq!(set["root_shift"], false);
    for absent in ["off_cache", "imb_map", "warmup", "msg_pause"] {
        assert!(set.get(absent).is_none(), "{absent}: {set}");
    }
    assert_eq!(
        results(&v, "PingPong")[0]["ranks"],
        serde_json::json!([0, 1])
    );
}

#[test]
fn window_size_msg_pause_map_npmin_and_commas() {
    // Names separated by commas; -npmin above the process count runs on
    // all (IMB); -map 2x2 puts PingPong's pair on world ranks 0 and 2;
    // -window_size 4: the window of every Uniband row; -msg_pause on.
    let started = std::time::Instant::now();
    let (v, out, err) = imb_json(
        4,
        &[
            "-map",
            "2x2",
            "-window_size",
            "4",
            "-msg_pause",
            "on",
            "-npmin",
            "8",
            "-msglog",
            "0:1",
            "-iter",
            "10",
            "PingPong,Uniband",
            "Allreduce",
        ],
    );
    let took = started.elapsed().as_secs_f64();
    assert!(err.is_empty(), "{err}");
    // IMB's rank order lines: -map 2x2 lists the ranks in 2 rows.
    assert!(
        out.contains("# Benchmarking PingPong \n# #processes = 2; rank order (rowwise): \n#     0    2\n# \n"),
        "{out}"
    );
    assert!(
        out.contains(
            "# #processes = 4; rank order (rowwise): \n#     0    2\n# \n#     1    3\n# \n"
        ),
        "{out}"
    );
    let t = parse_imb(&out);
    assert_eq!(t.iter().map(|t| t.procs).collect::<Vec<_>>(), [2, 4, 4]);
    let names: Vec<(&str, u64)> = v["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["benchmark"].as_str().unwrap(),
                r["processes"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(names, [("PingPong", 2), ("Uniband", 4), ("Allreduce", 4)]);
    assert_eq!(
        results(&v, "PingPong")[0]["ranks"],
        serde_json::json!([0, 2])
    );
    let ub = results(&v, "Uniband")[0];
    for row in ub["rows"].as_array().unwrap() {
        assert_eq!(row["params"]["window"], 4, "{row}");
        // Msg/sec = window × pairs / t_max: 4 × 2 messages per repetition.
        let per_rep =
            row["msg_per_sec"].as_f64().unwrap() * row["t_max_us"].as_f64().unwrap() * 1e-6;
        assert!((per_rep - 8.0).abs() < 1e-6, "{row}");
    }
    assert_eq!(v["settings"]["msg_pause"], true);
    // At least 0.1 s of pause after each of the 3 + 3 + 2 lengths (a lower
    // bound that no load can break).
    assert!(took >= 0.8, "{took} s");

    // Under PMB's definitions: Uniband's window is IMB's old 64, and -sync
    // (either way) has no effect, said in one line.
    let (v, _, err) = imb_json(
        2,
        &[
            "--definitions",
            "pmb",
            "-sync",
            "on",
            "-msglog",
            "0",
            "Uniband",
        ],
    );
    assert_eq!(results(&v, "Uniband")[0]["rows"][0]["params"]["window"], 64);
    assert_eq!(
        err.trim(),
        "mpibench imb: -sync on has no effect with --definitions pmb: PMB times collectives in one loop after one barrier"
    );
}

#[test]
fn iteration_policies_time_and_memory() {
    // off: always N, whatever the volume.
    let (v, _, _) = imb_json(
        2,
        &[
            "-msglog",
            "20:20",
            "-iter",
            "3,1",
            "-iter_policy",
            "off",
            "Bcast",
        ],
    );
    assert_eq!(col(results(&v, "Bcast")[0], "repetitions"), [3, 3]);
    // multiple_np: IMB's hyperbola, a multiple of Q; auto: that for rooted collectives only.
    let (v, _, _) = imb_json(
        2,
        &[
            "-msglog",
            "10:12",
            "-iter_policy",
            "auto",
            "-iter",
            "100",
            "Gather",
            "Allgather",
        ],
    );
    // round(100 · 4096 / (2 · max(X, 4) + 4096)), made even: 100, 66, 50, 32.
    assert_eq!(
        col(results(&v, "Gather")[0], "repetitions"),
        [100, 66, 50, 32]
    );
    assert_eq!(
        col(results(&v, "Allgather")[0], "repetitions"),
        [100, 100, 100, 100]
    );
    // -time: repetitions cut to what fits; -warm_up off: one warm-up
    // repetition (to size the run), in the settings.
    let (v, _, _) = imb_json(
        2,
        &[
            "-msglog", "2", "-time", "0.000001", "-warm_up", "off", "Bcast",
        ],
    );
    assert!(col(results(&v, "Bcast")[0], "repetitions")
        .iter()
        .all(|&n| n < 1000));
    assert_eq!(v["settings"]["warmup"], 1);
    // -mem: lengths whose buffers do not fit are skipped, with a note in the table.
    let (v, out, _) = imb_json(2, &["-msglog", "10:20", "-mem", "0.0001", "Alltoall"]);
    let r = results(&v, "Alltoall")[0];
    assert_eq!(*col(r, "bytes").last().unwrap(), 16384);
    assert!(r["note"].as_str().unwrap().contains("skipped"));
    assert!(
        out.contains("# note: points from 32768 bytes skipped"),
        "{out}"
    );
    // -sync off: each call timed, one synchronisation.
    let (v, _, _) = imb_json(2, &["-msglog", "3", "-sync", "off", "Allreduce"]);
    assert_eq!(results(&v, "Allreduce")[0]["method"], "per-call-once");
    // -multi 0: no Group column; single transfers get ranges.
    let (v, out, _) = imb_json(4, &["-multi", "0", "-msglog", "2", "PingPong"]);
    assert_eq!(results(&v, "PingPong")[0]["groups"], 2);
    assert!(out.contains("# Benchmarking Multi-PingPong"));
    assert!(out.contains(
        "       #bytes #repetitions  t_min[usec]  t_max[usec]  t_avg[usec]   Mbytes/sec\n"
    ));
}

#[test]
fn length_and_name_files() {
    let dir = tempfile::tempdir().unwrap();
    let lens = dir.path().join("lens.txt");
    std::fs::write(&lens, "# lengths\n3\n1k\n").unwrap();
    let names = dir.path().join("names.txt");
    std::fs::write(&names, "# which\nReduce_scatter\nbcast\n").unwrap();
    let (v, out, _) = imb_json(
        2,
        &[
            "-msglen",
            lens.to_str().unwrap(),
            "-input",
            names.to_str().unwrap(),
        ],
    );
    // Reductions take whole floats (3 bytes -> 4); the others the lengths given.
    assert_eq!(col(results(&v, "Reduce_scatter")[0], "bytes"), [4, 1024]);
    assert_eq!(col(results(&v, "Bcast")[0], "bytes"), [3, 1024]);
    assert!(
        out.contains("# Message lengths were user defined\n"),
        "{out}"
    );
}

#[test]
fn help_list_and_bad_values() {
    let bin = || assert_cmd::Command::cargo_bin("mpibench").unwrap();
    let out = bin()
        .args(["imb", "-h"])
        .assert()
        .success()
        .get_output()
        .clone();
    assert!(stdout(&out).contains("-off_cache MB[,LINE]"));
    let out = bin()
        .args(["imb", "-list"])
        .assert()
        .success()
        .get_output()
        .clone();
    // IMB 2021's layout: the program, its part, the names in byte order.
    let list = stdout(&out);
    assert!(
        list.starts_with("IMB-MPI1\nList of benchmarks:\nMPI1:\n    Allgather\n    Allgatherv\n    Allreduce\n    Alltoall\n"),
        "{list}"
    );
    assert!(
        list.contains("    Bcast\n    Biband (non-default)\n    Exchange\n"),
        "{list}"
    );
    assert!(!list.contains("        "), "{list}");
    let one_line = |bad: &[&str], out: &std::process::Output, want: &str| {
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.trim().lines().count(), 1, "{bad:?}: {err}");
        assert!(err.starts_with("error: "), "{bad:?}: {err}");
        assert!(err.contains(want), "{bad:?}: {err}");
        assert!(out.stdout.is_empty(), "{bad:?}");
    };
    // Under mpiexec: the command line is read on every rank, one speaks;
    // -map's P*Q <= NP is checked against the world.
    for (bad, want) in [
        (&["imb", "-npmin", "0"][..], "-npmin"),
        (&["imb", "-multi", "3"], "-multi"),
        (&["imb", "-msglog", "9:2"], "-msglog"),
        (&["imb", "-iter_policy", "never"], "-iter_policy"),
        (&["imb", "-sync", "sometimes"], "-sync"),
        (&["imb", "-off_cache", "x"], "-off_cache"),
        (&["imb", "-nosuch"], "-nosuch"),
        (&["imb", "PingPang"], "PingPang"),
        (&["imb", "-msglen", "/nonexistent"], "-msglen"),
        (
            &["imb", "-map", "2x2", "PingPong"],
            "P x Q = 4 exceeds the 2 processes",
        ),
    ] {
        let out = mpirun(2, bad).assert().code(2).get_output().clone();
        one_line(bad, &out, want);
    }
    // The other flags' bad values, batched: read before MPI starts, so the
    // binary alone answers (no launcher needed).
    let dir = tempfile::tempdir().unwrap();
    let names = dir.path().join("names.txt");
    std::fs::write(&names, "PingPong\nNoSuchOne\n").unwrap();
    let names = names.to_str().unwrap();
    for (bad, want) in [
        (&["-iter", "0"][..], "-iter"),
        (&["-iter", "x"], "-iter"),
        (&["-iter", "-5"], "-iter"),
        (&["-iter", "5,"], "-iter"),
        (&["-iter", ",5"], "-iter"),
        (&["-iter", "5,0"], "-iter"),
        (&["-iter", "5,,7"], "-iter"),
        (&["-iter", "5,x"], "-iter"),
        (&["-iter", "1,2,3,4"], "-iter"),
        (&["-time", "0"], "-time"),
        (&["-time", "-1"], "-time"),
        (&["-time", "soon"], "-time"),
        (&["-mem", "0"], "-mem"),
        (&["-mem", "lots"], "-mem"),
        (&["-map", "4"], "-map"),
        (&["-map", "0x2"], "-map"),
        (&["-map", "2x"], "-map"),
        (&["-map", "axb"], "-map"),
        (&["-include", ","], "-include"),
        (&["-include", "PingPang"], "PingPang"),
        (&["-exclude", "Nope"], "Nope"),
        (&["-exclude", ""], "-exclude"),
        (&["-input", "/nonexistent/list"], "-input"),
        (&["-input", names], "NoSuchOne"),
        (&["-root_shift", "maybe"], "-root_shift"),
        (&["-root_shift", "2"], "-root_shift"),
        (&["-imb_barrier", "x"], "-imb_barrier"),
        (&["-warm_up", "sometimes"], "-warm_up"),
        (&["-window_size", "0"], "-window_size"),
        (&["-window_size", "-8"], "-window_size"),
        (&["-window_size", "x"], "-window_size"),
        (&["-window_size", "99999999"], "-window_size"),
        (&["-msg_pause", "x"], "-msg_pause"),
        (&["-window_size"], "missing argument"),
    ] {
        let out = bin()
            .arg("imb")
            .args(bad)
            .timeout(std::time::Duration::from_secs(60))
            .assert()
            .code(2)
            .get_output()
            .clone();
        one_line(bad, &out, want);
    }
}

/// A link named IMB-MPI1 to the binary.
fn imb_link(dir: &std::path::Path) -> PathBuf {
    let link = dir.join("IMB-MPI1");
    std::os::unix::fs::symlink(assert_cmd::cargo::cargo_bin("mpibench"), &link).unwrap();
    link
}

#[test]
fn the_binary_named_imb_mpi1_is_imb() {
    let dir = tempfile::tempdir().unwrap();
    let link = imb_link(dir.path());
    // Under mpiexec.
    let mut cmd = mpirun_program(2, &link);
    cmd.args(["-msglog", "0:2", "PingPong", "Barrier"]);
    let out = stdout(&cmd.assert().success().get_output().clone());
    let t = parse_imb(&out);
    assert_eq!(t.len(), 2, "{out}");
    assert!(out.contains(&format!(
        "# {} -msglog 0:2 PingPong Barrier \n",
        link.display()
    )));
    // Self-launched: the re-launched ranks read IMB's command line too.
    let mut cmd = assert_cmd::Command::new(&link);
    cmd.args(["-n", "2", "-msglog", "2", "Allreduce", "-q"])
        .env("MPIBENCH_MPIEXEC", mpiexec())
        .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        .timeout(std::time::Duration::from_secs(300));
    for v in [
        "OMPI_COMM_WORLD_SIZE",
        "PMI_RANK",
        "PMI_SIZE",
        "PMIX_RANK",
        "MPI_LOCALRANKID",
        "MPIBENCH_LAUNCHED",
        "MPIBENCH_ARGV0",
        "SLURM_STEP_ID",
        "SLURM_PROCID",
    ] {
        cmd.env_remove(v);
    }
    let out = stdout(&cmd.assert().success().get_output().clone());
    let t = parse_imb(&out);
    assert_eq!(t.len(), 1, "{out}");
    // Lengths 0, 1, 2, 4: as whole floats 0 and 4.
    assert_eq!(
        (t[0].name.as_str(), t[0].procs, t[0].rows.len()),
        ("Allreduce", 2, 2)
    );
    // -h under the IMB name.
    let out = assert_cmd::Command::new(&link)
        .arg("-h")
        .assert()
        .success()
        .get_output()
        .clone();
    assert!(stdout(&out).contains("IMB-MPI1 2021 arguments"));
}

#[test]
fn run_with_imb2021_definitions_validates_every_benchmark() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("r.json");
    let all = [
        "PingPong",
        "PingPing",
        "Sendrecv",
        "Exchange",
        "Allreduce",
        "Reduce",
        "Reduce_local",
        "Reduce_scatter",
        "Reduce_scatter_block",
        "Allgather",
        "Allgatherv",
        "Gather",
        "Gatherv",
        "Scatter",
        "Scatterv",
        "Alltoall",
        "Alltoallv",
        "Bcast",
        "Barrier",
        "Uniband",
        "Biband",
    ];
    let mut args = vec![
        "run",
        "--definitions",
        "imb2021",
        "--sizes",
        "0,1,3,4,1K,64K",
        "--iter",
        "4",
        "--check",
        "--root-shift",
        "--off-cache",
        "1",
        "-q",
        "--json",
        json.to_str().unwrap(),
    ];
    args.extend(all);
    mpirun(3, &args).assert().success();
    let v = read_json(&json);
    assert_eq!(v["status"], "ok");
    for name in all {
        let rs = results(&v, name);
        assert!(!rs.is_empty(), "{name}");
        for r in rs {
            for row in r["rows"].as_array().unwrap() {
                assert_eq!(row["errors"], 0, "{name} {row}");
            }
            // IMB 2021 rounds reduction lengths up to whole floats.
            if r["datatype"] == "MPI_FLOAT" {
                assert_eq!(col(r, "bytes"), [0, 4, 1024, 65536], "{name}");
            }
        }
    }
    // Uniband and Biband need an even number of processes: 2 of 3.
    assert_eq!(results(&v, "Biband").len(), 1);
    // Without --definitions the run is PMB's: its twelve, Reduce_scatter split.
    let json2 = dir.path().join("p.json");
    mpirun(
        2,
        &[
            "run",
            "--sizes",
            "8",
            "--iter",
            "2",
            "-q",
            "--json",
            json2.to_str().unwrap(),
        ],
    )
    .assert()
    .success();
    let p = read_json(&json2);
    assert_eq!(p["results"].as_array().unwrap().len(), 12);
    assert_eq!(results(&p, "Bcast")[0]["method"], "loop");
    assert_eq!(results(&p, "Bcast")[0]["definitions"], "pmb");
}

#[test]
fn nbc_msglog_iter_on_2() {
    let out = same_program_tables_as(
        "np2-IMB-NBC-msglog0-12.txt",
        "imb-nbc",
        2,
        "-msglog 0:12 -iter 200",
    );
    assert!(out.contains("Intel(R) MPI Benchmarks 2021.11, MPI-NBC part"));
    overlap_figures_hold(&out);
}

#[test]
fn nbc_npmin4_on_4() {
    if shape_on_4_skipped() {
        return;
    }
    let out = same_program_tables_as(
        "np4-IMB-NBC-npmin4-msglog0-10.txt",
        "imb-nbc",
        4,
        "-npmin 4 -msglog 0:10 -iter 100 Ibcast Iallreduce Ialltoall Ibarrier Ibcast_pure",
    );
    overlap_figures_hold(&out);
}

/// Every IMB-NBC benchmark, its _pure variant too, validated on 2, 3 and 4
/// processes: no wrong element, and every overlapped row carries IMB-NBC's
/// figures (t_pure and t_CPU of the slowest rank, the overlap).
#[test]
fn nbc_every_benchmark_validates_on_2_3_4() {
    let names = [
        "Ibcast",
        "Iallgather",
        "Iallgatherv",
        "Igather",
        "Igatherv",
        "Iscatter",
        "Iscatterv",
        "Ialltoall",
        "Ialltoallv",
        "Ireduce",
        "Ireduce_scatter",
        "Iallreduce",
        "Ibarrier",
    ];
    overlap_family_validates("imb-nbc", &names, &[2, 3, 4]);
}

#[test]
fn the_binary_named_imb_nbc_is_imb_nbc() {
    let dir = tempfile::tempdir().unwrap();
    let link = dir.path().join("IMB-NBC");
    std::os::unix::fs::symlink(assert_cmd::cargo::cargo_bin("mpibench"), &link).unwrap();
    let mut cmd = mpirun_program(2, &link);
    cmd.args(["-msglog", "0:2", "Iallreduce", "Ibarrier_pure"]);
    let out = stdout(&cmd.assert().success().get_output().clone());
    let t = parse_imb(&out);
    let names: Vec<&str> = t.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["Iallreduce", "Ibarrier_pure"], "{out}");
    assert_eq!(t[0].columns[2], "t_ovrl[usec]");
    assert_eq!(
        t[1].columns,
        ["#repetitions", "t_min[usec]", "t_max[usec]", "t_avg[usec]"]
    );
    assert!(out.contains(&format!(
        "# {} -msglog 0:2 Iallreduce Ibarrier_pure",
        link.display()
    )));
    // -list and -h under the name; a flag IMB-NBC does not know.
    let list = named(&link, "-list");
    assert!(
        list.starts_with("IMB-NBC\nList of benchmarks:\nNBC:\n    Iallgather\n"),
        "{list}"
    );
    assert!(list.contains("    Ibcast_pure (non-default)\n"), "{list}");
    assert!(named(&link, "-h").contains("IMB-NBC 2021 arguments"));
    assert_eq!(
        usage_error(&["imb-nbc", "-nosuch"]),
        "error: unknown IMB-NBC flag '-nosuch' (see mpibench imb-nbc -h)"
    );
    assert!(usage_error(&["imb-nbc", "Bcast"]).contains("Bcast"));
}

/// IMB-P2P's figures hold together: t[usec] > 0, Msg/sec > 0 and
/// Mbytes/sec = Msg/sec x bytes / 10^6 (within the printed rounding).
fn p2p_figures_hold(out: &str) {
    let tables = parse_imb(out);
    assert!(!tables.is_empty(), "{out}");
    for t in tables {
        // --check adds a defects column.
        assert_eq!(
            t.columns[..5],
            ["#bytes", "#repetitions", "t[usec]", "Mbytes/sec", "Msg/sec"],
            "{}",
            t.name
        );
        for r in &t.rows {
            let (x, us, mb, rate) = (r[0], r[2], r[3], r[4]);
            assert!(us > 0.0 && rate > 0.0, "{}: {r:?}", t.name);
            let want = rate * x / 1e6;
            assert!(
                (mb - want).abs() <= 0.01 + want * 1e-5 + x / 1e6,
                "{}: {r:?}",
                t.name
            );
        }
    }
}

/// `--time` keeps oversubscribed MPICH within the test's time (the
/// repetitions change; the tables' rows and columns do not).
fn p2p_args(np: usize, args: &str) -> String {
    if oversubscribed_mpich(np) {
        format!("{args} --time 0.05 --warmup 1")
    } else {
        args.to_string()
    }
}

#[test]
fn p2p_on_2_has_imb_p2ps_tables() {
    let out = same_program_tables_as(
        "np2-IMB-P2P.txt",
        "imb-p2p",
        2,
        &p2p_args(2, "-iter 20 -pause 0"),
    );
    assert!(out.contains("Intel(R) MPI Benchmarks 2021.11, IMB-P2P part"));
    assert!(out.contains("\n# !! Benchmark Stencil2D is invalid for 2 processes !!\n"));
    assert!(out.contains("\n# !! Benchmark Stencil3D is invalid for 2 processes !!\n"));
    p2p_figures_hold(&out);
}

#[test]
fn p2p_on_4_has_imb_p2ps_tables() {
    let out = same_program_tables_as(
        "np4-IMB-P2P.txt",
        "imb-p2p",
        4,
        &p2p_args(4, "-iter 10 -pause 0"),
    );
    assert!(out.contains("# Benchmarking Stencil2D (2 x 2)\n"));
    assert!(out.contains("\n# !! Benchmark Stencil3D is invalid for 4 processes !!\n"));
    p2p_figures_hold(&out);
}

/// Every IMB-P2P benchmark validated on 2, 3 and 4 processes (and 8, for
/// Stencil3D, under Open MPI): no wrong byte, every rank's partners right
/// (random pairs, random rings, grids with a side of 2), IMB-P2P's
/// iterations (800 MiB / X, at most -iter), and the ones a count cannot
/// run skipped with IMB-P2P's reason.
#[test]
fn p2p_every_benchmark_validates_on_2_3_4() {
    let mut counts = vec![2, 3, 4];
    if is_open_mpi(&mpiexec()) {
        counts.push(8);
    }
    for np in counts {
        let dir = tempfile::tempdir().unwrap();
        let json = dir.path().join("r.json");
        let a = p2p_args(
            np,
            &format!(
                "imb-p2p -iter 30,1 -msglog 0:6 -msgsz 100000 -pause 1000 -msgrd off --check --json {}",
                json.display()
            ),
        );
        let a: Vec<&str> = a.split_whitespace().collect();
        let out = mpirun(np, &a).assert().success().get_output().clone();
        let text = stdout(&out);
        let v = read_json(&json);
        assert_eq!(v["status"], "ok", "{np} ranks");
        let rs = v["results"].as_array().unwrap();
        assert_eq!(rs.len(), 8, "{np} ranks");
        for r in rs {
            let name = r["benchmark"].as_str().unwrap();
            assert_eq!(r["suite"], "imb-p2p");
            assert_eq!(r["processes"], np, "{name}");
            let invalid = match name {
                "PingPong" | "PingPing" => np % 2 == 1,
                "Stencil2D" => np < 4 || np == 5,
                "Stencil3D" => np < 8,
                _ => false,
            };
            if invalid {
                assert!(r["rows"].as_array().is_none_or(|x| x.is_empty()), "{name}");
                assert!(r["skipped"].as_str().unwrap().contains("invalid for"));
                assert!(
                    text.contains(&format!("{name} is invalid for {np}")) || name == "PingPing"
                );
                continue;
            }
            let rows = r["rows"].as_array().unwrap();
            // -msglog 0:6 (k:n): 1 .. 64, no 0; and 100000.
            assert_eq!(rows.len(), 8, "{name} on {np}");
            for row in rows {
                assert_eq!(row["errors"], 0, "{name} on {np}: {row}");
                assert_eq!(row["params"]["pause_us"], 1000, "{name}");
                assert_eq!(row["params"]["msgrd"], 0, "{name}");
                // -iter 30,1: 1 MiB / X iterations, at most 30.
                let x = row["bytes"].as_u64().unwrap();
                let want = (1u64 << 20).checked_div(x).unwrap_or(30).clamp(1, 30);
                if !oversubscribed_mpich(np) {
                    assert_eq!(row["repetitions"], want, "{name} at {x}");
                }
                assert!(row["msg_per_sec"].as_f64().unwrap() > 0.0, "{name}");
            }
        }
        p2p_figures_hold(&text);
    }
}

#[test]
fn the_binary_named_imb_p2p_is_imb_p2p() {
    let dir = tempfile::tempdir().unwrap();
    let link = dir.path().join("IMB-P2P");
    std::os::unix::fs::symlink(assert_cmd::cargo::cargo_bin("mpibench"), &link).unwrap();
    let mut cmd = mpirun_program(2, &link);
    cmd.args(["-msglog", "2", "-pause", "0", "birandom,SENDRECV_REPLACE"]);
    let out = stdout(&cmd.assert().success().get_output().clone());
    let t = parse_imb(&out);
    let names: Vec<&str> = t.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["Birandom", "SendRecv_Replace"], "{out}");
    let bytes: Vec<f64> = t[0].rows.iter().map(|r| r[0]).collect();
    assert_eq!(bytes, [0.0, 1.0, 2.0, 4.0]);
    assert!(out.contains(&format!(
        "#\n# {} -msglog 2 -pause 0 birandom,SENDRECV_REPLACE\n#\n",
        link.display()
    )));
    let list = named(&link, "-list");
    assert!(
        list.contains("# List of Benchmarks to run:\n#\n# PingPong\n"),
        "{list}"
    );
    assert!(list.ends_with("# SendRecv_Replace\n"), "{list}");
    assert!(named(&link, "-h").contains("IMB-P2P 2021 arguments"));
    for (args, says) in [
        (
            &["imb-p2p", "-npmin", "2"][..],
            "error: unknown IMB-P2P flag '-npmin' (see mpibench imb-p2p -h)",
        ),
        (
            &["imb-p2p", "Bcast"][..],
            "error: unknown IMB-P2P benchmark 'Bcast'",
        ),
        (
            &["imb-p2p", "-iter", "0"][..],
            "error: invalid -iter argument '0'",
        ),
    ] {
        let err = usage_error(args);
        assert!(err.starts_with(says), "{args:?}: {err}");
    }
}

/// `mpiexec -n NP mpibench ARGS --json F` (with [`MPICH_CAPS`] where MPICH
/// is oversubscribed) succeeds with status ok: its results.
fn validated_results(np: usize, args: &[&str]) -> Vec<serde_json::Value> {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("r.json");
    let mut a = args.to_vec();
    if oversubscribed_mpich(np) {
        a.extend(MPICH_CAPS);
    }
    a.extend(["--json", json.to_str().unwrap()]);
    mpirun(np, &a).assert().success();
    let v = read_json(&json);
    assert_eq!(v["status"], "ok", "{np} ranks");
    v["results"].as_array().unwrap().clone()
}

/// `mpiexec -n 2 PROGRAM ARGS` through a link named PROGRAM in `dir`: the
/// link, and the names of the tables it printed.
fn linked_tables(dir: &std::path::Path, program: &str, args: &[&str]) -> (PathBuf, Vec<String>) {
    let link = dir.join(program);
    std::os::unix::fs::symlink(assert_cmd::cargo::cargo_bin("mpibench"), &link).unwrap();
    let mut cmd = mpirun_program(2, &link);
    cmd.args(args);
    let out = stdout(&cmd.assert().success().get_output().clone());
    let names = parse_imb(&out).into_iter().map(|t| t.name).collect();
    (link, names)
}

#[test]
fn ext_msglog_iter_on_2() {
    let out = same_program_tables_as(
        "np2-IMB-EXT-msglog0-12.txt",
        "imb-ext",
        2,
        "-msglog 0:12 -iter 200",
    );
    assert!(out.contains("Intel(R) MPI Benchmarks 2021.11, MPI-2 part"));
    assert!(out.contains("#\n#    MODE: AGGREGATE \n#\n"));
}

/// Every IMB-EXT benchmark in both modes, validated on 2, 3 and 4
/// processes: no wrong byte or sum, IMB's repetitions (the third -iter
/// value in non-aggregate mode and for Window) and lengths (multiples of 4).
#[test]
fn ext_every_benchmark_validates_on_2_3_4() {
    for np in [2, 3, 4] {
        let a = ["imb-ext", "-msglog", "0:8", "-iter", "30,40,7", "--check"];
        let rs = validated_results(np, &a);
        for r in &rs {
            let name = r["benchmark"].as_str().unwrap();
            assert_eq!(r["suite"], "imb-ext");
            let rows = r["rows"].as_array().unwrap();
            let bytes: BTreeSet<u64> = rows.iter().map(|x| x["bytes"].as_u64().unwrap()).collect();
            // -msglog 0:8: 0, 1, 2, 4 .. 256, as multiples of 4.
            assert_eq!(bytes, [0, 4, 8, 16, 32, 64, 128, 256].into(), "{name}");
            for row in rows {
                assert_eq!(row["errors"], 0, "{name} on {np}: {row}");
                let reps = row["repetitions"].as_u64().unwrap();
                let aggregate = row["params"]["aggregate"].as_u64();
                if aggregate == Some(1) {
                    assert!((1..=30).contains(&reps), "{name}: {row}");
                } else {
                    assert!((1..=7).contains(&reps), "{name}: {row}");
                }
            }
            if name != "Window" {
                let modes: BTreeSet<u64> = rows
                    .iter()
                    .map(|x| x["params"]["aggregate"].as_u64().unwrap())
                    .collect();
                assert_eq!(modes, [0, 1].into(), "{name}");
            }
        }
        let names: BTreeSet<&str> = rs
            .iter()
            .map(|r| r["benchmark"].as_str().unwrap())
            .collect();
        assert_eq!(names.len(), 6, "{np} ranks");
    }
}

#[test]
fn the_binary_named_imb_ext_is_imb_ext() {
    let dir = tempfile::tempdir().unwrap();
    let (link, names) = linked_tables(
        dir.path(),
        "IMB-EXT",
        &["-msglog", "2:3", "unidir_put", "Window"],
    );
    assert_eq!(
        names,
        ["Unidir_Put AGGREGATE", "Unidir_Put NON-AGGREGATE", "Window"],
    );
    let list = named(&link, "-list");
    assert!(
        list.starts_with("IMB-EXT\nList of benchmarks:\nEXT:\n    Accumulate\n"),
        "{list}"
    );
    assert!(named(&link, "-h").contains("IMB-EXT 2021 arguments"));
    assert_eq!(
        usage_error(&["imb-ext", "-nosuch"]),
        "error: unknown IMB-EXT flag '-nosuch' (see mpibench imb-ext -h)"
    );
}

#[test]
fn rma_msglog_iter_on_2() {
    let out = same_program_tables_as(
        "np2-IMB-RMA-msglog0-12.txt",
        "imb-rma",
        2,
        "-msglog 0:12 -iter 200",
    );
    assert!(out.contains("Intel(R) MPI Benchmarks 2021.11, MPI-RMA part"));
    assert!(out.contains("#\n#    MODE: NON-AGGREGATE \n#\n"));
    assert!(out.contains("# Compare_and_swap\n#     Uses MPI_INT data type\n"));
}

/// IMB's C++ driver starts the single-element transfers at NP = npmin and
/// stops above 2 processes, so IMB-RMA -npmin 4 prints no Fetch_and_op or
/// Compare_and_swap; mpibench runs them on 2 (docs/suites/imb-rma.md).
#[test]
fn rma_npmin4_on_4() {
    if shape_on_4_skipped() {
        return;
    }
    let out = same_program_tables_but(
        "np4-IMB-RMA-npmin4-msglog0-10.txt",
        "imb-rma",
        4,
        "-npmin 4 -msglog 0:10 -iter 100",
        &["Fetch_and_op", "Compare_and_swap"],
    );
    let t = parse_imb(&out);
    let cas: Vec<&Table> = t
        .iter()
        .filter(|t| t.name.starts_with("Compare_and_swap"))
        .collect();
    assert_eq!(cas.len(), 2, "{out}");
    assert!(cas
        .iter()
        .all(|t| t.procs == 2 && t.rows.len() == 1 && t.rows[0][0] == 4.0));
}

/// Every IMB-RMA benchmark, the two non-default ones too, validated on 2,
/// 3 and 4 processes: no wrong byte or sum, IMB's modes and repetitions
/// (the third -iter value in non-aggregate mode) and lengths (bytes; the
/// accumulations' multiples of 4; one element for the atomics).
#[test]
fn rma_every_benchmark_validates_on_2_3_4() {
    const ALL: [&str; 19] = [
        "Unidir_put",
        "Bidir_put",
        "Unidir_get",
        "Bidir_get",
        "Put_local",
        "Get_local",
        "Put_all_local",
        "Get_all_local",
        "One_put_all",
        "All_put_all",
        "One_get_all",
        "All_get_all",
        "Exchange_put",
        "Exchange_get",
        "Accumulate",
        "Get_accumulate",
        "Fetch_and_op",
        "Compare_and_swap",
        "Truly_passive_put",
    ];
    for np in [2, 3, 4] {
        // Oversubscribed MPICH busy-polls: lengths up to 8 bytes there.
        let top: u32 = if oversubscribed_mpich(np) { 3 } else { 8 };
        let msglog = format!("0:{top}");
        let mut a = vec!["imb-rma", "-msglog", &msglog, "-iter", "30,40,7", "--check"];
        a.extend(ALL);
        let rs = validated_results(np, &a);
        for r in &rs {
            let name = r["benchmark"].as_str().unwrap();
            assert_eq!(r["suite"], "imb-rma");
            let rows = r["rows"].as_array().unwrap();
            let bytes: BTreeSet<u64> = rows.iter().map(|x| x["bytes"].as_u64().unwrap()).collect();
            let pow = (0..=top).map(|e| 1u64 << e);
            let want: BTreeSet<u64> = match name {
                "Fetch_and_op" | "Compare_and_swap" => [4].into(),
                "Accumulate" | "Get_accumulate" => pow.filter(|&x| x >= 4).chain([0]).collect(),
                _ => pow.chain([0]).collect(),
            };
            assert_eq!(bytes, want, "{name}");
            for row in rows {
                assert_eq!(row["errors"], 0, "{name} on {np}: {row}");
                let reps = row["repetitions"].as_u64().unwrap();
                if row["params"]["aggregate"].as_u64() == Some(0) {
                    assert!((1..=7).contains(&reps), "{name}: {row}");
                } else {
                    assert!((1..=30).contains(&reps), "{name}: {row}");
                }
                if name == "Truly_passive_put" {
                    assert!(row["params"]["t_pure_us"].as_f64().unwrap() > 0.0, "{row}");
                }
            }
        }
        let names: BTreeSet<&str> = rs
            .iter()
            .map(|r| r["benchmark"].as_str().unwrap())
            .collect();
        assert_eq!(names.len(), 19, "{np} ranks");
    }
}

#[test]
fn the_binary_named_imb_rma_is_imb_rma() {
    let dir = tempfile::tempdir().unwrap();
    let (link, names) = linked_tables(
        dir.path(),
        "IMB-RMA",
        &["-msglog", "2:3", "unidir_put", "exchange_get"],
    );
    assert_eq!(
        names,
        [
            "Unidir_put NON-AGGREGATE",
            "Unidir_put AGGREGATE",
            "Exchange_get"
        ],
    );
    let list = named(&link, "-list");
    assert!(
        list.starts_with("IMB-RMA\nList of benchmarks:\nRMA:\n    Accumulate\n"),
        "{list}"
    );
    assert!(list.contains("    Get_local (non-default)\n"), "{list}");
    assert!(named(&link, "-h").contains("IMB-RMA 2021 arguments"));
    assert_eq!(
        usage_error(&["imb-rma", "-nosuch"]),
        "error: unknown IMB-RMA flag '-nosuch' (see mpibench imb-rma -h)"
    );
}

/// IMB-MPI1's `-data_type`, `-red_data_type` and `-contig_type`: the types
/// in the header and the results, lengths rounded up to whole elements of
/// the type each benchmark passes (IMB's unit_size), every transfer and
/// sum validated, a corrupted one caught, hostile values refused.
#[test]
fn data_types_and_contiguous_layouts() {
    let names = "PingPong,Allreduce,Reduce,Reduce_scatter,Allgatherv,Alltoall";
    for contig in ["base", "base_vec", "resize", "resize_vec"] {
        let (v, out, err) = imb_json(
            2,
            &[
                "-data_type",
                "int",
                "-red_data_type",
                "double",
                "-contig_type",
                contig,
                "-msglog",
                "0:4",
                "-iter",
                "20",
                "-time",
                "0.5",
                "--check",
                names,
            ],
        );
        assert!(err.trim().is_empty(), "{contig}: {err}");
        assert!(
            out.contains("# MPI_Datatype                   :   MPI_INT \n"),
            "{contig}: {out}"
        );
        assert!(
            out.contains("# MPI_Datatype for reductions    :   MPI_DOUBLE \n"),
            "{contig}: {out}"
        );
        // 1, 2, 4 bytes: one int (transfers), one double (reductions).
        let pp = results(&v, "PingPong");
        assert_eq!(col(pp[0], "bytes"), [0, 4, 8, 16], "{contig}");
        assert_eq!(pp[0]["datatype"], "MPI_INT", "{contig}");
        for name in ["Allreduce", "Reduce", "Reduce_scatter"] {
            let r = results(&v, name);
            assert_eq!(col(r[0], "bytes"), [0, 8, 16], "{contig} {name}");
            assert_eq!(r[0]["datatype"], "MPI_DOUBLE", "{contig} {name}");
        }
        for r in v["results"].as_array().unwrap() {
            for row in r["rows"].as_array().unwrap() {
                assert_eq!(row["errors"], 0, "{contig}: {r}");
            }
        }
        let tables = parse_imb(&out);
        let pp = tables.iter().find(|t| t.name == "PingPong").unwrap();
        let bytes: Vec<f64> = pp.rows.iter().map(|r| r[0]).collect();
        assert_eq!(bytes, [0.0, 4.0, 8.0, 16.0], "{contig}");
    }
    // A corrupted byte or element of a typed, resized message is caught.
    for (name, contig) in [("PingPong", "resize"), ("Allreduce", "resize_vec")] {
        let out = mpirun(
            2,
            &[
                "imb",
                "-data_type",
                "float",
                "-red_data_type",
                "char",
                "-contig_type",
                contig,
                "-msglog",
                "2:3",
                "-iter",
                "5",
                "--check",
                "--corrupt",
                name,
            ],
        )
        .assert()
        .code(1)
        .get_output()
        .clone();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("validation found"), "{name} {contig}: {err}");
    }
    // Hostile values: one line, exit code 2, before MPI starts.
    for bad in [
        &["-data_type", "long"][..],
        &["-red_data_type", "byte"],
        &["-contig_type", "vector"],
    ] {
        let out = assert_cmd::Command::cargo_bin("mpibench")
            .unwrap()
            .arg("imb")
            .args(bad)
            .timeout(std::time::Duration::from_secs(60))
            .assert()
            .code(2)
            .get_output()
            .clone();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.trim().lines().count(), 1, "{bad:?}: {err}");
        assert!(err.contains(bad[0]), "{bad:?}: {err}");
        assert!(out.stdout.is_empty(), "{bad:?}");
    }
}
