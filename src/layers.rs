//! Layers that only point down (issue: layers that only point down): front
//! ends and suite arguments, then the plan, then the engine, then the
//! statistics, then the reports. This test module scans every source file
//! under `src/`, outside its test modules and comments, for the modules it
//! names (`crate::X` and `super::` paths, `use crate::{X, ...}` groups) and
//! for `mpi::ffi` and `unsafe`, and asserts:
//!
//! - the benchmarks (`src/bench/`) import nothing from the layers above the
//!   engine ([`ABOVE_BENCH`]), except each suite's own argument, front-end
//!   and table files ([`SUITE_FRONT`]), which belong to those layers;
//! - `src/comm/` imports nothing of this crate outside itself;
//! - `mpi::ffi` and `unsafe` appear only under `src/comm/` (MPI) and
//!   [`OS`], `src/sys/`: the operating system's calls (signals, fork,
//!   resource limits, `sysconf`, `uname`, `_exit`) behind safe functions,
//!   and the forked helper that ends a stuck launcher (`sys/teardown.rs`,
//!   which runs where only async-signal-safe calls are allowed). They are
//!   not in `comm/` because the self-launching parent, the output files
//!   and the plan need them without MPI;
//! - the engine and the methods (`src/engine/`, `src/method/`) import
//!   nothing from [`ABOVE_ENGINE`].
//!
//! What still breaks a rule is listed in [`LEFT`] as (file, what) pairs, and
//! a listed entry that no longer occurs fails the test too, so that the list
//! only shrinks (as `suite::layering::shared_code_names_no_suite` does).

use std::path::Path;

/// What a benchmark may not import: the layers above the engine.
const ABOVE_BENCH: &[&str] = &[
    "cli",
    "plan",
    "app",
    "output",
    "report",
    "launch",
    "supervise",
    "frontend",
];

/// What the engine and the methods may not import.
const ABOVE_ENGINE: &[&str] = &["report", "cli", "app", "output", "frontend"];

/// The files under `src/bench/` that belong to a suite's argument,
/// front-end or table layer rather than to its benchmarks.
const SUITE_FRONT: &[&str] = &[
    "src/bench/allreduce/args.rs",
    "src/bench/allreduce/table.rs",
    "src/bench/imb/args.rs",
    "src/bench/imb/table/imb2021.rs",
    "src/bench/imb/table/pmb.rs",
    "src/bench/caf/args.rs",
    "src/bench/caf/table.rs",
    "src/bench/commtest/args.rs",
    "src/bench/commtest/table.rs",
    "src/bench/cresta/args.rs",
    "src/bench/cresta/plot.rs",
    "src/bench/cresta/table.rs",
    "src/bench/mpigraph/args.rs",
    "src/bench/mpigraph/table.rs",
    "src/bench/osu/args.rs",
    "src/bench/osu/table.rs",
    "src/bench/mpitest/table.rs",
    "src/bench/caf/front.rs",
    "src/bench/commtest/front.rs",
    "src/bench/cresta/front.rs",
    "src/bench/imb/front.rs",
    "src/bench/mpigraph/front.rs",
    "src/bench/mpitest/front.rs",
    "src/bench/osu/front.rs",
    "src/bench/guidelines/front.rs",
    "src/bench/guidelines/table.rs",
    "src/bench/imb_ext/front.rs",
    "src/bench/imb_ext/table.rs",
    "src/bench/imb_mt/front.rs",
    "src/bench/imb_mt/table.rs",
    "src/bench/imb_nbc/front.rs",
    "src/bench/imb_nbc/table.rs",
    "src/bench/imb_p2p/front.rs",
    "src/bench/imb_p2p/table.rs",
    "src/bench/imb_rma/front.rs",
    "src/bench/imb_rma/table.rs",
];

/// The one module besides `src/comm/` allowed `unsafe`: the OS calls.
const OS: &str = "src/sys/";

/// (file, what) pairs that still point up; only shrinks.
const LEFT: &[(&str, &str)] = &[];

/// The code of a source file: before its first test module, without `//`
/// comments.
pub fn code(path: &str) -> String {
    let text = std::fs::read_to_string(format!("{}/{path}", env!("CARGO_MANIFEST_DIR")))
        .unwrap_or_else(|e| panic!("{path}: {e}"));
    let body = text.split("\n#[cfg(test)]").next().unwrap_or_default();
    body.lines()
        .map(|l| l.split("//").next().unwrap_or_default())
        .collect::<Vec<_>>()
        .join("\n")
}

/// Every `.rs` file under `src/`, as `src/...`, sorted.
fn sources() -> Vec<String> {
    fn walk(dir: &Path, out: &mut Vec<String>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "rs") {
                out.push(p.to_str().unwrap().to_string());
            }
        }
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut out = Vec::new();
    walk(&root.join("src"), &mut out);
    let prefix = format!("{}/", root.display());
    let mut out: Vec<String> = out
        .into_iter()
        .map(|p| p.trim_start_matches(&prefix).to_string())
        .collect();
    out.sort();
    out
}

