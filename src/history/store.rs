//! What the history keeps of a run, whichever database holds it: the run
//! (its content hash, status, machine, library, context and JSON) and its
//! rows by case (compare's row key and the timing method), under a
//! versioned schema. The backends (`sqlite`, `postgres`) store and read
//! these records; nothing above them writes SQL.

use std::collections::BTreeMap;

use anyhow::{Context as _, Result};
use serde::Serialize;
use sha2::{Digest, Sha256};

use crate::report::compare::{keyed_rows, Key};
use crate::report::view::rows::band;
use crate::report::view::{headline, library_name, loop_timed};
use crate::results::{Context, Report};

/// The schema this mpibench writes (a history of a later version is
/// refused, an earlier one migrated).
pub const SCHEMA_VERSION: i64 = 1;

/// What the meta table's `application` says in a history.
pub const APPLICATION: &str = "mpibench-history";

/// Schema version 1 in the types of a backend: its integer, boolean and
/// floating-point types (SQLite: INTEGER, INTEGER, REAL; PostgreSQL:
/// BIGINT, BOOLEAN, DOUBLE PRECISION).
pub fn schema_v1(int: &str, boolean: &str, real: &str) -> String {
    format!(
        "
CREATE TABLE mpibench_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE mpibench_runs (
    id {int} PRIMARY KEY,
    hash TEXT NOT NULL UNIQUE,
    started TEXT NOT NULL,
    added TEXT NOT NULL,
    status TEXT NOT NULL,
    complete {boolean} NOT NULL,
    usable {boolean} NOT NULL,
    machine TEXT NOT NULL,
    library TEXT NOT NULL,
    context TEXT,
    world_size {int} NOT NULL,
    hosts {int} NOT NULL,
    source TEXT NOT NULL,
    report TEXT NOT NULL
);
CREATE TABLE mpibench_rows (
    run {int} NOT NULL REFERENCES mpibench_runs(id),
    case_key TEXT NOT NULL,
    suite TEXT NOT NULL,
    benchmark TEXT NOT NULL,
    processes {int} NOT NULL,
    mode TEXT NOT NULL,
    bytes {int} NOT NULL,
    params TEXT NOT NULL,
    method TEXT NOT NULL,
    statistic TEXT NOT NULL,
    value_us {real},
    ci_lo_us {real},
    ci_hi_us {real},
    PRIMARY KEY (run, case_key)
);
CREATE INDEX mpibench_rows_case ON mpibench_rows (case_key);
"
    )
}

/// The columns of a run as both backends insert them ($1 or ?1 ...).
pub const RUN_COLUMNS: &str = "id, hash, started, added, status, complete, usable, machine, library, context, world_size, hosts, source, report";

/// The columns of a row as both backends insert them.
pub const ROW_COLUMNS: &str = "run, case_key, suite, benchmark, processes, mode, bytes, params, method, statistic, value_us, ci_lo_us, ci_hi_us";

/// `INSERT INTO table (columns) VALUES (p1, p2, ...)` with the backend's
/// placeholder prefix (`?` or `$`).
pub fn insert(table: &str, columns: &str, mark: char) -> String {
    let n = columns.split(',').count();
    let marks: Vec<String> = (1..=n).map(|i| format!("{mark}{i}")).collect();
    format!(
        "INSERT INTO {table} ({columns}) VALUES ({})",
        marks.join(", ")
    )
}

/// The query of every run, with its count of rows.
pub const SELECT_RUNS: &str = "SELECT r.id, r.started, r.status, r.complete, r.usable, r.machine, r.library, r.world_size, r.hosts, r.source, r.context, \
     (SELECT COUNT(*) FROM mpibench_rows w WHERE w.run = r.id) FROM mpibench_runs r ORDER BY r.id";

/// The query of every row (its order is the series' business).
pub const SELECT_ROWS: &str = "SELECT run, suite, benchmark, processes, mode, bytes, params, method, statistic, value_us, ci_lo_us, ci_hi_us FROM mpibench_rows ORDER BY run";

/// A series' case: compare's row key and the timing method.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Case {
    #[serde(flatten)]
    pub key: Key,
    /// The timing method ("loop", "per-call", ...).
    pub method: String,
}

