//! The layers test is the design (`docs/contributing.md`, "Layering"). It
//! reads every product line of every file under `src/` (comments, string
//! and character literals and every `#[cfg(test)]` item left out, wherever
//! they are in the file), resolves the `crate::`, `super::` and `self::`
//! paths and `use` groups to the modules that define them, and fails on:
//!
//! - an import between two units that points up in [`LAYERS`], or a unit
//!   that is in no layer (a new top-level module has to be placed);
//! - any loop between units (a unit is a top-level `src/X.rs` or `src/X/`;
//!   each suite folder `src/bench/<suite>/` is a unit of its own, a
//!   plug-in: it may import every core layer below the registry, and no
//!   core layer imports it);
//! - a suite's name outside its folder and the registry ([`REGISTRY`]):
//!   a suite's module path (`osu::`) outside `mod` and `use` lines (string
//!   literals are not read: "allreduce" is also MPI's collective);
//! - `mpi::ffi` or `unsafe` outside `src/comm/` (MPI) and `src/sys/` (the
//!   operating system's calls behind safe functions);
//! - a product function longer than [`MAX_FN_LINES`] lines.
//!
//! There are no exemptions. The yardsticks in `../shared/tools/`
//! (`modgraph.py --plugins bench`, `suitenames.py --allow src/suite.rs`)
//! measure the same graph; [`graph_counts`] prints this test's figures to
//! set beside theirs.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The units from the top down. A unit may import units of its own group
/// and of the groups below it, never above. `<suites>` stands for every
/// suite folder under `src/bench/`.
const LAYERS: &[&[&str]] = &[
    &["main"],
    &["app"],
    &["help", "launches", "suite", "tune", "environ", "history"],
    &["<suites>", "readers", "launch"],
    &["plan", "slurm", "supervise"],
    &["plugin", "progress", "mpi_words"],
    &["frontend"],
    &["cli"],
    &["engine", "units"],
    &["method"],
    &["watchdog"],
    &["signals"],
    &["link", "output"],
    &["outcome", "report"],
    &["bench", "context", "files", "stats", "stats_test"],
    &["check", "clock", "contract", "input", "phases", "sys"],
    &["comm", "results"],
];

/// The registry: the one file outside the suite folders that names them.
const REGISTRY: &str = "src/suite.rs";

/// Where `mpi::ffi` and `unsafe` may appear: MPI and the OS calls.
const LOW_LEVEL: &[&str] = &["src/comm/", "src/sys/"];

/// No product function is longer than this (the design: none over 120).
const MAX_FN_LINES: usize = 120;

/// The functions still longer than [`MAX_FN_LINES`] (file, name): only
/// shrinks; a listed one that got shorter fails the test until struck.
const LONG: &[(&str, &str)] = &[];

/// This file names what it looks for; it is test code.
const SELF: &str = "src/layers.rs";

/// A source file's product code: comments, literals and `#[cfg(test)]`
/// items blanked (newlines kept, so line numbers hold), with the exact
/// string literals it held, by line.
struct Code {
    text: String,
    strings: Vec<(usize, String)>,
}

type Strings = Vec<(usize, usize, String)>;

