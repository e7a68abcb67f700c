//! The history in an SQLite file (the embedded default): WAL mode and a
//! busy timeout for concurrent writers, each run added in one `BEGIN
//! IMMEDIATE` transaction; the schema version in `PRAGMA user_version`,
//! the file marked as ours by `PRAGMA application_id`. A file that is not
//! an SQLite database, an SQLite database of something else, or a history
//! of a newer schema is refused before anything is written to it.

use std::path::Path;
use std::time::Duration;

use anyhow::{Context as _, Result};
use rusqlite::{params, Connection, OpenFlags, OptionalExtension, TransactionBehavior};

use super::store::{
    case_of, context_of, insert, params_text, schema_v1, Added, Backend, Mode, NewRun, Point,
    Refused, RunRecord, APPLICATION, ROW_COLUMNS, RUN_COLUMNS, SELECT_ROWS, SELECT_RUNS,
};

/// `PRAGMA application_id` of a history: "mpbh".
const APP_ID: i64 = 0x6d70_6268;

/// How long a writer waits for another's transaction.
const BUSY: Duration = Duration::from_secs(60);

/// Schema version i + 1 from version i.
fn migrations() -> Vec<String> {
    vec![schema_v1("INTEGER", "INTEGER", "REAL")]
}

/// What a database file holds.
#[derive(Debug, PartialEq)]
enum Found {
    /// Nothing yet (a new or empty file).
    Empty,
    /// A history of this schema version.
    Ours(i64),
    /// Something else, described.
    Foreign(String),
}

fn classify(conn: &Connection) -> rusqlite::Result<Found> {
    let app: i64 = conn.pragma_query_value(None, "application_id", |r| r.get(0))?;
    let version: i64 = conn.pragma_query_value(None, "user_version", |r| r.get(0))?;
    let mut st = conn
        .prepare("SELECT name FROM sqlite_master WHERE type IN ('table', 'view') ORDER BY name")?;
    let tables: Vec<String> = st
        .query_map([], |r| r.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    Ok(if app == APP_ID {
        Found::Ours(version)
    } else if app == 0 && version == 0 && tables.is_empty() {
        Found::Empty
    } else if tables.is_empty() {
        Found::Foreign(format!(
            "an SQLite database of another application (application_id {app}, user_version {version})"
        ))
    } else {
        let shown: Vec<&str> = tables.iter().take(4).map(String::as_str).collect();
        Found::Foreign(format!(
            "an SQLite database of another application (tables {}{})",
            shown.join(", "),
            if tables.len() > 4 { ", ..." } else { "" }
        ))
    })
}

/// [`classify`] in one read transaction: its pragmas and its list of
/// tables from the same state of the file. Read statement by statement, a
/// concurrent writer's first migration could fall between them (tables
/// there, application_id not yet read as set): a new history was then
/// refused as another application's (8 concurrent writers, MPICH leg).
fn classify_at_once(conn: &Connection) -> rusqlite::Result<Found> {
    let tx = conn.unchecked_transaction()?;
    let found = classify(&tx);
    tx.finish()?;
    found
}

/// A history that another writer held while this one opened it, where
/// SQLite returns at once rather than waiting (setting WAL mode, or a
/// read that meets another's first migration): opened again.
#[derive(Debug, thiserror::Error)]
#[error("history {0} cannot be read: {1}; it was not changed")]
struct Busy(String, String);

/// An SQLite error on opening or inspecting `name`, as a refusal.
fn refused(name: &str, e: rusqlite::Error) -> anyhow::Error {
    use rusqlite::ErrorCode;
    if let Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked) = e.sqlite_error_code() {
        return Busy(name.to_string(), e.to_string()).into();
    }
    let why = match e.sqlite_error_code() {
        Some(ErrorCode::NotADatabase) => {
            "it is not an SQLite database (a file of another kind, or damaged)".to_string()
        }
        Some(ErrorCode::DatabaseCorrupt) => {
            "the database is damaged (SQLite: database disk image is malformed)".to_string()
        }
        _ => e.to_string(),
    };
    Refused::Corrupt(name.to_string(), why).into()
}

/// SQLite's quick check of a history: a file cut short or damaged is
/// refused before anything is written to it.
fn intact(conn: &Connection, name: &str) -> Result<()> {
    let first: String = conn
        .query_row("PRAGMA quick_check(1)", [], |r| r.get(0))
        .map_err(|e| refused(name, e))?;
    if first == "ok" {
        Ok(())
    } else {
        Err(Refused::Corrupt(
            name.into(),
            format!("the database is damaged (SQLite: {first})"),
        )
        .into())
    }
}

