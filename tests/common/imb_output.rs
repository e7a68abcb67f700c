//! IMB output as a pipeline's parser reads it (the IMB families' fixture
//! tests: tests/imb2021.rs, tests/imb_mpi4.rs).

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use super::{is_open_mpi, mpiexec, mpirun, read_json};

/// One table of IMB-MPI1 output: "# Benchmarking [Multi-]NAME", its process
/// count (or groups), the column names and the numeric rows.
#[derive(Debug, Default)]
pub struct Table {
    pub name: String,
    pub multi: bool,
    pub procs: usize,
    pub groups: usize,
    pub columns: Vec<String>,
    pub rows: Vec<Vec<f64>>,
}

/// Reads IMB-MPI1 output the way a pipeline's parser does: line by line,
/// a section per "# Benchmarking", the header row naming the columns,
/// whitespace-separated numbers below it; '#' lines and blank lines between.
pub fn parse_imb(text: &str) -> Vec<Table> {
    let mut out: Vec<Table> = Vec::new();
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("# Benchmarking ") {
            let name = rest.trim();
            let (multi, name) = match name.strip_prefix("Multi-") {
                Some(n) => (true, n),
                None => (false, name),
            };
            out.push(Table {
                name: name.to_string(),
                multi,
                groups: 1,
                ..Table::default()
            });
            continue;
        }
        let Some(t) = out.last_mut() else { continue };
        if let Some(m) = line.strip_prefix("#    MODE: ") {
            // IMB-EXT and IMB-RMA: a table per mode of a benchmark.
            t.name = format!("{} {}", t.name, m.trim());
        } else if let Some(n) = line.strip_prefix("# #processes = ") {
            // "2 " or, under -map PxQ, "2; rank order (rowwise): "
            let n = n.split(';').next().unwrap_or_default();
            t.procs = n.trim().parse().expect("process count");
        } else if let Some(rest) = line.strip_prefix("# ( ") {
            // "( 2 groups of 2 processes each running simultaneous )"
            let w: Vec<&str> = rest.split_whitespace().collect();
            if w.get(1) == Some(&"groups") {
                t.groups = w[0].parse().expect("groups");
                t.procs = w[3].parse().expect("processes per group");
            }
        } else if line.starts_with('#') || line.trim().is_empty() {
        } else if line.contains("#repetitions") {
            t.columns = line.split_whitespace().map(str::to_string).collect();
        } else if !t.columns.is_empty() {
            let v: Vec<f64> = line
                .split_whitespace()
                .map(|x| x.parse().unwrap_or_else(|_| panic!("number in '{line}'")))
                .collect();
            assert_eq!(v.len(), t.columns.len(), "row '{line}' of {}", t.name);
            t.rows.push(v);
        }
    }
    out
}

/// (benchmark, Multi-, processes, group, bytes) of every row, and the
/// columns of every (benchmark, Multi-, processes).
pub type Rows = BTreeSet<(String, bool, usize, Option<u64>, Option<u64>)>;
pub type Columns = BTreeMap<(String, bool, usize), Vec<String>>;

pub fn shape(tables: &[Table]) -> (Rows, Columns) {
    let mut rows = Rows::new();
    let mut cols = Columns::new();
    for t in tables {
        let key = (t.name.clone(), t.multi, t.procs);
        let prev = cols.insert(key, t.columns.clone());
        assert!(prev.is_none(), "two tables of {} on {}", t.name, t.procs);
        let at = |name: &str| t.columns.iter().position(|c| c == name);
        for r in &t.rows {
            rows.insert((
                t.name.clone(),
                t.multi,
                t.procs,
                at("Group").map(|i| r[i] as u64),
                at("#bytes").map(|i| r[i] as u64),
            ));
        }
        if t.multi {
            assert!(t.groups > 1, "{}", t.name);
        }
    }
    (rows, cols)
}