/// Blanks comments (nested `/* */` too) and literals; string literals are
/// kept aside. Characters and lifetimes are told apart as rustc does: `'a'`
/// and `'\n'` are literals, `'a` in `&'a str` is a lifetime.
fn lex(src: &str) -> Code {
    let b: Vec<char> = src.chars().collect();
    let mut out = String::with_capacity(src.len());
    let mut strings: Strings = Vec::new();
    let mut line = 1;
    let mut i = 0;
    let blank = |c: char, out: &mut String| out.push(if c == '\n' { '\n' } else { ' ' });
    while i < b.len() {
        let c = b[i];
        let next = b.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < b.len() && b[i] != '\n' {
                out.push(' ');
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
            while i < b.len() {
                if b[i] == '/' && b.get(i + 1) == Some(&'*') {
                    depth += 1;
                    out.push_str("  ");
                    i += 2;
                } else if b[i] == '*' && b.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    out.push_str("  ");
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    if b[i] == '\n' {
                        line += 1;
                    }
                    blank(b[i], &mut out);
                    i += 1;
                }
            }
        } else if let Some((start, hashes)) = raw_start(&b, i) {
            // r"...", r#"..."#, br"...": no escapes, ends at '"' + hashes.
            let first = (line, i);
            let mut s = String::new();
            for &ch in &b[i..start] {
                blank(ch, &mut out);
            }
            i = start;
            loop {
                if i >= b.len() {
                    break;
                }
                if b[i] == '"' && (0..hashes).all(|k| b.get(i + 1 + k) == Some(&'#')) {
                    for _ in 0..=hashes {
                        out.push(' ');
                    }
                    i += 1 + hashes;
                    break;
                }
                if b[i] == '\n' {
                    line += 1;
                }
                s.push(b[i]);
                blank(b[i], &mut out);
                i += 1;
            }
            strings.push((first.0, first.1, s));
        } else if c == '"' || (c == 'b' && next == Some('"') && !ident_before(&b, i)) {
            let first = (line, i);
            let mut s = String::new();
            if c == 'b' {
                out.push(' ');
                i += 1;
            }
            out.push(' ');
            i += 1;
            while i < b.len() && b[i] != '"' {
                if b[i] == '\\' && i + 1 < b.len() {
                    s.push(b[i]);
                    blank(b[i], &mut out);
                    i += 1;
                }
                if b[i] == '\n' {
                    line += 1;
                }
                s.push(b[i]);
                blank(b[i], &mut out);
                i += 1;
            }
            out.push(' ');
            i += 1;
            strings.push((first.0, first.1, s));
        } else if c == '\'' && !ident_before(&b, i) {
            // 'x', '\n', '\u{..}' are literals; 'a (a lifetime) is not.
            let len = if next == Some('\\') {
                b.get(i + 3..)
                    .and_then(|r| r.iter().position(|&x| x == '\''))
                    .map(|p| p + 4)
            } else if b.get(i + 2) == Some(&'\'') {
                Some(3)
            } else {
                None
            };
            match len {
                Some(n) => {
                    for _ in 0..n {
                        out.push(' ');
                    }
                    i += n;
                }
                None => {
                    out.push(c);
                    i += 1;
                }
            }
        } else {
            if c == '\n' {
                line += 1;
            }
            out.push(c);
            i += 1;
        }
    }
    let (text, tests) = drop_test_items(&out);
    // A literal inside a test item is test code too.
    let strings = strings
        .into_iter()
        .filter(|(_, at, _)| !tests.iter().any(|r| r.contains(at)))
        .map(|(l, _, s)| (l, s))
        .collect();
    Code { text, strings }
}

fn ident_before(b: &[char], i: usize) -> bool {
    i > 0 && (b[i - 1].is_alphanumeric() || b[i - 1] == '_')
}

/// At `i`, a raw string's opening (`r"`, `r#"`, `br#"`): where its text
/// starts and how many `#` close it.
fn raw_start(b: &[char], i: usize) -> Option<(usize, usize)> {
    if ident_before(b, i) {
        return None;
    }
    let mut j = i;
    if b.get(j) == Some(&'b') {
        j += 1;
    }
    if b.get(j) != Some(&'r') {
        return None;
    }
    j += 1;
    let mut hashes = 0;
    while b.get(j) == Some(&'#') {
        hashes += 1;
        j += 1;
    }
    (b.get(j) == Some(&'"')).then_some((j + 1, hashes))
}

/// Blanks every item marked `#[cfg(test)]`: the attribute, any further
/// attributes, and the item up to its closing brace or semicolon.
fn drop_test_items(code: &str) -> (String, Vec<std::ops::Range<usize>>) {
    let mut ranges = Vec::new();
    let mut out: Vec<char> = code.chars().collect();
    let text: String = out.iter().collect();
    let mut from = 0;
    while let Some(p) = text[from..].find("#[cfg(test)]") {
        let start = from + p;
        let chars: Vec<(usize, char)> = text[start..].char_indices().collect();
        let mut depth = 0i32;
        let mut end = text.len();
        let mut k = "#[cfg(test)]".len();
        // Skip further attributes, then find the item's end.
        while k < chars.len() {
            let c = chars[k].1;
            match c {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = start + chars[k].0 + 1;
                        break;
                    }
                    if depth < 0 {
                        // An attribute on the last part of a block (a
                        // match arm): it ends where the block does.
                        end = start + chars[k].0;
                        break;
                    }
                }
                ',' if depth == 0 => {
                    // A match arm or a field: up to its comma.
                    end = start + chars[k].0 + 1;
                    break;
                }
                ';' if depth == 0 => {
                    end = start + chars[k].0 + 1;
                    break;
                }
                _ => {}
            }
            k += 1;
        }
        let s = text[..start].chars().count();
        let e = s + text[start..end].chars().count();
        ranges.push(s..e);
        for c in &mut out[s..e] {
            if *c != '\n' {
                *c = ' ';
            }
        }
        from = end;
    }
    (out.into_iter().collect(), ranges)
}

