//! The documentation against the binary, without MPI ranks (only `--help`
//! and `list`, which never start MPI):
//!
//! 1. every long option (`--xyz`) that `mpibench --help` and each
//!    subcommand's `--help` print appears in README.md or docs/**/*.md;
//! 2. every suite `mpibench list` shows has its page docs/suites/SUITE.md;
//! 3. README.md has fewer than 250 lines;
//! 4. every relative link in README.md and docs/ points to an existing file.

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `mpibench ARGS`, successful: its stdout.
fn mpibench(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_mpibench"))
        .args(args)
        .env_remove("MPIBENCH_MPIEXEC")
        .output()
        .expect("mpibench runs");
    assert!(
        out.status.success(),
        "mpibench {args:?} exited {:?}: {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8 output")
}

fn is_word(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '-' || c == '_'
}

/// The long options in a text: `--` and a lower-case word, not inside
/// another word (so `--prepost[=<WHICH>]` gives `--prepost`).
fn long_options(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut rest = text;
    let mut before = ' ';
    while let Some(i) = rest.find("--") {
        let prev = rest[..i].chars().next_back().unwrap_or(before);
        let tail = &rest[i + 2..];
        let name: String = tail.chars().take_while(|&c| is_word(c)).collect();
        let starts_lower = name.chars().next().is_some_and(|c| c.is_ascii_lowercase());
        if !is_word(prev) && starts_lower {
            let opt = format!("--{}", name.trim_end_matches('-'));
            if !found.contains(&opt) {
                found.push(opt);
            }
        }
        before = '-';
        rest = &tail[name.len()..];
    }
    found
}

/// Whether `text` holds `word` as a whole option (`--root` is not found in
/// `--root-shift`).
fn mentions(text: &str, word: &str) -> bool {
    text.match_indices(word).any(|(i, _)| {
        let after = text[i + word.len()..].chars().next();
        let prev = text[..i].chars().next_back();
        !after.is_some_and(is_word) && !prev.is_some_and(is_word)
    })
}

fn markdown_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            markdown_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "md") {
            out.push(p);
        }
    }
}

/// README.md and every page of docs/.
fn pages() -> Vec<PathBuf> {
    let mut v = vec![root().join("README.md")];
    markdown_files(&root().join("docs"), &mut v);
    v
}

fn all_docs() -> String {
    pages()
        .iter()
        .map(|p| std::fs::read_to_string(p).unwrap())
        .collect::<Vec<_>>()
        .join("\n")
}

/// The subcommands `mpibench --help` lists (but `help`).
fn subcommands() -> Vec<String> {
    let help = mpibench(&["--help"]);
    let lines = help
        .lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| !l.trim().is_empty());
    let names: Vec<String> = lines
        .filter_map(|l| {
            let name = l.strip_prefix("  ")?.split_whitespace().next()?;
            (!l.starts_with("   ") && name != "help").then(|| name.to_string())
        })
        .collect();
    assert!(
        ["run", "list", "report", "plot", "compare"]
            .iter()
            .all(|c| names.iter().any(|n| n == c)),
        "subcommands parsed from --help: {names:?}"
    );
    names
}

#[test]
fn every_long_option_is_documented() {
    let docs = all_docs();
    let mut missing = Vec::new();
    let mut seen = 0;
    let mut helps = vec![(String::from("mpibench"), mpibench(&["--help"]))];
    for c in subcommands() {
        let text = mpibench(&[&c, "--help"]);
        helps.push((format!("mpibench {c}"), text));
    }
    for (what, text) in &helps {
        let opts = long_options(text);
        if what == "mpibench run" {
            assert!(opts.len() > 50, "too few options in run --help: {opts:?}");
        }
        seen += opts.len();
        for o in opts {
            if !mentions(&docs, &o) {
                missing.push(format!("{o} ({what} --help)"));
            }
        }
    }
    assert!(seen > 0);
    assert!(
        missing.is_empty(),
        "options printed by --help but found in neither README.md nor docs/: {missing:#?}"
    );
}

#[test]
fn every_suite_has_its_page() {
    let list = mpibench(&["list"]);
    // Suite lines: "# imb: PMB-MPI1 v2.2 ...".
    let suites: Vec<&str> = list
        .lines()
        .filter_map(|l| l.strip_prefix("# ")?.split_once(':').map(|(s, _)| s))
        .filter(|s| !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
        .collect();
    assert!(suites.len() >= 9, "suites parsed from `list`: {suites:?}");
    let missing: Vec<String> = suites
        .iter()
        .map(|s| format!("docs/suites/{s}.md"))
        .filter(|p| !root().join(p).is_file())
        .collect();
    assert!(missing.is_empty(), "suites without a page: {missing:?}");
}

#[test]
fn readme_is_short() {
    let text = std::fs::read_to_string(root().join("README.md")).unwrap();
    let n = text.lines().count();
    assert!(n < 250, "README.md has {n} lines; move content to docs/");
}

/// The targets of the inline links and images of a Markdown text, outside
/// code blocks and code spans.
fn link_targets(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        // Drop code spans: `[x](y)` inside backquotes is not a link.
        let plain: String = line
            .split('`')
            .enumerate()
            .filter(|(i, _)| i % 2 == 0)
            .map(|(_, s)| s)
            .collect::<Vec<_>>()
            .join(" ");
        let mut rest = plain.as_str();
        while let Some(i) = rest.find("](") {
            let tail = &rest[i + 2..];
            let Some(end) = tail.find(')') else { break };
            out.push(tail[..end].trim().to_string());
            rest = &tail[end..];
        }
    }
    out
}

#[test]
fn relative_links_point_to_files() {
    let mut broken = Vec::new();
    let mut checked = 0;
    for page in pages() {
        let text = std::fs::read_to_string(&page).unwrap();
        for target in link_targets(&text) {
            if target.is_empty()
                || target.starts_with('#')
                || target.contains("://")
                || target.starts_with("mailto:")
            {
                continue;
            }
            let file = target.split('#').next().unwrap();
            checked += 1;
            let path = page.parent().unwrap().join(file);
            if !path.exists() {
                broken.push(format!("{}: {target}", page.display()));
            }
        }
    }
    assert!(checked > 20, "too few relative links found ({checked})");
    assert!(broken.is_empty(), "broken relative links: {broken:#?}");
}

#[test]
fn the_helpers_read_what_they_should() {
    assert_eq!(
        long_options("  --prepost[=<WHICH>] x --iter-policy <P>, -n, --np; a--b --Foo --json=-"),
        ["--prepost", "--iter-policy", "--np", "--json"]
    );
    assert!(mentions("use `--root-shift` or `--root R`", "--root"));
    assert!(!mentions("use `--root-shift`", "--root"));
    assert_eq!(
        link_targets("[a](x.md) `[b](no.md)` ![c](img/p.png)\n```\n[d](code.md)\n```\n"),
        ["x.md", "img/p.png"]
    );
}
