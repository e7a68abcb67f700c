//! `mpibench history` and `--history`: every run kept in a database (an
//! SQLite file, or PostgreSQL for a site), its rows by case, and the
//! series read back: listed, shown, checked for steps against their own
//! noise, drawn as trends.
//!
//! An app-level command: it reads and writes through `store` (the
//! backends), judges in `changepoint` and `check`, and leaves formatting
//! to the report layer. A run's `--history` reaches the one place that
//! writes its final outputs as an `output::Keeper` ([`keeper`]).

pub mod changepoint;
mod check;
mod postgres;
mod report;
mod series;
mod show;
mod sqlite;
mod store;

use std::path::{Path, PathBuf};

use anyhow::Result;

use crate::cli::{
    HistoryArgs, HistoryCases, HistoryCommand, HistoryJudge, HistoryJudged, HistoryStore,
};
use crate::files::{is_stdout, Output};
use crate::outcome::{Outcome, EXIT_OK};
use crate::results::Report;
use changepoint::Rules;
use store::{Added, Backend, Mode, Refused};

/// A usage error (exit code 2): one line.
fn usage(msg: &str) -> i32 {
    Outcome::Usage.say(msg)
}

/// An error opening or reading a history: a refusal (a file that is not
/// ours, a newer schema, an unreachable server) is unusable input (exit
/// code 2); anything else failed (exit code 3).
fn failed(e: &anyhow::Error) -> i32 {
    if e.downcast_ref::<Refused>().is_some() {
        usage(&format!("{e:#}"))
    } else {
        Outcome::Error.say(&format!("{e:#}"))
    }
}

/// The rules of a check from the command line.
fn rules(j: &HistoryJudge) -> Rules {
    Rules {
        min_step: j.min_step / 100.0,
        max_noise: j.max_noise / 100.0,
        ..Rules::default()
    }
}

/// The history as a file the command must not overwrite (none for a URL).
fn history_input(spec: &str) -> Vec<(&'static str, &Path)> {
    if store::is_url(spec) {
        Vec::new()
    } else {
        vec![("--history", Path::new(spec))]
    }
}

/// Refuses outputs that cannot be written or would overwrite the history.
fn check_outputs(outputs: &[Output], spec: &str) -> Result<(), i32> {
    crate::files::validate(outputs, &history_input(spec)).map_err(|m| usage(&m))
}

/// Writes `text` (or, for JSON to a file, the value) where asked: the JSON
/// file when given (stdout then carries nothing else), else stdout.
fn emit(json: Option<&Path>, value: &impl serde::Serialize, text: &str) -> Result<()> {
    if let Some(p) = json {
        let mut bytes = serde_json::to_vec_pretty(value)?;
        bytes.push(b'\n');
        crate::report::write_atomic(p, &bytes)?;
        if is_stdout(p) {
            return Ok(());
        }
    }
    crate::output::print(&crate::report::table::replace_controls(text, &['\n']))
}

pub fn main(args: &HistoryArgs) -> Result<i32> {
    match &args.command {
        HistoryCommand::Add { store, files } => add(store, files),
        HistoryCommand::List { store, json } => list(store, json.as_deref()),
        HistoryCommand::Show { store, cases, json } => show(store, cases, json.as_deref()),
        HistoryCommand::Check { judged, json } => check(judged, json.as_deref()),
        HistoryCommand::Report { judged, output } => report(judged, output),
    }
}

fn add(st: &HistoryStore, files: &[PathBuf]) -> Result<i32> {
    if let Some(f) = files
        .iter()
        .find(|f| !store::is_url(&st.history) && Path::new(&st.history) == f.as_path())
    {
        return Ok(usage(&format!(
            "'{}' is the history itself, not a run",
            f.display()
        )));
    }
    let loaded = match crate::readers::load_all(files) {
        Ok(l) => l,
        Err(code) => return Ok(code),
    };
    let mut db = match store::open(&st.history, Mode::Write) {
        Ok(b) => b,
        Err(e) => return Ok(failed(&e)),
    };
    for (path, (_, r)) in files.iter().zip(&loaded) {
        let shown = path.display().to_string();
        let added = store::new_run(r, &shown).and_then(|run| Ok((db.add(&run)?, run)));
        match added {
            Ok((Added::New(id), run)) => eprintln!(
                "mpibench: {shown}: stored as run {id} ({} rows, {})",
                run.rows.len(),
                if run.usable {
                    run.status
                } else {
                    format!("{}, never a series point", run.status)
                }
            ),
            Ok((Added::Known(id), _)) => {
                eprintln!("mpibench: {shown}: stored already, as run {id}")
            }
            Err(e) => return Ok(Outcome::WriteFailed.say(&format!("{e:#}"))),
        }
    }
    Ok(EXIT_OK)
}

/// The runs and rows of a history, or the exit code of why not.
fn read(spec: &str) -> Result<(Vec<store::RunRecord>, Vec<store::Point>), i32> {
    let mut db: Box<dyn Backend> = store::open(spec, Mode::Read).map_err(|e| failed(&e))?;
    // What cannot be read back is unusable input too.
    let unreadable = |e: anyhow::Error| {
        usage(&format!(
            "history {} cannot be read: {e:#}",
            store::shown(spec)
        ))
    };
    let runs = db.runs().map_err(unreadable)?;
    let points = db.points().map_err(unreadable)?;
    Ok((runs, points))
}