/// Every `.rs` file under `src/`, as `src/...`, sorted; test-only files
/// (`tests/`, `*_test.rs` other than `stats_test.rs`, which the design
/// counts as product) and this file left out.
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
        .filter(|p| p != SELF && !is_test_file(p))
        .collect();
    out.sort();
    out
}

fn is_test_file(p: &str) -> bool {
    let rel = p.trim_start_matches("src/");
    let test_dir = rel.split('/').any(|x| x == "tests" || x == "test")
        && rel.split('/').next_back() != Some("test.rs");
    test_dir
        || rel.ends_with("/tests.rs")
        || rel.ends_with("/test.rs")
        || (rel.ends_with("_test.rs") && rel != "stats_test.rs")
}

fn read(path: &str) -> String {
    std::fs::read_to_string(format!("{}/{path}", env!("CARGO_MANIFEST_DIR")))
        .unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The module path of a file: `src/bench/osu/mod.rs` is `bench::osu`.
fn module_of(path: &str) -> Vec<String> {
    let mut m: Vec<String> = path
        .trim_start_matches("src/")
        .trim_end_matches(".rs")
        .split('/')
        .map(String::from)
        .collect();
    if matches!(m.last().map(String::as_str), Some("mod" | "main")) {
        m.pop();
    }
    m
}

/// The suites: the folders under `src/bench/`.
fn suites() -> BTreeSet<String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/bench");
    std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.path().is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect()
}

/// The unit a module belongs to.
fn unit(m: &[String], suites: &BTreeSet<String>) -> String {
    match m {
        [] => "main".into(),
        [b, s, ..] if b == "bench" && suites.contains(s) => format!("bench/{s}"),
        [top, ..] => top.clone(),
    }
}

/// The paths `code` names (`crate::a::b`, `super::x`, `use crate::{a, b::{c}}`
/// expanded), as written.
fn paths(code: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let chars: Vec<char> = code.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let at_word = i == 0
            || !(chars[i - 1].is_alphanumeric() || chars[i - 1] == '_' || chars[i - 1] == ':');
        if at_word {
            let rest: String = chars[i..chars.len().min(i + 8)].iter().collect();
            if ["crate::", "super::", "self::"]
                .iter()
                .any(|p| rest.starts_with(p))
            {
                let (tree, used) = path_tree(&chars[i..]);
                out.extend(tree);
                i += used.max(1);
                continue;
            }
        }
        i += 1;
    }
    out
}

/// Reads one path at the start of `s`, with `{...}` groups expanded:
/// (the paths, characters read).
fn path_tree(s: &[char]) -> (Vec<Vec<String>>, usize) {
    let mut prefix = Vec::new();
    let mut i = 0;
    loop {
        while i < s.len() && s[i].is_whitespace() {
            i += 1;
        }
        let start = i;
        while i < s.len() && (s[i].is_alphanumeric() || s[i] == '_') {
            i += 1;
        }
        if i > start {
            prefix.push(s[start..i].iter().collect::<String>());
        }
        let mut j = i;
        while j < s.len() && s[j].is_whitespace() {
            j += 1;
        }
        if s.get(j) == Some(&':') && s.get(j + 1) == Some(&':') {
            i = j + 2;
            let mut k = i;
            while k < s.len() && s[k].is_whitespace() {
                k += 1;
            }
            if s.get(k) == Some(&'{') {
                // A group: each item is a path of its own under the prefix.
                let mut all = Vec::new();
                let mut p = k + 1;
                loop {
                    while p < s.len() && (s[p].is_whitespace() || s[p] == ',') {
                        p += 1;
                    }
                    if p >= s.len() || s[p] == '}' {
                        p += 1;
                        break;
                    }
                    let (sub, used) = path_tree(&s[p..]);
                    for t in sub {
                        let mut full = prefix.clone();
                        full.extend(t);
                        all.push(full);
                    }
                    p += used.max(1);
                    // Skip an `as name` rename.
                    while p < s.len() && s[p] != ',' && s[p] != '}' {
                        p += 1;
                    }
                }
                return (all, p);
            }
            continue;
        }
        return (vec![prefix], i);
    }
}

