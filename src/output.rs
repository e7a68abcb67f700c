//! The run's output: which report outputs rank 0 writes (JSON, CSV, HTML),
//! and when. The files themselves go through the safe writer (`files`).
//!
//! Rank 0 registers its report outputs here ([`init`]); [`save`] rewrites
//! the replaced files after each benchmark, [`finish`] writes the special
//! files and stdout once at the end, and [`interrupt`] (from the signal
//! thread) or [`agree`] (after a failed write) write the last report with
//! status "interrupted" or "aborted". One lock serialises them, so that an
//! interruption never interleaves with a regular save and nothing is written
//! after it.
//!
//! A [`Keeper`] (the run's `--history`, built by the layer above) gets the
//! final report once: at [`finish`], before stdout and the special files
//! (a failure there is the run's failed write), or, when the run ends
//! otherwise, with its ending stamped (an aborted run is kept as aborted).

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use anyhow::{Context, Result};

use crate::files::{self, resolve, write_stdout, write_whole, StdoutClosed, Target};
use crate::outcome::Outcome;
use crate::report::view::{PartsOf, ReportParts};
use crate::report::{self, csv::Csv, json::Json};
use crate::results::Report;

/// A report format.
#[derive(Debug, Clone, Copy)]
pub enum Format {
    Json,
    Csv,
    /// The self-contained HTML report (`--report`).
    Html,
}

struct Sink {
    path: PathBuf,
    format: Format,
    /// Written for the last time (special files and stdout get one write).
    done: bool,
}

/// Where a run's last report is kept beyond its files (`--history`): given
/// to [`init`] by the layer that knows the store.
pub trait Keeper: Send {
    /// Keeps the run's final report (called once).
    fn keep(&mut self, report: &Report) -> Result<()>;
}

#[derive(Default)]
struct State {
    sinks: Vec<Sink>,
    /// The last report saved, for [`finish`] and an interruption.
    last: Option<Report>,
    /// Set once the run's outputs are final (all written by [`finish`], or
    /// the interrupted or aborted report written): nothing follows.
    closed: bool,
    /// An ending that came before the first save (a stop request right
    /// after the header went out): the first save writes it and closes.
    pending: Option<Outcome>,
    /// The suites' parts of the HTML report (given by [`init`]).
    parts: Option<PartsOf>,
    /// The history that keeps the final report (taken when used).
    keeper: Option<Box<dyn Keeper>>,
}

static STATE: Mutex<Option<State>> = Mutex::new(None);

fn state() -> std::sync::MutexGuard<'static, Option<State>> {
    STATE.lock().unwrap_or_else(|e| e.into_inner())
}

/// Rank 0: the report outputs of this run, the suites' parts of its HTML
/// report (`parts`) and the history that keeps its final report.
pub fn init(outputs: &[(Option<&Path>, Format)], parts: PartsOf, keeper: Option<Box<dyn Keeper>>) {
    let mut g = state();
    let pending = g.take().and_then(|s| s.pending);
    *g = Some(State {
        pending,
        parts: Some(parts),
        keeper,
        sinks: outputs
            .iter()
            .filter_map(|(p, f)| {
                p.map(|p| Sink {
                    path: p.to_path_buf(),
                    format: *f,
                    done: false,
                })
            })
            .collect(),
        ..State::default()
    });
}

fn render(format: Format, r: &Report, parts: Option<PartsOf>) -> Result<Vec<u8>> {
    let e: &dyn report::Exporter = match format {
        Format::Json => &Json,
        Format::Csv => &Csv,
        Format::Html => {
            let parts = parts.unwrap_or(|_| ReportParts::NONE);
            return Ok(report::html::render(std::slice::from_ref(r), parts)?.into_bytes());
        }
    };
    e.render(r)
}

/// Which outputs a write goes to.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Which {
    /// The replaced files (after each benchmark).
    Replaced,
    /// Stdout and the special files (once, at the end).
    InPlace,
    /// Both, except the special files and stdout already written: the end
    /// after an interruption or a failure.
    Rest,
}