/// Whether `found` may be written by this mpibench.
fn writable(name: &str, found: &Found, latest: i64) -> Result<()> {
    match found {
        Found::Foreign(what) => Err(Refused::Foreign(name.into(), what.clone()).into()),
        Found::Ours(v) if *v > latest => Err(Refused::Future(name.into(), *v).into()),
        _ => Ok(()),
    }
}

/// Brings a history (or an empty file) to the last version of `steps`, in
/// one immediate transaction (a concurrent writer waits, then finds it done).
fn migrate(conn: &mut Connection, name: &str, steps: &[String]) -> Result<()> {
    let latest = steps.len() as i64;
    let tx = conn
        .transaction_with_behavior(TransactionBehavior::Immediate)
        .map_err(|e| refused(name, e))?;
    let found = classify(&tx).map_err(|e| refused(name, e))?;
    writable(name, &found, latest)?;
    let from = match found {
        Found::Ours(v) => v,
        _ => 0,
    };
    if from == latest {
        return Ok(());
    }
    for sql in &steps[from as usize..] {
        tx.execute_batch(sql)
            .with_context(|| format!("history {name}: migrating its schema"))?;
    }
    tx.execute(
        "INSERT OR REPLACE INTO mpibench_meta (key, value) VALUES ('application', ?1), ('schema_version', ?2)",
        params![APPLICATION, latest.to_string()],
    )?;
    tx.pragma_update(None, "application_id", APP_ID)?;
    tx.pragma_update(None, "user_version", latest)?;
    tx.commit()
        .with_context(|| format!("history {name}: migrating its schema"))?;
    Ok(())
}

/// A history in an SQLite file.
pub struct Sqlite {
    conn: Connection,
    name: String,
}

impl Sqlite {
    pub fn open(path: &Path, mode: Mode) -> Result<Sqlite> {
        let steps = migrations();
        let deadline = std::time::Instant::now() + BUSY;
        let mut pause = Duration::from_millis(2);
        loop {
            match Self::open_with(path, mode, &steps) {
                Err(e) if e.is::<Busy>() && std::time::Instant::now() < deadline => {
                    std::thread::sleep(pause);
                    pause = (pause * 2).min(Duration::from_millis(100));
                }
                r => return r,
            }
        }
    }

    /// Whether a run could be kept in `path` at its end: a file that does
    /// not exist yet in a directory that does, or a history of this
    /// schema or an earlier one. Nothing is created or changed.
    pub fn probe(path: &Path) -> Result<()> {
        if std::fs::symlink_metadata(path).is_err() {
            let dir = match path.parent() {
                Some(d) if !d.as_os_str().is_empty() => d,
                _ => Path::new("."),
            };
            if !dir.is_dir() {
                let name = format!("'{}'", path.display());
                return Err(Refused::Unreachable(
                    name,
                    format!("its directory '{}' does not exist", dir.display()),
                )
                .into());
            }
            return Ok(());
        }
        Self::open(path, Mode::Probe).map(drop)
    }

    fn open_with(path: &Path, mode: Mode, steps: &[String]) -> Result<Sqlite> {
        let name = format!("'{}'", path.display());
        let latest = steps.len() as i64;
        match std::fs::metadata(path) {
            Ok(m) if !m.is_file() => {
                return Err(Refused::Foreign(name, "not a regular file".into()).into())
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound && mode != Mode::Write => {
                return Err(Refused::Missing(name).into())
            }
            _ => {}
        }
        let flags = match mode {
            Mode::Write => OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_CREATE,
            Mode::Read | Mode::Probe => OpenFlags::SQLITE_OPEN_READ_ONLY,
        } | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let mut conn = Connection::open_with_flags(path, flags).map_err(|e| refused(&name, e))?;
        conn.busy_timeout(BUSY).map_err(|e| refused(&name, e))?;
        let found = classify_at_once(&conn).map_err(|e| refused(&name, e))?;
        writable(&name, &found, latest)?;
        if let Found::Ours(_) = found {
            intact(&conn, &name)?;
        }
        match (mode, &found) {
            (Mode::Read, Found::Empty) => {
                return Err(Refused::Foreign(name, "an empty file, no run in it".into()).into())
            }
            (Mode::Probe, _) => return Ok(Sqlite { conn, name }),
            (Mode::Read, Found::Ours(v)) if *v == latest => return Ok(Sqlite { conn, name }),
            // An earlier schema: migrated, then read.
            (Mode::Read, _) => {
                drop(conn);
                return Self::open_with(path, Mode::Write, steps);
            }
            (Mode::Write, _) => {}
        }
        if found != Found::Ours(latest) {
            migrate(&mut conn, &name, steps)?;
        }
        // Persistent in the file: readers and writers never block each other.
        let journal: String = conn
            .query_row("PRAGMA journal_mode", [], |r| r.get(0))
            .map_err(|e| refused(&name, e))?;
        if journal != "wal" {
            let _: String = conn
                .query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0))
                .map_err(|e| refused(&name, e))?;
        }
        conn.pragma_update(None, "foreign_keys", true)?;
        Ok(Sqlite { conn, name })
    }
}

