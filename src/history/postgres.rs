//! The history in a PostgreSQL database (a site-wide store shared by many
//! clusters), through the synchronous `postgres` client without TLS: the
//! same records as the SQLite file, in tables prefixed `mpibench_` in the
//! connection's schema, the version in `mpibench_meta`. Writers serialise
//! on an advisory lock held for their transaction, so that run ids are
//! given in order (1, 2, ...), as in the SQLite file.

use std::time::Duration;

use anyhow::{Context as _, Result};
use postgres::{Client, NoTls};

use super::store::{
    case_of, context_of, insert, params_text, schema_v1, shown, Added, Backend, Mode, NewRun,
    Point, Refused, RunRecord, APPLICATION, ROW_COLUMNS, RUN_COLUMNS, SCHEMA_VERSION, SELECT_ROWS,
    SELECT_RUNS,
};

/// The advisory lock of writers and migrations ("mpbh").
const LOCK: &str = "SELECT pg_advisory_xact_lock(1836081768)";

/// Schema version i + 1 from version i.
fn migrations() -> Vec<String> {
    vec![schema_v1("BIGINT", "BOOLEAN", "DOUBLE PRECISION")]
}

#[derive(Debug, PartialEq)]
enum Found {
    Empty,
    Ours(i64),
    Foreign(String),
}

fn classify(c: &mut impl postgres::GenericClient) -> Result<Found, postgres::Error> {
    let tables: Vec<String> = c
        .query(
            "SELECT table_name::text FROM information_schema.tables \
             WHERE table_schema = current_schema() AND table_name IN ('mpibench_meta', 'mpibench_runs', 'mpibench_rows')",
            &[],
        )?
        .iter()
        .map(|r| r.get(0))
        .collect();
    if tables.is_empty() {
        return Ok(Found::Empty);
    }
    if !tables.iter().any(|t| t == "mpibench_meta") {
        return Ok(Found::Foreign(format!(
            "it has {} but no mpibench_meta table",
            tables.join(", ")
        )));
    }
    let meta: Vec<(String, String)> = c
        .query(
            "SELECT key, value FROM mpibench_meta WHERE key IN ('application', 'schema_version')",
            &[],
        )?
        .iter()
        .map(|r| (r.get(0), r.get(1)))
        .collect();
    let get = |k: &str| meta.iter().find(|(m, _)| m == k).map(|(_, v)| v.clone());
    if get("application").as_deref() != Some(APPLICATION) {
        return Ok(Found::Foreign(
            "its mpibench_meta table names another application".into(),
        ));
    }
    match get("schema_version").and_then(|v| v.parse().ok()) {
        Some(v) => Ok(Found::Ours(v)),
        None => Ok(Found::Foreign(
            "its mpibench_meta table has no schema version".into(),
        )),
    }
}

/// A history in a PostgreSQL database.
pub struct Postgres {
    client: Client,
    name: String,
}

fn unreachable(name: &str, e: impl std::fmt::Display) -> anyhow::Error {
    // The server's own words, on one line.
    let why = e.to_string().replace('\n', " ");
    Refused::Unreachable(name.to_string(), why).into()
}

fn writable(name: &str, found: &Found) -> Result<()> {
    match found {
        Found::Foreign(what) => Err(Refused::Foreign(name.into(), what.clone()).into()),
        Found::Ours(v) if *v > SCHEMA_VERSION => Err(Refused::Future(name.into(), *v).into()),
        _ => Ok(()),
    }
}

impl Postgres {
    pub fn open(url: &str, mode: Mode) -> Result<Postgres> {
        let name = shown(url);
        let mut cfg: postgres::Config = url
            .parse()
            .map_err(|e| unreachable(&name, format!("not a PostgreSQL URL ({e})")))?;
        if cfg.get_connect_timeout().is_none() {
            cfg.connect_timeout(Duration::from_secs(10));
        }
        let mut client = cfg
            .connect(NoTls)
            .map_err(|e| unreachable(&name, format!("cannot connect: {}", source_text(&e))))?;
        let found = classify(&mut client).map_err(|e| unreachable(&name, source_text(&e)))?;
        writable(&name, &found)?;
        match (mode, &found) {
            (Mode::Read, Found::Empty) => {
                return Err(Refused::Missing(name).into());
            }
            (Mode::Probe, _) => return Ok(Postgres { client, name }),
            (_, Found::Ours(v)) if *v == SCHEMA_VERSION => return Ok(Postgres { client, name }),
            _ => {}
        }
        let mut tx = client.transaction()?;
        tx.batch_execute(LOCK)?;
        let found = classify(&mut tx)?;
        writable(&name, &found)?;
        let from = match found {
            Found::Ours(v) => v,
            _ => 0,
        };
        for sql in &migrations()[from as usize..] {
            tx.batch_execute(sql)
                .with_context(|| format!("history {name}: migrating its schema"))?;
        }
        tx.execute(
            "INSERT INTO mpibench_meta (key, value) VALUES ('application', $1), ('schema_version', $2) \
             ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value",
            &[&APPLICATION, &SCHEMA_VERSION.to_string()],
        )?;
        tx.commit()
            .with_context(|| format!("history {name}: migrating its schema"))?;
        Ok(Postgres { client, name })
    }
}

