//! Warnings: what the reader must know about a run or a result, in plain
//! words, with what to do about it.

use std::fmt;

use super::labels::{params_label, size_label};
use super::rows::{chosen_params, headline, loop_timed};
use super::run::Run;
use crate::results::{BenchResult, Row};

/// Something the reader must know, in plain words, with what to do about it.
#[derive(Debug, Clone, PartialEq)]
pub enum Warning {
    Incomplete {
        run: String,
        status: String,
    },
    Aborted {
        run: String,
    },
    ValidationStatus {
        run: String,
    },
    /// More ranks than processors on some machine (the context says so).
    SharedCores {
        run: String,
        how: String,
    },
    Skipped {
        run: String,
        processes: usize,
        reason: String,
    },
    Note {
        run: String,
        processes: usize,
        note: String,
    },
    Validation {
        run: String,
        processes: usize,
        rows: usize,
        errors: u64,
    },
    Invalid {
        run: String,
        processes: usize,
        samples: u64,
    },
    StoppedOnBound {
        run: String,
        processes: usize,
        rows: usize,
    },
    BelowResolution {
        run: String,
        processes: usize,
        sizes: String,
    },
    NoValidSample {
        run: String,
        processes: usize,
        rows: usize,
    },
    RowNote {
        run: String,
        processes: usize,
        bytes: usize,
        note: String,
    },
    /// `--launches`: rows whose between-launch spread dominates.
    LaunchSpread {
        run: String,
        processes: usize,
        sizes: String,
    },
}

/// "1 process", "4 processes".
fn procs(n: usize) -> String {
    if n == 1 {
        "1 process".to_string()
    } else {
        format!("{n} processes")
    }
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.at() {
            None => self.fmt_run(f),
            Some((run, processes)) => {
                write!(f, "{run}, {}", procs(processes))?;
                self.fmt_result(f)
            }
        }
    }
}

impl Warning {
    /// The run and process count of a warning about one result; None for
    /// a warning about a whole run.
    fn at(&self) -> Option<(&str, usize)> {
        match self {
            Warning::Incomplete { .. }
            | Warning::Aborted { .. }
            | Warning::ValidationStatus { .. }
            | Warning::SharedCores { .. } => None,
            Warning::Skipped { run, processes, .. }
            | Warning::Note { run, processes, .. }
            | Warning::Validation { run, processes, .. }
            | Warning::Invalid { run, processes, .. }
            | Warning::StoppedOnBound { run, processes, .. }
            | Warning::BelowResolution { run, processes, .. }
            | Warning::NoValidSample { run, processes, .. }
            | Warning::RowNote { run, processes, .. }
            | Warning::LaunchSpread { run, processes, .. } => Some((run, *processes)),
        }
    }

    /// A warning about a whole run.
    fn fmt_run(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Warning::Incomplete { run, status } => write!(
                f,
                "Run {run} did not finish (status \"{status}\"): it was killed, timed out or is still going. Only the benchmarks finished before that are shown."
            ),
            Warning::Aborted { run } => write!(
                f,
                "Run {run} was aborted (a rank failed or --timeout expired); see its stderr. The benchmarks finished before that are shown."
            ),
            Warning::ValidationStatus { run } => write!(
                f,
                "Run {run} found validation errors: some transfers delivered wrong data, so the affected timings do not measure a correct transfer."
            ),
            Warning::SharedCores { run, how } => write!(
                f,
                "Run {run}'s ranks shared cores ({how}): time slicing is in every figure, and a comparison or verdict on them judges the scheduler as much as MPI. Run at most one rank per core for figures of the library."
            ),
            _ => Ok(()),
        }
    }

    /// A warning about one result: what follows "{run}, {n} processes".
    fn fmt_result(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Warning::Skipped { reason, .. } => write!(f, ": not run: {reason}."),
            Warning::Note { note, .. } => write!(f, ": {note}"),
            Warning::Validation { rows, errors, .. } => write!(
                f,
                ": {errors} validation errors in {rows} rows: the received data was wrong. Do not trust these timings; rerun with --check --strict to find the rank."
            ),
            Warning::Invalid { samples, .. } => write!(
                f,
                ": {samples} samples started late and were left out of the statistics. If there are many, widen the window (--window-us)."
            ),
            Warning::StoppedOnBound { rows, .. } => write!(
                f,
                ": {rows} rows stopped on a bound (--max-iter or --time) before reaching the --precision target; their CIs are wider than asked."
            ),
            Warning::BelowResolution { sizes, .. } => write!(
                f,
                ": below the clock's resolution at {sizes}: these times are not meaningful; use loop timing or more repetitions."
            ),
            Warning::NoValidSample { rows, .. } => {
                write!(f, ": {rows} rows had no valid sample and are not plotted.")
            }
            Warning::RowNote { bytes, note, .. } => write!(f, ", {bytes} bytes: {note}"),
            Warning::LaunchSpread { sizes, .. } => write!(
                f,
                ": the launches differ by more than one launch's CI is wide at {sizes}: a CI from one launch overstates the precision; quote the between-launch CI, and compare runs with several launches each."
            ),
            _ => Ok(()),
        }
    }
}

