//! Loading the results files and naming and labelling the runs.

use std::path::Path;

use anyhow::{Context, Result};

use crate::report::validate;
use crate::results::Report;

/// One JSON results file, with the names the report gives it.
pub struct Run<'a> {
    /// "A", "B", ... (legends, tables).
    pub short: String,
    /// Library and host, e.g. "Open MPI v4.1.4 @ node01".
    pub label: String,
    /// Where it came from (file name).
    pub source: String,
    pub report: &'a Report,
}

/// Reads one results file.
pub fn load(path: &Path) -> Result<Report> {
    let bytes = crate::input::read_bounded(
        path,
        crate::input::RESULTS_CAP,
        "the results file",
        crate::input::Stdin::Allowed,
    )
    .map_err(anyhow::Error::msg)?;
    let name = if path.as_os_str() == "-" {
        "(stdin)".to_string()
    } else {
        format!("'{}'", path.display())
    };
    let text =
        std::str::from_utf8(&bytes).map_err(|_| anyhow::anyhow!("{name} is not UTF-8 text"))?;
    match validate::parse(text) {
        Ok(r) => Ok(r),
        Err(e @ validate::ParseError::Schema(_)) => Err(anyhow::anyhow!("{name}: {e}")),
        Err(e) => Err(e).with_context(|| format!("{name} is not an mpibench JSON results file")),
    }
}

/// Names runs "A", "B", ... and labels them by library and host; runs with
/// the same label get their file name appended.
pub fn runs(reports: Vec<(String, &Report)>) -> Vec<Run<'_>> {
    let mut out: Vec<Run<'_>> = reports
        .into_iter()
        .enumerate()
        .map(|(i, (source, report))| Run {
            short: short_name(i),
            label: run_label(report),
            source,
            report,
        })
        .collect();
    let labels: Vec<String> = out.iter().map(|r| r.label.clone()).collect();
    for r in &mut out {
        if labels.iter().filter(|l| **l == r.label).count() > 1 {
            r.label = format!("{} ({})", r.label, r.source);
        }
    }
    out
}

fn short_name(i: usize) -> String {
    let letters = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ";
    if i < letters.len() {
        (letters[i] as char).to_string()
    } else {
        format!("R{}", i + 1)
    }
}

/// "Open MPI v4.1.4" from "Open MPI v4.1.4, package: ...", "MPICH 4.0.2"
/// from "MPICH Version:\t4.0.2\nMPICH Release date: ...".
pub fn library_name(library: &str) -> String {
    let first = library.lines().next().unwrap_or("").trim();
    let first = first.split(',').next().unwrap_or("").trim();
    let mut words: Vec<&str> = Vec::new();
    let mut after_version = false;
    for w in first.split_whitespace() {
        if w.eq_ignore_ascii_case("version:") {
            after_version = true;
            continue;
        }
        words.push(w);
        if after_version {
            // MPICH: "MPICH Version: 4.0.2 MPICH Release date: ..." on one line.
            break;
        }
    }
    if words.is_empty() {
        "unknown MPI".to_string()
    } else {
        words.join(" ")
    }
}

/// "Open MPI v4.1.4 @ node01" (+ "+3 hosts" when there are more).
pub fn run_label(r: &Report) -> String {
    let host = match r.hosts.len() {
        0 => "?".to_string(),
        1 => r.hosts[0].clone(),
        n => format!("{} +{} hosts", r.hosts[0], n - 1),
    };
    format!("{} @ {host}", library_name(&r.mpi.library))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn library_names() {
        assert_eq!(
            library_name("Open MPI v4.1.4, package: Debian OpenMPI, ident: 4.1.4"),
            "Open MPI v4.1.4"
        );
        assert_eq!(
            library_name("MPICH Version:\t4.0.2\nMPICH Release date:\tThu Mar 24"),
            "MPICH 4.0.2"
        );
        assert_eq!(
            library_name(
                "MPICH Version:\t4.0.2 MPICH Release date:\tThu Apr  7 2022 MPICH ABI:\t14:2:2"
            ),
            "MPICH 4.0.2"
        );
    }
}