/// A postgres error with its cause (the server's message, the OS error).
fn source_text(e: &postgres::Error) -> String {
    match std::error::Error::source(e) {
        Some(s) => format!("{e}: {s}"),
        None => e.to_string(),
    }
}

impl Backend for Postgres {
    fn add(&mut self, run: &NewRun) -> Result<Added> {
        let name = self.name.clone();
        let cannot = || format!("cannot write history {name}");
        let mut tx = self.client.transaction().with_context(cannot)?;
        tx.batch_execute(LOCK).with_context(cannot)?;
        if let Some(r) =
            tx.query_opt("SELECT id FROM mpibench_runs WHERE hash = $1", &[&run.hash])?
        {
            return Ok(Added::Known(r.get(0)));
        }
        let id: i64 = tx
            .query_one("SELECT COALESCE(MAX(id), 0) + 1 FROM mpibench_runs", &[])?
            .get(0);
        let added = humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string();
        tx.execute(
            insert("mpibench_runs", RUN_COLUMNS, '$').as_str(),
            &[
                &id,
                &run.hash,
                &run.started,
                &added,
                &run.status,
                &run.complete,
                &run.usable,
                &run.machine,
                &run.library,
                &run.context,
                &run.world_size,
                &run.hosts,
                &run.source,
                &run.report,
            ],
        )
        .with_context(cannot)?;
        let st = tx.prepare(&insert("mpibench_rows", ROW_COLUMNS, '$'))?;
        for w in &run.rows {
            let k = &w.case.key;
            tx.execute(
                &st,
                &[
                    &id,
                    &w.case.canon(),
                    &k.suite,
                    &k.benchmark,
                    &(k.processes as i64),
                    &k.mode,
                    &(k.bytes as i64),
                    &params_text(&w.case),
                    &w.case.method,
                    &w.statistic,
                    &w.value_us,
                    &w.ci_us.map(|c| c.0),
                    &w.ci_us.map(|c| c.1),
                ],
            )
            .with_context(cannot)?;
        }
        tx.commit().with_context(cannot)?;
        Ok(Added::New(id))
    }

    fn runs(&mut self) -> Result<Vec<RunRecord>> {
        let rows = self
            .client
            .query(SELECT_RUNS, &[])
            .with_context(|| format!("cannot read history {}", self.name))?;
        Ok(rows
            .iter()
            .map(|r| RunRecord {
                id: r.get(0),
                started: r.get(1),
                status: r.get(2),
                complete: r.get(3),
                usable: r.get(4),
                machine: r.get(5),
                library: r.get(6),
                world_size: r.get(7),
                hosts: r.get(8),
                source: r.get(9),
                context: context_of(r.get(10)),
                rows: r.get(11),
            })
            .collect())
    }

    fn points(&mut self) -> Result<Vec<Point>> {
        let rows = self
            .client
            .query(SELECT_ROWS, &[])
            .with_context(|| format!("cannot read history {}", self.name))?;
        Ok(rows
            .iter()
            .map(|r| {
                let params: String = r.get(6);
                let lo: Option<f64> = r.get(10);
                let hi: Option<f64> = r.get(11);
                Point {
                    run: r.get(0),
                    case: case_of(
                        r.get(1),
                        r.get(2),
                        r.get(3),
                        r.get(4),
                        r.get(5),
                        &params,
                        r.get(7),
                    ),
                    statistic: r.get(8),
                    value_us: r.get(9),
                    ci_us: lo.zip(hi),
                }
            })
            .collect())
    }
}