/// Writes `report` to the outputs `which` selects; the first error is
/// returned. Stdout and special files are written once (marked done), the
/// JSON last among them, and at the end ([`Which::InPlace`]) none after a
/// failure: the JSON carries the status, which must not say "ok" when
/// another output failed. Otherwise every output is attempted.
fn write_all(st: &mut State, report: &Report, which: Which) -> Result<()> {
    let mut first = Ok(());
    let parts = st.parts;
    let mut order: Vec<usize> = (0..st.sinks.len()).collect();
    order.sort_by_key(|&i| matches!(st.sinks[i].format, Format::Json));
    for i in order {
        if which == Which::InPlace && first.is_err() {
            break;
        }
        let s = &mut st.sinks[i];
        let r = resolve(&s.path)
            .with_context(|| format!("cannot write '{}'", s.path.display()))
            .and_then(|t| {
                let replaced = matches!(t, Target::Replace(_));
                let now = match which {
                    Which::Replaced => replaced,
                    Which::InPlace => !replaced,
                    Which::Rest => replaced || !s.done,
                };
                if !now {
                    return Ok(());
                }
                if !replaced {
                    s.done = true;
                }
                write_whole(&t, &s.path, &render(s.format, report, parts)?)
            });
        if first.is_ok() {
            first = r;
        }
    }
    first
}

/// Rank 0: saves the report to the replaced files (stdout and special files
/// wait for [`finish`]); after the end or an interruption, nothing.
pub fn save(report: &Report) -> Result<()> {
    let mut g = state();
    let Some(st) = g.as_mut() else {
        return Ok(());
    };
    if st.closed {
        return Ok(());
    }
    st.last = Some(report.clone());
    if let Some(o) = st.pending {
        // The run was ended before its first save: this is its last.
        return end_with(st, o).map_or(Ok(()), |r| r.map(drop));
    }
    write_all(st, report, Which::Replaced)
}

/// Rank 0, at the end, after the last [`save`] and every other output:
/// writes the last report to stdout and the special files. Only when all
/// of them succeed are the outputs final; after a failure [`agree`] marks
/// the report "aborted" where it still can.
pub fn finish() -> Result<()> {
    let mut g = state();
    let Some(st) = g.as_mut() else {
        return Ok(());
    };
    if st.closed {
        return Ok(());
    }
    let Some(r) = st.last.clone() else {
        return Ok(());
    };
    // The history first: its failure is the run's failed write, and the
    // outputs not yet written then say "aborted".
    if let Some(mut k) = st.keeper.take() {
        k.keep(&r)?;
    }
    write_all(st, &r, Which::InPlace)?;
    st.closed = true;
    Ok(())
}

/// Ends the outputs with the last report marked with `outcome` (status,
/// reason, signal): the replaced files and every special file or stdout not
/// yet written. None when they are final already or nothing was saved.
fn end_with(st: &mut State, outcome: Outcome) -> Option<Result<usize>> {
    if st.closed {
        return None;
    }
    let Some(mut r) = st.last.clone() else {
        // Nothing saved yet: the first save (if any) writes this ending.
        st.pending.get_or_insert(outcome);
        return None;
    };
    st.closed = true;
    files::ending_write();
    r.complete = false;
    outcome.stamp(&mut r);
    let n = r.results.len();
    let written = write_all(st, &r, Which::Rest).map(|_| n);
    // Best effort: the run is kept as it ended, never as a baseline.
    if let Some(mut k) = st.keeper.take() {
        if let Err(e) = k.keep(&r) {
            eprintln!("warning: {e:#}");
        }
    }
    Some(written)
}

/// Rank 0, from an ending path (a signal, the watchdog, a failed peer):
/// writes the last saved report marked with `outcome` to every output
/// (stdout and special files included: this is the end). Returns how many
/// results it holds, or None without a report or when the outputs are
/// final already.
pub fn interrupt(outcome: Outcome) -> Option<Result<usize>> {
    let mut g = state();
    match g.as_mut() {
        Some(st) => end_with(st, outcome),
        None => {
            // Before `init`: the first save writes this ending.
            *g = Some(State {
                pending: Some(outcome),
                ..State::default()
            });
            None
        }
    }
}

