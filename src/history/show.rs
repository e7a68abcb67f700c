//! `history list` and `history show`: the runs with their contexts, and
//! the series of cases, as tables and as JSON.

use std::collections::BTreeMap;
use std::fmt::Write;

use serde::Serialize;

use super::series::{changes, Series};
use super::store::{Case, RunRecord};
use crate::report::view::num;

/// The machines of the runs, named A, B, ... in order of first appearance.
pub fn machine_names(runs: &[RunRecord]) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for r in runs {
        let n = out.len();
        out.entry(r.machine.clone()).or_insert_with(|| letter(n));
    }
    out
}

fn letter(i: usize) -> String {
    let l = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ";
    l.get(i)
        .map_or(format!("M{}", i + 1), |c| (*c as char).to_string())
}

/// A run's status, marked where it is not a series point.
fn status_word(status: &str, used: bool) -> String {
    if used {
        status.to_string()
    } else {
        format!("{status} (not used)")
    }
}

/// A run's MPI variables as `K=V K=V` ("-" without any).
pub fn env_text(r: &RunRecord) -> String {
    let e = r
        .context
        .as_ref()
        .map(|c| {
            c.mpi_env
                .iter()
                .map(|(k, v)| format!("{k}={v}"))
                .collect::<Vec<_>>()
                .join(" ")
        })
        .unwrap_or_default();
    if e.is_empty() {
        "-".into()
    } else {
        e
    }
}

/// The table of `history list`.
pub fn list_text(runs: &[RunRecord]) -> String {
    let names = machine_names(runs);
    let mut s = String::new();
    for (m, n) in names
        .iter()
        .map(|(m, n)| (n, m))
        .collect::<BTreeMap<_, _>>()
    {
        let _ = writeln!(s, "machine {m}: {n}");
    }
    let _ = writeln!(
        s,
        "{:>5}  {:<20}  {:<17}  {:>7}  {:<18}  {:>5}  {:>5}  MPI variables",
        "run", "started", "status", "machine", "library", "ranks", "rows"
    );
    for r in runs {
        let _ = writeln!(
            s,
            "{:>5}  {:<20}  {:<17}  {:>7}  {:<18}  {:>5}  {:>5}  {}",
            r.id,
            r.started,
            status_word(&r.status, r.usable),
            names.get(&r.machine).map_or("?", String::as_str),
            r.library,
            r.world_size,
            r.rows,
            env_text(r)
        );
    }
    let _ = writeln!(
        s,
        "{} run{}",
        runs.len(),
        if runs.len() == 1 { "" } else { "s" }
    );
    s
}

/// `history list --json`.
#[derive(Serialize)]
pub struct List<'a> {
    pub runs: &'a [RunRecord],
}

/// One run's figure in `history show --json`.
#[derive(Serialize)]
pub struct ShownRun {
    pub run: i64,
    pub started: String,
    pub status: String,
    /// A point of the series (finished, with a figure).
    pub used: bool,
    pub value_us: Option<f64>,
    pub ci95_lo_us: Option<f64>,
    pub ci95_hi_us: Option<f64>,
    /// What differs from the run before it in the series.
    pub changed: Vec<String>,
}

/// One series in `history show --json`.
#[derive(Serialize)]
pub struct ShownCase {
    #[serde(flatten)]
    pub case: Case,
    pub machine: String,
    /// "median", or "t_avg" with loop timing.
    pub statistic: String,
    pub runs: Vec<ShownRun>,
}

/// `history show --json`.
#[derive(Serialize)]
pub struct Show {
    pub cases: Vec<ShownCase>,
}

pub fn show(series: &[Series]) -> Show {
    let cases = series
        .iter()
        .map(|s| {
            let mut prev: Option<&RunRecord> = None;
            let runs = s
                .entries
                .iter()
                .map(|e| {
                    let changed = prev.map(|p| changes(p, e.run)).unwrap_or_default();
                    prev = Some(e.run);
                    ShownRun {
                        run: e.run.id,
                        started: e.run.started.clone(),
                        status: e.run.status.clone(),
                        used: e.used(),
                        value_us: e.value_us,
                        ci95_lo_us: e.ci_us.map(|c| c.0),
                        ci95_hi_us: e.ci_us.map(|c| c.1),
                        changed,
                    }
                })
                .collect();
            ShownCase {
                case: s.case.clone(),
                machine: s.machine.clone(),
                statistic: s
                    .entries
                    .first()
                    .map_or("median".into(), |e| e.statistic.clone()),
                runs,
            }
        })
        .collect();
    Show { cases }
}

fn opt(v: Option<f64>) -> String {
    v.map_or("-".to_string(), num)
}

/// The tables of `history show`: one per series.
pub fn show_text(shown: &Show) -> String {
    let mut s = String::new();
    for (i, c) in shown.cases.iter().enumerate() {
        if i > 0 {
            s.push('\n');
        }
        let _ = writeln!(
            s,
            "# {}: {} (us) on {}",
            c.case.label(),
            c.statistic,
            c.machine
        );
        let _ = writeln!(
            s,
            "{:>5}  {:<20}  {:<17}  {:>10}  {:>10}  {:>10}  changed",
            "run", "started", "status", "value", "ci95_lo", "ci95_hi"
        );
        for r in &c.runs {
            let line = format!(
                "{:>5}  {:<20}  {:<17}  {:>10}  {:>10}  {:>10}  {}",
                r.run,
                r.started,
                status_word(&r.status, r.used),
                opt(r.value_us),
                opt(r.ci95_lo_us),
                opt(r.ci95_hi_us),
                r.changed.join(", ")
            );
            let _ = writeln!(s, "{}", line.trim_end());
        }
    }
    s
}