/// A path resolved from the file at module `base` to the longest module it
/// names that exists.
fn resolve(
    file_mod: &[String],
    is_mod_rs: bool,
    path: &[String],
    mods: &BTreeSet<Vec<String>>,
) -> Option<Vec<String>> {
    let mut parts: Vec<String> = if is_mod_rs || file_mod.is_empty() {
        file_mod.to_vec()
    } else {
        file_mod[..file_mod.len() - 1].to_vec()
    };
    let mut first = true;
    for x in path {
        match x.as_str() {
            "crate" => parts.clear(),
            "self" if first => {}
            "super" => {
                parts.pop();
            }
            _ if first => return None,
            _ => parts.push(x.clone()),
        }
        first = false;
    }
    // `self::` in a non-mod file means the file's own module.
    if path.first().map(String::as_str) == Some("self") && !is_mod_rs && !file_mod.is_empty() {
        parts = file_mod.to_vec();
        parts.extend(path[1..].iter().cloned());
    }
    while !parts.is_empty() && !mods.contains(&parts) {
        parts.pop();
    }
    (!parts.is_empty()).then_some(parts)
}

/// The crate's import graph between units, each edge with the files and
/// names behind it.
struct Graph {
    edges: BTreeMap<(String, String), BTreeSet<String>>,
    units: BTreeSet<String>,
}

fn graph() -> Graph {
    let suites = suites();
    let files: Vec<(String, Vec<String>)> = sources()
        .into_iter()
        .map(|p| {
            let m = module_of(&p);
            (p, m)
        })
        .collect();
    let mods: BTreeSet<Vec<String>> = files.iter().map(|(_, m)| m.clone()).collect();
    let mut g = Graph {
        edges: BTreeMap::new(),
        units: BTreeSet::new(),
    };
    for (path, m) in &files {
        let u = unit(m, &suites);
        g.units.insert(u.clone());
        let code = lex(&read(path));
        let is_mod = path.ends_with("mod.rs") || path == "src/main.rs";
        for p in paths(&code.text) {
            let Some(t) = resolve(m, is_mod, &p, &mods) else {
                continue;
            };
            if m.starts_with(&t) {
                continue; // a module's own ancestors
            }
            let v = unit(&t, &suites);
            if v != u {
                g.edges
                    .entry((u.clone(), v))
                    .or_default()
                    .insert(format!("{path} -> {}", p.join("::")));
            }
        }
    }
    g
}

fn layer_of(u: &str) -> Option<usize> {
    let key = if u.starts_with("bench/") {
        "<suites>"
    } else {
        u
    };
    LAYERS.iter().position(|g| g.contains(&key))
}

/// Unit pairs that import each other, and the strongly connected sets of
/// units (Tarjan) larger than one.
fn loops(g: &Graph) -> (Vec<(String, String)>, Vec<Vec<String>>) {
    let pairs = g
        .edges
        .keys()
        .filter(|(a, b)| a < b && g.edges.contains_key(&(b.clone(), a.clone())))
        .cloned()
        .collect();
    let adj: BTreeMap<&str, Vec<&str>> = g
        .units
        .iter()
        .map(|u| {
            (
                u.as_str(),
                g.edges
                    .keys()
                    .filter(|(a, _)| a == u)
                    .map(|(_, b)| b.as_str())
                    .collect(),
            )
        })
        .collect();
    struct T<'a> {
        idx: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        st: Vec<&'a str>,
        on: BTreeSet<&'a str>,
        out: Vec<Vec<String>>,
    }
    fn visit<'a>(v: &'a str, adj: &BTreeMap<&'a str, Vec<&'a str>>, t: &mut T<'a>) {
        let n = t.idx.len();
        t.idx.insert(v, n);
        t.low.insert(v, n);
        t.st.push(v);
        t.on.insert(v);
        for &w in adj.get(v).into_iter().flatten() {
            if !t.idx.contains_key(w) {
                visit(w, adj, t);
                let lw = t.low[w];
                let lv = t.low.get_mut(v).unwrap();
                *lv = (*lv).min(lw);
            } else if t.on.contains(w) {
                let iw = t.idx[w];
                let lv = t.low.get_mut(v).unwrap();
                *lv = (*lv).min(iw);
            }
        }
        if t.low[v] == t.idx[v] {
            let mut c = Vec::new();
            while let Some(w) = t.st.pop() {
                t.on.remove(w);
                c.push(w.to_string());
                if w == v {
                    break;
                }
            }
            if c.len() > 1 {
                c.sort();
                t.out.push(c);
            }
        }
    }
    let mut t = T {
        idx: BTreeMap::new(),
        low: BTreeMap::new(),
        st: Vec::new(),
        on: BTreeSet::new(),
        out: Vec::new(),
    };
    for u in adj.keys() {
        if !t.idx.contains_key(u) {
            visit(u, &adj, &mut t);
        }
    }
    (pairs, t.out)
}