/// Warnings about whole runs (status, completeness).
pub fn run_warnings(runs: &[Run]) -> Vec<Warning> {
    let mut w = Vec::new();
    for r in runs {
        let run = format!("{} ({})", r.short, r.label);
        let status = r.report.status.clone().unwrap_or_default();
        match status.as_str() {
            "aborted" => w.push(Warning::Aborted { run }),
            "validation_errors" => w.push(Warning::ValidationStatus { run }),
            _ if !r.report.complete => w.push(Warning::Incomplete {
                run,
                status: if status.is_empty() {
                    "unknown".into()
                } else {
                    status
                },
            }),
            _ => {}
        }
        if let Some(cx) = r.report.context.as_ref().filter(|c| c.oversubscribed) {
            let how: Vec<String> = cx
                .hosts
                .iter()
                .map(|h| format!("{}: {} ranks on {} cores", h.host, h.ranks, h.cores))
                .collect();
            w.push(Warning::SharedCores {
                run: format!("{} ({})", r.short, r.label),
                how: how.join(", "),
            });
        }
    }
    w
}

/// Warnings about each result of a section (`results`: run index, result).
pub(super) fn result_warnings(results: &[(usize, &BenchResult)], runs: &[Run]) -> Vec<Warning> {
    let mut w = Vec::new();
    for &(i, r) in results {
        let run = runs[i].short.clone();
        let processes = r.processes;
        if let Some(reason) = &r.skipped {
            w.push(Warning::Skipped {
                run: run.clone(),
                processes,
                reason: reason.trim_end_matches('.').to_string(),
            });
        }
        if let Some(note) = &r.note {
            w.push(Warning::Note {
                run: run.clone(),
                processes,
                note: note.clone(),
            });
        }
        row_warnings(&mut w, &run, r, loop_timed(runs[i].report, r));
        for x in &r.rows {
            if let Some(note) = &x.note {
                w.push(Warning::RowNote {
                    run: run.clone(),
                    processes,
                    bytes: x.bytes,
                    note: note.clone(),
                });
            }
        }
    }
    w
}

/// The warnings a result's rows add up to (`lt`: loop timed): validation
/// errors, late samples, bounds, resolution, launch spread, rows without a
/// valid sample.
fn row_warnings(w: &mut Vec<Warning>, run: &str, r: &BenchResult, lt: bool) {
    let (run, processes) = (run.to_string(), r.processes);
    let rows = &r.rows;
    let bad: Vec<&Row> = rows.iter().filter(|x| x.errors.unwrap_or(0) > 0).collect();
    if !bad.is_empty() {
        w.push(Warning::Validation {
            run: run.clone(),
            processes,
            rows: bad.len(),
            errors: bad.iter().filter_map(|x| x.errors).sum(),
        });
    }
    let invalid: u64 = rows.iter().filter_map(|x| x.invalid).sum();
    if invalid > 0 {
        w.push(Warning::Invalid {
            run: run.clone(),
            processes,
            samples: invalid,
        });
    }
    let stopped = rows
        .iter()
        .filter(|x| x.stopped_on_bound == Some(true))
        .count();
    if stopped > 0 {
        w.push(Warning::StoppedOnBound {
            run: run.clone(),
            processes,
            rows: stopped,
        });
    }
    if let Some(sizes) = names_of(r, |x| x.below_resolution) {
        w.push(Warning::BelowResolution {
            run: run.clone(),
            processes,
            sizes,
        });
    }
    if let Some(sizes) = names_of(r, |x| x.launch_spread_dominates) {
        w.push(Warning::LaunchSpread {
            run: run.clone(),
            processes,
            sizes,
        });
    }
    if !r.measures_instruments() {
        let none = rows
            .iter()
            .filter(|x| x.rank.is_none() && headline(lt, x).is_none())
            .count();
        if none > 0 {
            w.push(Warning::NoValidSample {
                run,
                processes,
                rows: none,
            });
        }
    }
}

/// The names of the rows of `r` that `flag` marks, "; "-separated; None
/// when there is none.
fn names_of(r: &BenchResult, flag: impl Fn(&Row) -> Option<bool>) -> Option<String> {
    let names: Vec<String> = r
        .rows
        .iter()
        .filter(|x| flag(x) == Some(true))
        .map(|x| row_name(r, x))
        .collect();
    (!names.is_empty()).then(|| names.join("; "))
}

/// "1 KiB" or "1 KiB, n=10".
fn row_name(res: &BenchResult, r: &Row) -> String {
    let p = params_label(&chosen_params(res, r), &[]);
    if p.is_empty() {
        size_label(r.bytes)
    } else {
        format!("{}, {p}", size_label(r.bytes))
    }
}

#[cfg(test)]
mod tests {
    use crate::report::plot::tests::{report, result, row};
    use crate::report::view::{runs, sections};

    #[test]
    fn rows_whose_launches_differ_are_warned_about() {
        let mut wide = row(8, 1.0);
        wide.launch_spread_dominates = Some(true);
        let mut narrow = row(16, 1.0);
        narrow.launch_spread_dominates = Some(false);
        let r = report(
            "Open MPI",
            "per-call",
            vec![result("imb", "PingPong", 2, vec![wide, narrow])],
        );
        let runs = runs(vec![("r.json".to_string(), &r)]);
        let w: Vec<String> = sections(&runs, crate::plugin::lookup::report_parts)
            .iter()
            .flat_map(|s| s.warnings.iter().map(|w| w.to_string()))
            .collect();
        assert_eq!(
            w.iter()
                .filter(|w| w.contains("the launches differ"))
                .count(),
            1
        );
        assert!(
            w.iter().any(|w| w.contains("at 8 B") || w.contains("at 8")),
            "{w:?}"
        );
    }
}