impl Backend for Sqlite {
    fn add(&mut self, run: &NewRun) -> Result<Added> {
        let name = self.name.clone();
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .with_context(|| format!("cannot write history {name}"))?;
        let known: Option<i64> = tx
            .query_row(
                "SELECT id FROM mpibench_runs WHERE hash = ?1",
                [&run.hash],
                |r| r.get(0),
            )
            .optional()?;
        if let Some(id) = known {
            return Ok(Added::Known(id));
        }
        let id: i64 = tx.query_row(
            "SELECT COALESCE(MAX(id), 0) + 1 FROM mpibench_runs",
            [],
            |r| r.get(0),
        )?;
        let added = humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string();
        tx.execute(
            &insert("mpibench_runs", RUN_COLUMNS, '?'),
            params![
                id,
                run.hash,
                run.started,
                added,
                run.status,
                run.complete,
                run.usable,
                run.machine,
                run.library,
                run.context,
                run.world_size,
                run.hosts,
                run.source,
                run.report
            ],
        )
        .with_context(|| format!("cannot write history {name}"))?;
        {
            let mut st = tx.prepare(&insert("mpibench_rows", ROW_COLUMNS, '?'))?;
            for w in &run.rows {
                let k = &w.case.key;
                st.execute(params![
                    id,
                    w.case.canon(),
                    k.suite,
                    k.benchmark,
                    k.processes as i64,
                    k.mode,
                    k.bytes as i64,
                    params_text(&w.case),
                    w.case.method,
                    w.statistic,
                    w.value_us,
                    w.ci_us.map(|c| c.0),
                    w.ci_us.map(|c| c.1),
                ])
                .with_context(|| format!("cannot write history {name}"))?;
            }
        }
        tx.commit()
            .with_context(|| format!("cannot write history {name}"))?;
        Ok(Added::New(id))
    }

    fn runs(&mut self) -> Result<Vec<RunRecord>> {
        let mut st = self.conn.prepare(SELECT_RUNS)?;
        let rows = st.query_map([], |r| {
            Ok(RunRecord {
                id: r.get(0)?,
                started: r.get(1)?,
                status: r.get(2)?,
                complete: r.get(3)?,
                usable: r.get(4)?,
                machine: r.get(5)?,
                library: r.get(6)?,
                world_size: r.get(7)?,
                hosts: r.get(8)?,
                source: r.get(9)?,
                context: context_of(r.get(10)?),
                rows: r.get(11)?,
            })
        })?;
        rows.collect::<rusqlite::Result<_>>()
            .with_context(|| format!("cannot read history {}", self.name))
    }