fn show(g: &Graph, a: &str, b: &str) -> String {
    g.edges[&(a.to_string(), b.to_string())]
        .iter()
        .take(4)
        .map(|e| format!("\n      {e}"))
        .collect()
}

#[test]
fn every_unit_is_placed_and_imports_point_down() {
    let g = graph();
    let unplaced: Vec<_> = g.units.iter().filter(|u| layer_of(u).is_none()).collect();
    assert!(
        unplaced.is_empty(),
        "units in no layer of LAYERS: {unplaced:?}"
    );
    let mut up = String::new();
    for (a, b) in g.edges.keys() {
        if layer_of(b) < layer_of(a) {
            up += &format!("\n  {a} -> {b} (points up):{}", show(&g, a, b));
        }
    }
    assert!(up.is_empty(), "imports that point up:{up}");
}

#[test]
fn no_loops_between_units() {
    let g = graph();
    let (pairs, sccs) = loops(&g);
    let mut msg = String::new();
    for (a, b) in &pairs {
        msg += &format!("\n  {a} <-> {b}:{}{}", show(&g, a, b), show(&g, b, a));
    }
    for c in &sccs {
        msg += &format!("\n  a loop over {}", c.join(", "));
    }
    assert!(pairs.is_empty() && sccs.is_empty(), "units that loop:{msg}");
}

/// Lines outside the suite folders and the registry that name a suite.
fn suite_names() -> Vec<String> {
    let suites = suites();
    let mut hits = Vec::new();
    for path in sources() {
        let m = module_of(&path);
        if unit(&m, &suites).starts_with("bench/") || path == REGISTRY {
            continue;
        }
        let code = lex(&read(&path));
        for (n, line) in code.text.lines().enumerate() {
            let t = line.trim_start();
            // Declarations and imports name modules of their own unit
            // (`method::mpitest`), as the yardstick reads them.
            let decl = |w: &str| t.starts_with(w) || t.starts_with(&format!("pub {w}"));
            if decl("mod ") || decl("use ") || t.starts_with("pub(crate) use ") {
                continue;
            }
            for s in &suites {
                let word = format!("{s}::");
                let named = line.match_indices(&word).any(|(i, _)| {
                    !line[..i]
                        .chars()
                        .next_back()
                        .is_some_and(|c| c.is_alphanumeric() || c == '_')
                });
                if named {
                    hits.push(format!("{path}:{}: {}", n + 1, line.trim()));
                }
            }
        }
    }
    hits
}

#[test]
fn no_suite_name_outside_its_folder_and_the_registry() {
    let hits = suite_names();
    assert!(
        hits.is_empty(),
        "{} lines name a suite:\n  {}",
        hits.len(),
        hits.join("\n  ")
    );
}

#[test]
fn mpi_and_unsafe_only_in_comm_and_sys() {
    let mut found = Vec::new();
    for path in sources() {
        if LOW_LEVEL.iter().any(|p| path.starts_with(p)) {
            continue;
        }
        let code = lex(&read(&path)).text;
        if code.contains("mpi::ffi") || code.contains("mpi :: ffi") {
            found.push(format!("{path}: mpi::ffi"));
        }
        if has_word(&code, "unsafe") {
            found.push(format!("{path}: unsafe"));
        }
    }
    assert!(found.is_empty(), "{found:?}");
}

fn has_word(code: &str, word: &str) -> bool {
    code.match_indices(word).any(|(i, _)| {
        let part = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
        !part(code[..i].chars().next_back()) && !part(code[i + word.len()..].chars().next())
    })
}