/// Rank 0: prints to stdout (tables); the error tells a closed pipe apart.
pub fn print(text: &str) -> Result<()> {
    write_stdout(text.as_bytes())
}

/// Every rank, after each step: agrees on rank 0's write failure, if any.
/// Returns the exit code all ranks end with: 128 + SIGPIPE, quietly, when
/// stdout was closed (`| head`); 3 after one line naming the file and the
/// OS error otherwise. Rank 0 marks the report "interrupted" or "aborted"
/// in the outputs that still work.
pub fn agree(world: &crate::comm::Comm, failure: Option<anyhow::Error>) -> Option<i32> {
    let mine = match &failure {
        None => 0.0,
        Some(e) if e.is::<StdoutClosed>() => 1.0,
        Some(_) => 2.0,
    };
    let worst = world.allreduce_max(mine);
    if worst == 0.0 {
        return None;
    }
    let quiet = worst < 2.0;
    let outcome = if quiet {
        Outcome::Interrupted {
            signal: libc::SIGPIPE,
        }
    } else {
        Outcome::WriteFailed
    };
    if let Some(e) = failure.filter(|_| !quiet) {
        outcome.say(&format!("{e:#}"));
    }
    if world.rank == 0 {
        if let Some(st) = state().as_mut() {
            // Best effort: the output that failed will likely fail again.
            let _ = end_with(st, outcome);
        }
    }
    Some(outcome.exit_code())
}

/// The first report output that is a file (for messages).
pub fn first_file() -> Option<PathBuf> {
    state()
        .as_ref()?
        .sinks
        .iter()
        .find(|s| !matches!(resolve(&s.path), Ok(Target::Stdout)))
        .map(|s| s.path.clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mknod(p: &Path, kind: libc::mode_t, (major, minor): (u32, u32)) -> bool {
        let c = std::ffi::CString::new(p.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: mknod(2) on a NUL-terminated path in a temporary directory.
        let ok = unsafe { libc::mknod(c.as_ptr(), kind | 0o600, libc::makedev(major, minor)) } == 0;
        if !ok {
            eprintln!("skipped the device node part: mknod needs root");
        }
        ok
    }

    #[test]
    fn a_failure_at_the_end_leaves_aborted_not_ok() {
        let d = tempfile::tempdir().unwrap();
        let json = d.path().join("o.json");
        let csv = d.path().join("full");
        // A CSV output that fails at the end (written in place once): a
        // copy of /dev/full of our own.
        if !mknod(&csv, libc::S_IFCHR, (1, 7)) {
            return;
        }
        init(
            &[(Some(&json), Format::Json), (Some(&csv), Format::Csv)],
            |_| ReportParts::NONE,
            None,
        );
        let mut r = crate::report::table::fixtures::report(2);
        r.complete = true;
        r.status = Some("ok".into());
        save(&r).unwrap();
        let status = || {
            let v: serde_json::Value =
                serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
            (
                v["status"].as_str().unwrap().to_string(),
                v["complete"].as_bool(),
            )
        };
        assert_eq!(status(), ("ok".to_string(), Some(true)));
        assert!(finish().is_err());
        // What `agree` does on rank 0 after the failure.
        assert!(end_with(state().as_mut().unwrap(), Outcome::WriteFailed).is_some());
        assert_eq!(status(), ("aborted".to_string(), Some(false)));
        let reason = serde_json::from_slice::<serde_json::Value>(&std::fs::read(&json).unwrap())
            .unwrap()["reason"]
            .clone();
        assert_eq!(reason, "write_failed");
        let sigint = Outcome::Interrupted {
            signal: libc::SIGINT,
        };
        assert!(interrupt(sigint).is_none(), "final");
        assert_eq!(status().0, "aborted");
        let names: Vec<_> = std::fs::read_dir(d.path()).unwrap().collect();
        assert_eq!(names.len(), 2, "no temporary file: {names:?}");
        *state() = None;
    }
}