impl Case {
    /// The case's identity in the database (compare's key, then the method).
    pub fn canon(&self) -> String {
        format!("{}\u{1f}{}", self.key.canon(), self.method)
    }

    /// "imb PingPong P=2 8 B (per-call)".
    pub fn label(&self) -> String {
        format!(
            "{} ({})",
            crate::report::compare::key_text(&self.key),
            self.method
        )
    }
}

/// One row of a run to store.
#[derive(Debug, Clone)]
pub struct NewRow {
    pub case: Case,
    /// "median", or "t_avg" with loop timing.
    pub statistic: &'static str,
    /// The row's figure (µs); None when it had no valid sample.
    pub value_us: Option<f64>,
    /// The 95% CI of the figure, where the row has one.
    pub ci_us: Option<(f64, f64)>,
}

/// One run to store.
#[derive(Debug, Clone)]
pub struct NewRun {
    /// SHA-256 of the run's canonical JSON: the same run is stored once.
    pub hash: String,
    pub started: String,
    pub status: String,
    pub complete: bool,
    /// Finished (complete, ok or validation errors): a series point.
    pub usable: bool,
    /// The comparable machine ([`machine`]).
    pub machine: String,
    pub library: String,
    /// The context object, as JSON (None: the run has none).
    pub context: Option<String>,
    pub world_size: i64,
    pub hosts: i64,
    /// Where it came from: the JSON file, or "run" for `run --history`.
    pub source: String,
    /// The run's JSON, whole.
    pub report: String,
    pub rows: Vec<NewRow>,
}

/// A stored run, as read back.
#[derive(Debug, Clone, Serialize)]
pub struct RunRecord {
    pub id: i64,
    pub started: String,
    pub status: String,
    pub complete: bool,
    pub usable: bool,
    pub machine: String,
    pub library: String,
    pub world_size: i64,
    pub hosts: i64,
    pub source: String,
    pub rows: i64,
    pub context: Option<Context>,
}

/// A stored row, as read back.
#[derive(Debug, Clone)]
pub struct Point {
    pub run: i64,
    pub case: Case,
    pub statistic: String,
    pub value_us: Option<f64>,
    pub ci_us: Option<(f64, f64)>,
}

/// What storing a run did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Added {
    /// Stored as run N.
    New(i64),
    /// Stored before, as run N.
    Known(i64),
}

/// A history that cannot be used as it is: said in one line, the file or
/// database left as it was (exit code 2).
#[derive(Debug, thiserror::Error)]
pub enum Refused {
    #[error("history {0}: no such file (run --history or history add creates it)")]
    Missing(String),
    #[error("history {0} is not an mpibench history: {1}; it was not changed")]
    Foreign(String, String),
    #[error("history {0} has schema version {1}, written by a newer mpibench (this one knows versions up to {latest}); it was not changed", latest = SCHEMA_VERSION)]
    Future(String, i64),
    #[error("history {0} cannot be read: {1}; it was not changed")]
    Corrupt(String, String),
    #[error("history {0}: {1}")]
    Unreachable(String, String),
}

/// A database that holds a history.
pub trait Backend: Send {
    /// Stores a run and its rows, once (by its hash).
    fn add(&mut self, run: &NewRun) -> Result<Added>;
    /// Every run, by id.
    fn runs(&mut self) -> Result<Vec<RunRecord>>;
    /// Every row of every run, by run and case.
    fn points(&mut self) -> Result<Vec<Point>>;
}

/// How a history is opened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// To add runs: created if missing, an earlier schema migrated.
    Write,
    /// To read: it must exist; an earlier schema is migrated.
    Read,
    /// To check that it can be written later: nothing created or changed.
    Probe,
}

/// A PostgreSQL URL rather than a file.
pub fn is_url(spec: &str) -> bool {
    spec.starts_with("postgres://") || spec.starts_with("postgresql://")
}

/// Opens the history `spec` names: a PostgreSQL URL or an SQLite file.
pub fn open(spec: &str, mode: Mode) -> Result<Box<dyn Backend>> {
    if is_url(spec) {
        Ok(Box::new(super::postgres::Postgres::open(spec, mode)?))
    } else {
        Ok(Box::new(super::sqlite::Sqlite::open(
            std::path::Path::new(spec),
            mode,
        )?))
    }
}