/// Product functions longer than [`MAX_FN_LINES`]: (file:line name, lines).
fn long_functions() -> Vec<(String, usize)> {
    let mut out = Vec::new();
    for path in sources() {
        let text = lex(&read(&path)).text;
        let lines: Vec<&str> = text.lines().collect();
        for (n, l) in lines.iter().enumerate() {
            let Some(p) = fn_name(l) else { continue };
            // The body: from the first '{' at or after this line to its match.
            let mut depth = 0i32;
            let mut opened = false;
            let mut end = None;
            'scan: for (k, l2) in lines.iter().enumerate().skip(n) {
                for c in l2.chars() {
                    match c {
                        '{' => {
                            depth += 1;
                            opened = true;
                        }
                        '}' => depth -= 1,
                        ';' if !opened => break 'scan,
                        _ => {}
                    }
                    if opened && depth == 0 {
                        end = Some(k);
                        break 'scan;
                    }
                }
            }
            if let Some(e) = end {
                let len = e - n + 1;
                if len > MAX_FN_LINES {
                    out.push((format!("{path}:{} {p}", n + 1), len));
                }
            }
        }
    }
    out
}

/// The function a line declares, if it does.
fn fn_name(line: &str) -> Option<String> {
    let i = line
        .match_indices("fn ")
        .find(|(i, _)| {
            !line[..*i]
                .chars()
                .next_back()
                .is_some_and(|c| c.is_alphanumeric() || c == '_')
        })?
        .0;
    let before = line[..i].trim();
    let ok = before.split_whitespace().all(|w| {
        matches!(
            w,
            "pub" | "pub(crate)" | "pub(super)" | "const" | "async" | "unsafe" | "extern"
        ) || w.starts_with("pub(")
            || w.starts_with("extern")
    });
    ok.then(|| {
        line[i + 3..]
            .split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .next()
            .unwrap_or("")
            .to_string()
    })
}

#[test]
fn no_product_function_over_the_limit() {
    let long = long_functions();
    let is = |f: &str, (file, name): &(&str, &str)| {
        f.starts_with(&format!("{file}:")) && f.ends_with(&format!(" {name}"))
    };
    let new: String = long
        .iter()
        .filter(|(f, _)| !LONG.iter().any(|l| is(f, l)))
        .map(|(f, n)| format!("\n  {f}: {n} lines"))
        .collect();
    assert!(new.is_empty(), "functions over {MAX_FN_LINES} lines:{new}");
    let gone: Vec<_> = LONG
        .iter()
        .filter(|l| !long.iter().any(|(f, _)| is(f, l)))
        .collect();
    assert!(
        gone.is_empty(),
        "within {MAX_FN_LINES} lines now, strike from LONG: {gone:?}"
    );
}

/// `cargo test --bin mpibench graph_counts -- --nocapture`: this test's
/// figures, to set beside the yardsticks'.
#[test]
fn graph_counts() {
    let g = graph();
    let (pairs, sccs) = loops(&g);
    println!(
        "files {}; units {}; unit edges {}; pairs importing each other {}; looping sets {}; suite names {}; functions over {MAX_FN_LINES} lines {}",
        sources().len(),
        g.units.len(),
        g.edges.len(),
        pairs.len(),
        sccs.len(),
        suite_names().len(),
        long_functions().len()
    );
}

#[test]
fn the_reader_sees_product_code_only() {
    let src = "use crate::{cli::RunArgs, plan::{self, Plan}};\n\
        // crate::commented\n\
        let s = \"crate::in_string zzz::x\"; let r = r#\"a \" crate::raw \"#;\n\
        fn f<'a>(x: &'a str) -> char { '\"' }\n\
        #[cfg(test)]\nmod tests { use crate::report; }\n\
        fn g() { super::engine::run(); }\n\
        #[cfg(test)]\nfn h() { crate::late(); }\n\
        fn k() { self::inner::x(); }";
    let code = lex(src);
    let p: Vec<String> = paths(&code.text).iter().map(|p| p.join("::")).collect();
    assert_eq!(
        p,
        [
            "crate::cli::RunArgs",
            "crate::plan::self",
            "crate::plan::Plan",
            "super::engine::run",
            "self::inner::x"
        ]
    );
    assert!(code
        .strings
        .iter()
        .any(|(_, s)| s == "crate::in_string zzz::x"));
    assert!(code.strings.iter().any(|(_, s)| s == "a \" crate::raw "));
    assert_eq!(code.text.lines().count(), src.lines().count());
    assert!(has_word("x; unsafe {", "unsafe"));
    assert!(!has_word("not_unsafe_x", "unsafe"));
    assert_eq!(
        fn_name("    pub(crate) fn parse(x: u8) {").as_deref(),
        Some("parse")
    );
    assert_eq!(fn_name("let f = |x| x; // fn"), None);
}