/// The module path of a file: `src/bench/osu/mod.rs` is `bench::osu`.
fn module_of(path: &str) -> Vec<&str> {
    let mut m: Vec<&str> = path
        .trim_start_matches("src/")
        .trim_end_matches(".rs")
        .split('/')
        .collect();
    if matches!(m.last(), Some(&"mod") | Some(&"main")) {
        m.pop();
    }
    m
}

fn ident(s: &str) -> &str {
    let s = s.trim_start();
    let end = s
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(s.len());
    &s[..end]
}

/// The top-level modules of this crate that `code` (of the file at
/// `path`) names through `crate::` or `super::` paths.
fn imports(path: &str, code: &str) -> Vec<String> {
    let module = module_of(path);
    let mut out = Vec::new();
    let mut add = |m: &str| {
        if !m.is_empty() && !out.iter().any(|o| o == m) {
            out.push(m.to_string());
        }
    };
    let mut starts: Vec<usize> = ["crate::", "super::"]
        .iter()
        .flat_map(|p| code.match_indices(p).map(|(i, _)| i))
        .filter(|&i| {
            let before = code[..i].chars().next_back();
            !before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':')
        })
        .collect();
    starts.sort();
    for i in starts {
        let rest = &code[i..];
        let mut base: &[&str] = &module;
        let mut tail = rest;
        if let Some(t) = tail.strip_prefix("crate::") {
            base = &[];
            tail = t;
        } else {
            while let Some(t) = tail.strip_prefix("super::") {
                base = &base[..base.len().saturating_sub(1)];
                tail = t;
            }
        }
        if let Some(top) = base.first() {
            add(top);
        } else if let Some(group) = tail.strip_prefix('{') {
            let mut depth = 0;
            let mut item_start = true;
            for (k, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => item_start = true,
                    c if c.is_whitespace() => {}
                    _ if item_start => {
                        add(ident(&group[k..]));
                        item_start = false;
                    }
                    _ => {}
                }
            }
        } else {
            add(ident(tail));
        }
    }
    out
}

fn has_word(code: &str, word: &str) -> bool {
    code.match_indices(word).any(|(i, _)| {
        let before = code[..i].chars().next_back();
        let after = code[i + word.len()..].chars().next();
        let part = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
        !part(before) && !part(after)
    })
}

/// Every (file, what) pair that points up.
fn violations() -> Vec<(String, String)> {
    let mut found = Vec::new();
    // This file names what it looks for.
    for path in sources().into_iter().filter(|p| p != "src/layers.rs") {
        let code = code(&path);
        let imports = imports(&path, &code);
        let mut flag = |what: &str| found.push((path.clone(), what.to_string()));
        let forbidden: &[&str] = if path.starts_with("src/bench/") {
            if SUITE_FRONT.contains(&path.as_str()) {
                &[]
            } else {
                ABOVE_BENCH
            }
        } else if path.starts_with("src/engine/") || path.starts_with("src/method/") {
            ABOVE_ENGINE
        } else {
            &[]
        };
        for m in &imports {
            let outside_comm = path.starts_with("src/comm/") && m != "comm";
            if forbidden.contains(&m.as_str()) || outside_comm {
                flag(m);
            }
        }
        if !path.starts_with("src/comm/") && !path.starts_with(OS) {
            if code.contains("mpi::ffi") {
                flag("mpi::ffi");
            }
            if has_word(&code, "unsafe") {
                flag("unsafe");
            }
        }
    }
    found
}

#[test]
fn layers_point_down() {
    let found = violations();
    let new: Vec<_> = found
        .iter()
        .filter(|(f, w)| !LEFT.contains(&(f.as_str(), w.as_str())))
        .collect();
    let listed: String = new.iter().map(|p| format!("\n    {p:?},")).collect();
    assert!(new.is_empty(), "points up:{listed}");
    let gone: Vec<_> = LEFT
        .iter()
        .filter(|(f, w)| !found.iter().any(|(g, x)| g == f && x == w))
        .collect();
    assert!(
        gone.is_empty(),
        "now points down, strike from LEFT: {gone:?}"
    );
}

#[test]
fn imports_resolve_crate_super_and_groups() {
    let code =
        "use crate::{cli::RunArgs, plan};\nuse super::super::x;\nfn f() { crate::report::raw(); }";
    let got = imports("src/bench/osu/rma.rs", code);
    assert_eq!(got, ["cli", "plan", "bench", "report"]);
    assert_eq!(imports("src/bench/mod.rs", "use super::stats;"), ["stats"]);
    assert!(has_word("x; unsafe {", "unsafe"));
    assert!(!has_word("not_unsafe_x", "unsafe"));
}