    fn points(&mut self) -> Result<Vec<Point>> {
        let mut st = self.conn.prepare(SELECT_ROWS)?;
        let rows = st.query_map([], |r| {
            let params: String = r.get(6)?;
            let lo: Option<f64> = r.get(10)?;
            let hi: Option<f64> = r.get(11)?;
            Ok(Point {
                run: r.get(0)?,
                case: case_of(
                    r.get(1)?,
                    r.get(2)?,
                    r.get(3)?,
                    r.get(4)?,
                    r.get(5)?,
                    &params,
                    r.get(7)?,
                ),
                statistic: r.get(8)?,
                value_us: r.get(9)?,
                ci_us: lo.zip(hi),
            })
        })?;
        rows.collect::<rusqlite::Result<_>>()
            .with_context(|| format!("cannot read history {}", self.name))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::history::store::{new_run, tests::run_on};

    #[test]
    fn the_migrations_end_at_this_schema() {
        assert_eq!(
            migrations().len() as i64,
            crate::history::store::SCHEMA_VERSION
        );
    }

    #[test]
    fn writers_that_create_a_history_together_all_open_it() {
        // 8 writers at once on a new file, 30 times: none may see another
        // one's first migration half done (it was read as "another
        // application's" between its pragmas and its tables).
        for round in 0..30 {
            let dir = tmp();
            let path = dir.path().join("h.db");
            let opened: Vec<Result<()>> = std::thread::scope(|s| {
                let hs: Vec<_> = (0..8)
                    .map(|_| s.spawn(|| Sqlite::open(&path, Mode::Write).map(drop)))
                    .collect();
                hs.into_iter().map(|h| h.join().expect("thread")).collect()
            });
            for r in opened {
                assert!(r.is_ok(), "round {round}: {:#}", r.unwrap_err());
            }
        }
    }

    fn tmp() -> tempfile::TempDir {
        tempfile::tempdir().unwrap()
    }

    #[test]
    fn a_run_is_stored_once_and_read_back() {
        let d = tmp();
        let p = d.path().join("h.db");
        let mut s = Sqlite::open(&p, Mode::Write).unwrap();
        let r = run_on("Xeon", "2026-01-01T00:00:00Z", &[(0, 1.0), (8, 2.0)]);
        let run = new_run(&r, "a.json").unwrap();
        assert_eq!(s.add(&run).unwrap(), Added::New(1));
        assert_eq!(s.add(&run).unwrap(), Added::Known(1));
        let r2 = run_on("Xeon", "2026-01-02T00:00:00Z", &[(0, 1.1)]);
        assert_eq!(
            s.add(&new_run(&r2, "b.json").unwrap()).unwrap(),
            Added::New(2)
        );
        drop(s);
        let mut s = Sqlite::open(&p, Mode::Read).unwrap();
        let runs = s.runs().unwrap();
        assert_eq!(runs.len(), 2);
        assert_eq!((runs[0].rows, runs[1].rows), (2, 1));
        assert!(runs[0].context.is_some());
        let pts = s.points().unwrap();
        assert_eq!(pts.len(), 3);
        assert_eq!(pts[0].case, run.rows[0].case);
        assert_eq!(pts[0].value_us, Some(1.0));
        assert_eq!(pts[0].statistic, "t_avg");
        let mode: String = s
            .conn
            .query_row("PRAGMA journal_mode", [], |r| r.get(0))
            .unwrap();
        assert_eq!(mode, "wal");
    }

    /// The bytes and modification time of a file.
    fn state(p: &Path) -> (Vec<u8>, std::time::SystemTime) {
        (
            std::fs::read(p).unwrap(),
            std::fs::metadata(p).unwrap().modified().unwrap(),
        )
    }

    #[test]
    fn foreign_corrupt_and_future_files_are_refused_and_left_alone() {
        let d = tmp();
        let text = d.path().join("notes.txt");
        std::fs::write(&text, "not a database at all, just some text\n".repeat(200)).unwrap();
        let foreign = d.path().join("other.db");
        Connection::open(&foreign)
            .unwrap()
            .execute_batch("CREATE TABLE t (x); INSERT INTO t VALUES (1);")
            .unwrap();
        let future = d.path().join("future.db");
        drop(Sqlite::open(&future, Mode::Write).unwrap());
        Connection::open(&future)
            .unwrap()
            .pragma_update(None, "user_version", 99)
            .unwrap();
        for (p, want) in [
            (&text, "is not an SQLite database"),
            (
                &foreign,
                "not an mpibench history: an SQLite database of another application (tables t)",
            ),
            (&future, "schema version 99, written by a newer mpibench"),
        ] {
            let before = state(p);
            for mode in [Mode::Write, Mode::Read, Mode::Probe] {
                let e = Sqlite::open(p, mode).err().unwrap();
                assert!(e.downcast_ref::<Refused>().is_some(), "{e:#}");
                let e = format!("{e:#}");
                assert!(e.contains(want), "{mode:?} {}: {e}", p.display());
                assert!(!e.contains('\n') && e.contains("it was not changed"), "{e}");
            }
            assert_eq!(state(p), before, "{} changed", p.display());
        }
        let missing = d.path().join("none.db");
        let e = Sqlite::open(&missing, Mode::Read)
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("no such file"), "{e}");
        assert!(!missing.exists());
    }

    #[test]
    fn an_earlier_schema_is_migrated() {
        let d = tmp();
        let p = d.path().join("h.db");
        let v1 = migrations().remove(0);
        let mut s = Sqlite::open_with(&p, Mode::Write, std::slice::from_ref(&v1)).unwrap();
        let r = run_on("Xeon", "2026-01-01T00:00:00Z", &[(0, 1.0)]);
        s.add(&new_run(&r, "a.json").unwrap()).unwrap();
        drop(s);
        let v2 = "ALTER TABLE mpibench_runs ADD COLUMN note TEXT;".to_string();
        let mut s = Sqlite::open_with(&p, Mode::Read, &[v1, v2]).unwrap();
        assert_eq!(s.runs().unwrap().len(), 1, "the run survives");
        let v: i64 = s
            .conn
            .pragma_query_value(None, "user_version", |r| r.get(0))
            .unwrap();
        assert_eq!(v, 2);
        let note: Option<String> = s
            .conn
            .query_row("SELECT note FROM mpibench_runs", [], |r| r.get(0))
            .unwrap();
        assert_eq!(note, None);
        drop(s);
        // This mpibench (version 1) refuses the migrated file.
        let e = format!("{:#}", Sqlite::open(&p, Mode::Write).err().unwrap());
        assert!(e.contains("schema version 2"), "{e}");
    }
}