/// Whether a run could be kept in `spec` at its end (checked before the
/// run starts): nothing is created or changed.
pub fn probe(spec: &str) -> Result<()> {
    if is_url(spec) {
        super::postgres::Postgres::open(spec, Mode::Probe).map(drop)
    } else {
        super::sqlite::Sqlite::probe(std::path::Path::new(spec))
    }
}

/// How a history names itself in messages: the file in quotes, a URL
/// without its password.
pub fn shown(spec: &str) -> String {
    if !is_url(spec) {
        return format!("'{spec}'");
    }
    // postgres://user:secret@host/db → postgres://user@host/db
    match spec.split_once("://") {
        Some((scheme, rest)) => match rest.split_once('@') {
            Some((user, host)) => {
                let user = user.split(':').next().unwrap_or("");
                format!("{scheme}://{user}@{host}")
            }
            None => spec.to_string(),
        },
        None => spec.to_string(),
    }
}

/// The comparable machine of a run: per host, its processor, CPUs online and
/// NUMA nodes (identical hosts counted together, in sorted order), and the
/// number of hosts. Host names, binding, kernel and the MPI library are not
/// in it: a series spans their changes, and `history check` names them.
pub fn machine(r: &Report) -> String {
    let n = r.hosts.len().max(1);
    let hosts_word = if n == 1 { "host" } else { "hosts" };
    let Some(cx) = &r.context else {
        return format!("{n} {hosts_word}, machine not recorded (no context)");
    };
    let mut each: Vec<String> = cx
        .hosts
        .iter()
        .map(|h| {
            let cpus = h.online.unwrap_or(h.cores);
            format!(
                "{}, {cpus} CPU{}, {} NUMA node{}",
                h.cpu_model
                    .as_deref()
                    .map(str::trim)
                    .unwrap_or("unknown processor"),
                if cpus == 1 { "" } else { "s" },
                h.numa_nodes,
                if h.numa_nodes == 1 { "" } else { "s" }
            )
        })
        .collect();
    each.sort();
    let mut groups: Vec<(String, usize)> = Vec::new();
    for e in each {
        match groups.last_mut() {
            Some((d, c)) if *d == e => *c += 1,
            _ => groups.push((e, 1)),
        }
    }
    let n = cx.hosts.len().max(1);
    let desc: Vec<String> = groups
        .into_iter()
        .map(|(d, c)| if c > 1 { format!("{c} x {d}") } else { d })
        .collect();
    format!(
        "{n} {}: {}",
        if n == 1 { "host" } else { "hosts" },
        desc.join("; ")
    )
}

/// The run's status word ("ok", "aborted", ...; "complete"/"incomplete"
/// for files without one) and whether it is a series point: finished as
/// `compare` takes a run (complete, and ok or validation errors).
fn status_of(r: &Report) -> (String, bool) {
    let usable =
        r.complete && matches!(r.status.as_deref(), None | Some("ok" | "validation_errors"));
    let word = r
        .status
        .clone()
        .unwrap_or_else(|| if r.complete { "complete" } else { "incomplete" }.into());
    (word, usable)
}

/// The rows of a run by case: compare's keyed rows, the aggregate over
/// repeats where there is one, else the first occurrence of each key.
fn rows_of(r: &Report) -> Vec<NewRow> {
    let mut by: BTreeMap<String, (bool, NewRow)> = BTreeMap::new();
    let mut order: Vec<String> = Vec::new();
    for (key, res, row) in keyed_rows(r) {
        let lt = loop_timed(r, res);
        let method = res
            .method
            .clone()
            .unwrap_or_else(|| r.settings.timing.clone());
        let case = Case { key, method };
        let canon = case.canon();
        let new = NewRow {
            case,
            statistic: if lt { "t_avg" } else { "median" },
            value_us: headline(lt, row).filter(|v| v.is_finite() && *v >= 0.0),
            ci_us: band(lt, row)
                .filter(|(_, what)| what.contains("CI"))
                .map(|(b, _)| b)
                .filter(|(lo, hi)| lo.is_finite() && hi.is_finite() && lo <= hi),
        };
        // An aggregate row replaces a repeat's; otherwise the first stays.
        match by.get(&canon).map(|(aggregate, _)| *aggregate) {
            Some(true) => {}
            Some(false) if !res.aggregate => {}
            seen => {
                if seen.is_none() {
                    order.push(canon.clone());
                }
                by.insert(canon, (res.aggregate, new));
            }
        }
    }
    order
        .into_iter()
        .filter_map(|k| by.remove(&k).map(|(_, r)| r))
        .collect()
}