pub fn fixture(name: &str) -> String {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/imb2021")
        .join(name);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

pub fn stdout(out: &std::process::Output) -> String {
    String::from_utf8(out.stdout.clone()).unwrap()
}

/// Under MPICH, whose ranks busy-poll, 4 ranks on a 2-core machine run
/// collectives about a hundred times slower: a time cap per length and no
/// warm-up (`-time 0.02 -warm_up off`, [`MPICH_CAPS`]) keep the fixture's
/// command line within the test's time without changing which rows and
/// columns it prints.
pub const MPICH_CAPS: [&str; 4] = ["-time", "0.02", "-warm_up", "off"];

pub fn oversubscribed_mpich(np: usize) -> bool {
    np > 2 && !is_open_mpi(&mpiexec())
}

/// The tables' shape does not depend on the MPI library: Open MPI checks
/// it against the 4-rank fixtures; MPICH, whose oversubscribed ranks
/// busy-poll (minutes per fixture command line on 2 cores), checks it
/// against the 2-rank ones and validates every family on 2, 3 and 4.
pub fn shape_on_4_skipped() -> bool {
    let skip = oversubscribed_mpich(4);
    if skip {
        eprintln!("skipped under MPICH on 4 oversubscribed ranks: see shape_on_4_skipped");
    }
    skip
}

/// `mpiexec -n P mpibench SUBCOMMAND ARGS` (an IMB program), its stdout.
pub fn program(sub: &str, np: usize, args: &str) -> String {
    let mut a = vec![sub];
    a.extend(args.split_whitespace());
    // (A program without IMB-MPI1's -time gets mpibench's --time instead.)
    if oversubscribed_mpich(np) && !args.contains("--time") {
        a.extend(MPICH_CAPS);
    }
    let out = mpirun(np, &a).assert().success().get_output().clone();
    stdout(&out)
}

/// `mpibench SUBCOMMAND ARGS` on NP ranks prints the tables (names,
/// process counts, columns, lengths) and header lines of a fixture.
pub fn same_program_tables_as(fixture_file: &str, sub: &str, np: usize, args: &str) -> String {
    same_program_tables_but(fixture_file, sub, np, args, &[])
}

/// As [`same_program_tables_as`], but mpibench's tables of the benchmarks
/// `extra` (a deliberate difference docs/ lists) are not compared.
pub fn same_program_tables_but(
    fixture_file: &str,
    sub: &str,
    np: usize,
    args: &str,
    extra: &[&str],
) -> String {
    let all = program(sub, np, args);
    // Without the sections of `extra` (one paragraph each).
    let ours = all
        .split("\n\n")
        .filter(|p| {
            !p.lines().any(|l| {
                l.strip_prefix("# Benchmarking ")
                    .is_some_and(|n| extra.contains(&n.trim()))
            })
        })
        .collect::<Vec<_>>()
        .join("\n\n");
    assert_same_tables(fixture_file, &fixture(fixture_file), &ours);
    // Everything else a parser reads: the header block's lines, in order.
    let heads = |s: &str| -> Vec<String> {
        s.lines()
            .filter(|l| {
                l.starts_with("# Minimum")
                    || l.starts_with("# Maximum")
                    || l.starts_with("# MPI_")
                    || l.starts_with("# List of")
                    || l.starts_with("# Calling")
                    || l.contains("additional process")
                    || l.starts_with("#---")
                    || l.starts_with("# All processes")
            })
            .map(str::to_string)
            .collect()
    };
    let (a, b) = (heads(&ours), heads(&fixture(fixture_file)));
    assert_eq!(a, b, "header lines differ from {fixture_file}");
    all
}

/// The tables of `ours` (names, process counts, modes, columns, lengths)
/// are those of the fixture text `want`.
pub fn assert_same_tables(fixture_file: &str, want: &str, ours: &str) {
    let want = parse_imb(want);
    let got = parse_imb(ours);
    assert!(!want.is_empty());
    let (want_rows, want_cols) = shape(&want);
    let (got_rows, got_cols) = shape(&got);
    assert_eq!(got_cols, want_cols, "columns differ from {fixture_file}");
    let missing: Vec<_> = want_rows.difference(&got_rows).collect();
    let extra: Vec<_> = got_rows.difference(&want_rows).collect();
    assert!(
        missing.is_empty() && extra.is_empty(),
        "{fixture_file}: rows missing {missing:?}, extra {extra:?}"
    );
}

/// IMB-NBC's and IMB-MPI4's tables, figures within their bounds: t_ovrl, t_pure and t_CPU
/// are times, overlap a percentage.
pub fn overlap_figures_hold(out: &str) {
    for t in parse_imb(out) {
        let at = |c: &str| t.columns.iter().position(|x| x == c);
        for r in &t.rows {
            if let Some(o) = at("overlap[%]") {
                assert!((0.0..=100.0).contains(&r[o]), "{}: {r:?}", t.name);
                for c in ["t_ovrl[usec]", "t_pure[usec]", "t_CPU[usec]"] {
                    assert!(r[at(c).unwrap()] >= 0.0, "{} {c}: {r:?}", t.name);
                }
            } else {
                let (lo, hi) = (r[at("t_min[usec]").unwrap()], r[at("t_max[usec]").unwrap()]);
                assert!(0.0 <= lo && lo <= hi, "{}: {r:?}", t.name);
            }
        }
    }
}

/// Every benchmark of an overlap family (IMB-NBC, IMB-MPI4) given by `sub`,
/// each of `names` and its _pure variant, validated (`--check`) on each of
/// `nps` processes: no wrong element, and every overlapped row carries the
/// figures (t_pure and t_CPU of the slowest rank, the overlap).
pub fn overlap_family_validates(sub: &str, names: &[&str], nps: &[usize]) {
    let mut all: Vec<String> = names.iter().map(|n| n.to_string()).collect();
    all.extend(names.iter().map(|n| format!("{n}_pure")));
    for &np in nps {
        let dir = tempfile::tempdir().unwrap();
        let json = dir.path().join("r.json");
        // Oversubscribed MPICH: lengths up to 16 bytes (up to 256 elsewhere).
        let log = if oversubscribed_mpich(np) {
            "0:4"
        } else {
            "0:8"
        };
        let mut a = vec![
            sub, "-npmin", "64", "-msglog", log, "-iter", "20", "--check",
        ];
        if oversubscribed_mpich(np) {
            a.extend(MPICH_CAPS);
        }
        a.extend(all.iter().map(String::as_str));
        a.extend(["--json", json.to_str().unwrap()]);
        let out = mpirun(np, &a).assert().success().get_output().clone();
        overlap_figures_hold(&stdout(&out));
        let v = read_json(&json);
        assert_eq!(v["status"], "ok", "{np} ranks");
        let rs = v["results"].as_array().unwrap();
        assert_eq!(rs.len(), all.len(), "{np} ranks");
        for r in rs {
            let name = r["benchmark"].as_str().unwrap();
            assert_eq!(r["suite"], sub);
            assert_eq!(r["processes"], np, "{name}");
            for row in r["rows"].as_array().unwrap() {
                assert_eq!(row["errors"], 0, "{name} on {np}: {row}");
                let p = &row["params"];
                if name.ends_with("_pure") {
                    assert!(p.get("overlap_pct").is_none(), "{name}");
                } else {
                    let o = p["overlap_pct"].as_f64().unwrap_or(-1.0);
                    assert!((0.0..=100.0).contains(&o), "{name} on {np}: {row}");
                    assert!(p["t_pure_us"].as_f64().unwrap() > 0.0, "{name}: {row}");
                    assert!(p["t_cpu_us"].as_f64().unwrap() > 0.0, "{name}: {row}");
                }
            }
        }
    }
}