/// What `show`, `check` and `report` read, after their outputs are checked
/// and their cases parsed; or the exit code of why not.
type Read = (
    Vec<series::Filter>,
    Vec<store::RunRecord>,
    Vec<store::Point>,
);

fn prepare(st: &HistoryStore, cases: &HistoryCases, outputs: &[Output]) -> Result<Read, i32> {
    check_outputs(outputs, &st.history)?;
    let f = filters(cases)?;
    let (runs, points) = read(&st.history)?;
    Ok((f, runs, points))
}

fn filters(c: &HistoryCases) -> Result<Vec<series::Filter>, i32> {
    c.cases
        .iter()
        .map(|s| series::parse_filter(s).map_err(|m| usage(&m)))
        .collect()
}

fn list(st: &HistoryStore, json: Option<&Path>) -> Result<i32> {
    let outputs: Vec<Output> = json.iter().map(|p| Output::file("--json", p)).collect();
    if let Err(code) = check_outputs(&outputs, &st.history) {
        return Ok(code);
    }
    let (runs, _) = match read(&st.history) {
        Ok(r) => r,
        Err(code) => return Ok(code),
    };
    emit(json, &show::List { runs: &runs }, &show::list_text(&runs))?;
    Ok(EXIT_OK)
}

fn show(st: &HistoryStore, cases: &HistoryCases, json: Option<&Path>) -> Result<i32> {
    let outputs: Vec<Output> = json.iter().map(|p| Output::file("--json", p)).collect();
    let (filters, runs, points) = match prepare(st, cases, &outputs) {
        Ok(x) => x,
        Err(code) => return Ok(code),
    };
    let all = match series::series(&runs, points, &filters) {
        Ok(s) => s,
        Err(m) => return Ok(usage(&m)),
    };
    let shown = show::show(&all);
    emit(json, &shown, &show::show_text(&shown))?;
    Ok(EXIT_OK)
}

fn check(q: &HistoryJudged, json: Option<&Path>) -> Result<i32> {
    let (st, judge) = (&q.store, &q.judge);
    let outputs: Vec<Output> = json.iter().map(|p| Output::file("--json", p)).collect();
    let (filters, runs, points) = match prepare(st, &q.cases, &outputs) {
        Ok(x) => x,
        Err(code) => return Ok(code),
    };
    let all = match series::series(&runs, points, &filters) {
        Ok(s) => s,
        Err(m) => return Ok(usage(&m)),
    };
    let c = check::check(&all, &rules(judge), judge.min_runs);
    emit(json, &c, &check::text(&c))?;
    Ok(c.outcome.say(&c.message))
}

fn report(q: &HistoryJudged, out: &Path) -> Result<i32> {
    let (st, judge) = (&q.store, &q.judge);
    let (filters, runs, points) = match prepare(st, &q.cases, &[Output::file("-o", out)]) {
        Ok(x) => x,
        Err(code) => return Ok(code),
    };
    let all = match series::series(&runs, points, &filters) {
        Ok(s) => s,
        Err(m) => return Ok(usage(&m)),
    };
    let r = rules(judge);
    let fits: Vec<_> = all
        .iter()
        .map(|s| check::fit_series(s, &r, judge.min_runs))
        .collect();
    let c = check::check(&all, &r, judge.min_runs);
    let page = report::render(&store::shown(&st.history), &runs, &all, &fits, &c, &r)?;
    crate::report::write_atomic(out, page.as_bytes())?;
    if !is_stdout(out) {
        eprintln!(
            "mpibench: wrote {} ({} KiB, {} figures)",
            out.display(),
            page.len().div_ceil(1024),
            page.matches("<figure").count()
        );
    }
    Ok(EXIT_OK)
}

/// Keeps a run's final report in its `--history` (`output` calls it once).
struct Keep {
    spec: String,
    source: String,
}

impl crate::output::Keeper for Keep {
    fn keep(&mut self, r: &Report) -> Result<()> {
        let run = store::new_run(r, &self.source)?;
        store::open(&self.spec, Mode::Write)?.add(&run)?;
        Ok(())
    }
}

/// The keeper of a run's `--history` (`json`: the run's JSON file, named
/// as where the run came from).
pub fn keeper(spec: Option<&str>, json: Option<&Path>) -> Option<Box<dyn crate::output::Keeper>> {
    let spec = spec?;
    Some(Box::new(Keep {
        spec: spec.to_string(),
        source: json.map_or("run".to_string(), |p| p.display().to_string()),
    }))
}

/// Before a run: whether its `--history` can keep it (a usage error
/// otherwise), and that no output of the run is the history file.
pub fn probe(spec: &str, outputs: &[Output]) -> Result<(), String> {
    crate::files::validate(outputs, &history_input(spec))?;
    store::probe(spec).map_err(|e| format!("{e:#}"))
}