/// The record of a run to store, from its report (`source`: where it came from).
pub fn new_run(r: &Report, source: &str) -> Result<NewRun> {
    let value = serde_json::to_value(r).context("the run does not serialise")?;
    let report = serde_json::to_string(&value)?;
    let hash = Sha256::digest(report.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let (status, usable) = status_of(r);
    Ok(NewRun {
        hash,
        started: r.started.clone(),
        status,
        complete: r.complete,
        usable,
        machine: machine(r),
        library: library_name(&r.mpi.library),
        context: r.context.as_ref().map(serde_json::to_string).transpose()?,
        world_size: r.world_size as i64,
        hosts: r.hosts.len() as i64,
        source: source.to_string(),
        report,
        rows: rows_of(r),
    })
}

/// The key of a stored row from its columns.
pub fn case_of(
    suite: String,
    benchmark: String,
    processes: i64,
    mode: String,
    bytes: i64,
    params: &str,
    method: String,
) -> Case {
    Case {
        key: Key {
            suite,
            benchmark,
            processes: processes.max(0) as usize,
            mode,
            bytes: bytes.max(0) as usize,
            params: serde_json::from_str(params).unwrap_or_default(),
        },
        method,
    }
}

/// A row's parameters as stored (canonical JSON of compare's key).
pub fn params_text(c: &Case) -> String {
    serde_json::to_string(&c.key.params).unwrap_or_else(|_| "{}".into())
}

/// A stored context back (None when absent or unreadable).
pub fn context_of(text: Option<String>) -> Option<Context> {
    text.and_then(|t| serde_json::from_str(&t).ok())
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::report::table::fixtures::{report, result, row};
    use crate::results::HostContext;

    /// A run on `machine` (a processor name) with one PingPong row per size.
    pub fn run_on(cpu: &str, started: &str, rows: &[(usize, f64)]) -> Report {
        let mut r = report(2);
        r.started = started.into();
        r.complete = true;
        r.status = Some("ok".into());
        r.context = Some(Context {
            hosts: vec![HostContext {
                host: "node1".into(),
                cores: 2,
                cpus: "0-1".into(),
                online: Some(2),
                ranks: 2,
                numa_nodes: 1,
                cpu_model: Some(cpu.into()),
                ..HostContext::default()
            }],
            ..Context::default()
        });
        r.results.push(result(
            "PingPong",
            "imb",
            "single transfer",
            2,
            rows.iter().map(|&(b, t)| row(b, t)).collect(),
        ));
        r
    }

    #[test]
    fn a_run_is_keyed_by_its_content_and_its_rows_by_case() {
        let r = run_on("Xeon", "2026-01-01T00:00:00Z", &[(0, 1.0), (8, 1.5)]);
        let a = new_run(&r, "a.json").unwrap();
        let b = new_run(&r, "b.json").unwrap();
        assert_eq!(a.hash, b.hash, "the same run, wherever it came from");
        assert_eq!(a.hash.len(), 64);
        let mut r2 = r.clone();
        r2.results[0].rows[0].t_avg_us = 1.01;
        assert_ne!(new_run(&r2, "a.json").unwrap().hash, a.hash);
        assert_eq!(a.rows.len(), 2);
        assert_eq!(a.rows[0].case.key.bytes, 0);
        assert!(a.rows[1].case.label().contains("PingPong P=2 8 B"));
        assert_eq!(a.machine, "1 host: Xeon, 2 CPUs, 1 NUMA node");
        assert!(a.usable);
        let mut dead = r.clone();
        dead.complete = false;
        dead.status = Some("aborted".into());
        let d = new_run(&dead, "d.json").unwrap();
        assert_eq!((d.status.as_str(), d.usable), ("aborted", false));
    }

    #[test]
    fn a_url_is_shown_without_its_password() {
        assert_eq!(shown("h.db"), "'h.db'");
        assert_eq!(
            shown("postgres://bench:secret@db.site/perf"),
            "postgres://bench@db.site/perf"
        );
        assert!(is_url("postgresql://x/y") && !is_url("postgres.db"));
    }
}
