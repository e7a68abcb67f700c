//! How a run ends: one [`Outcome`] decides the exit code, the one stderr
//! line and the JSON `status` and `reason`, together. Every ending path
//! (the normal end, the supervisor, the watchdog, the stall limit, the
//! signal handlers, a failed write) names its outcome here; nothing else
//! picks an exit code or a status word.
//!
//! | outcome | exit | stderr line starts with | status | reason |
//! |---|---|---|---|---|
//! | ok | 0 | (none) | ok | ok |
//! | validation errors | 1 | `error: validation found` | validation_errors | validation_errors |
//! | usage error | 2 | `error:` | (no JSON) | usage |
//! | timeout | 3 | `error: timeout:` | aborted | timeout |
//! | stall | 3 | `error: stalled:` | aborted | stall |
//! | rank died | 3 | `error: rank N died (SIG…)` / `error: rank N: SIG…` | aborted | rank_died (+ signal) |
//! | failed write | 3 | `error: cannot write` | aborted | write_failed |
//! | other failure | 3 | `error:` | aborted | error |
//! | launcher failed | 4 | `error: the launcher` | aborted | launcher_failed |
//! | MPI could not start | 5 | `error:` | aborted | mpi_start_failed |
//! | outliers | 6 | `error: the bandwidth matrix shows` | ok | outliers |
//! | judged nothing (`history check`) | 7 | `error: history check judged nothing:` | nothing_judged | nothing_judged |
//! | a regression (`history check`) | 8 | `error: history check found` | regression | regression |
//! | interrupted | 128+N | `mpibench: interrupted by SIG…` (141: none) | interrupted | interrupted (+ interrupted_by) |

use std::sync::atomic::{AtomicBool, Ordering};

pub const EXIT_OK: i32 = 0;
pub const EXIT_VALIDATION: i32 = 1;
pub const EXIT_USAGE: i32 = 2;
pub const EXIT_ABORTED: i32 = 3;
pub const EXIT_LAUNCHER: i32 = 4;
pub const EXIT_MPI_START: i32 = 5;
pub const EXIT_OUTLIERS: i32 = 6;
/// A gate with nothing to judge (`compare --fail-if-slower`, `history check`).
pub const EXIT_NOTHING_JUDGED: i32 = 7;
/// `history check` found a regression.
pub const EXIT_REGRESSION: i32 = 8;

/// Pseudo-signal for "the self-launching parent died" (its exit code is
/// SIGHUP's: what ran it went away; nobody waits for it anyway).
pub const PARENT_DIED: i32 = -1;

/// The name of signal `sig` (or of [`PARENT_DIED`]) in lines and JSON.
pub fn signal_name(sig: i32) -> &'static str {
    match sig {
        libc::SIGHUP => "SIGHUP",
        libc::SIGINT => "SIGINT",
        libc::SIGQUIT => "SIGQUIT",
        libc::SIGILL => "SIGILL",
        libc::SIGABRT => "SIGABRT",
        libc::SIGBUS => "SIGBUS",
        libc::SIGFPE => "SIGFPE",
        libc::SIGKILL => "SIGKILL",
        libc::SIGSEGV => "SIGSEGV",
        libc::SIGPIPE => "SIGPIPE",
        libc::SIGTERM => "SIGTERM",
        PARENT_DIED => "parent-exit",
        _ => "a signal",
    }
}

/// Signal number of a name such as "SIGTERM" (the parent's stop message).
pub fn signal_number(name: &str) -> Option<i32> {
    [
        libc::SIGHUP,
        libc::SIGINT,
        libc::SIGTERM,
        libc::SIGPIPE,
        libc::SIGKILL,
    ]
    .into_iter()
    .find(|&s| signal_name(s) == name)
}

/// Exit code of a run ended by `sig` (the shell's convention).
pub fn exit_code(sig: i32) -> i32 {
    128 + if sig == PARENT_DIED {
        libc::SIGHUP
    } else {
        sig
    }
}

/// The one way a run ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    Ok,
    ValidationErrors,
    Usage,
    /// `--timeout` expired.
    Timeout,
    /// The stall limit ended the run.
    Stall,
    /// A rank ended by a signal it could not handle (SIGKILL, the OOM
    /// killer) or crashed (SIGSEGV, ...): `rank` when known.
    RankDied {
        rank: Option<u32>,
        signal: i32,
    },
    LauncherFailed,
    MpiStartFailed,
    /// A signal (or [`PARENT_DIED`]) stopped the run; SIGPIPE: stdout closed.
    Interrupted {
        signal: i32,
    },
    /// An output (a file, stdout) could not be written.
    WriteFailed,
    /// `--fail-on-outlier` and the mpiGraph matrix named outliers.
    Outliers,
    /// `history check` could judge no case (too few comparable runs).
    NothingJudged,
    /// `history check` found a step to slower beyond the noise.
    Regression,
    /// Any other failure: an MPI error, a panic, a rank that failed to allocate.
    Error,
}

impl Outcome {
    /// Every outcome, once (for the tests and the documentation).
    #[cfg(test)]
    pub const ALL: [Outcome; 15] = [
        Outcome::Ok,
        Outcome::ValidationErrors,
        Outcome::Usage,
        Outcome::Timeout,
        Outcome::Stall,
        Outcome::RankDied {
            rank: Some(1),
            signal: libc::SIGKILL,
        },
        Outcome::LauncherFailed,
        Outcome::MpiStartFailed,
        Outcome::Interrupted {
            signal: libc::SIGINT,
        },
        Outcome::Interrupted {
            signal: libc::SIGPIPE,
        },
        Outcome::WriteFailed,
        Outcome::Outliers,
        Outcome::NothingJudged,
        Outcome::Regression,
        Outcome::Error,
    ];

    pub fn exit_code(&self) -> i32 {
        match self {
            Outcome::Ok => EXIT_OK,
            Outcome::ValidationErrors => EXIT_VALIDATION,
            Outcome::Usage => EXIT_USAGE,
            Outcome::Timeout
            | Outcome::Stall
            | Outcome::RankDied { .. }
            | Outcome::WriteFailed
            | Outcome::Error => EXIT_ABORTED,
            Outcome::LauncherFailed => EXIT_LAUNCHER,
            Outcome::MpiStartFailed => EXIT_MPI_START,
            Outcome::Outliers => EXIT_OUTLIERS,
            Outcome::NothingJudged => EXIT_NOTHING_JUDGED,
            Outcome::Regression => EXIT_REGRESSION,
            Outcome::Interrupted { signal } => exit_code(*signal),
        }
    }

    /// The JSON `status` word (None: a usage error writes no JSON).
    pub fn status(&self) -> Option<&'static str> {
        Some(match self {
            Outcome::Ok | Outcome::Outliers => "ok",
            Outcome::ValidationErrors => "validation_errors",
            Outcome::Usage => return None,
            Outcome::Interrupted { .. } => "interrupted",
            Outcome::NothingJudged => "nothing_judged",
            Outcome::Regression => "regression",
            _ => "aborted",
        })
    }

    /// The JSON `reason` word.
    pub fn reason(&self) -> &'static str {
        match self {
            Outcome::Ok => "ok",
            Outcome::ValidationErrors => "validation_errors",
            Outcome::Usage => "usage",
            Outcome::Timeout => "timeout",
            Outcome::Stall => "stall",
            Outcome::RankDied { .. } => "rank_died",
            Outcome::LauncherFailed => "launcher_failed",
            Outcome::MpiStartFailed => "mpi_start_failed",
            Outcome::Interrupted { .. } => "interrupted",
            Outcome::WriteFailed => "write_failed",
            Outcome::Outliers => "outliers",
            Outcome::NothingJudged => "nothing_judged",
            Outcome::Regression => "regression",
            Outcome::Error => "error",
        }
    }

    /// JSON `interrupted_by`: the signal that interrupted the run.
    pub fn interrupted_by(&self) -> Option<&'static str> {
        match self {
            Outcome::Interrupted { signal } => Some(signal_name(*signal)),
            _ => None,
        }
    }

    /// JSON `signal`: the signal a rank died of.
    pub fn signal(&self) -> Option<&'static str> {
        match self {
            Outcome::RankDied { signal, .. } if *signal > 0 => Some(signal_name(*signal)),
            _ => None,
        }
    }

    /// Marks a report with this outcome (status, reason, signal).
    pub fn stamp(&self, r: &mut crate::results::Report) {
        r.status = self.status().map(str::to_string);
        r.reason = Some(self.reason().to_string());
        r.interrupted_by = self.interrupted_by().map(str::to_string);
        r.signal = self.signal().map(str::to_string);
    }

    /// The one stderr line, from what the ending path knows (`detail`: the
    /// benchmark, the file and OS error, what the JSON holds...). None
    /// where the outcome is quiet: ok, and a closed stdout pipe.
    pub fn line(&self, detail: &str) -> Option<String> {
        let d = |sep: &str| {
            if detail.is_empty() {
                String::new()
            } else {
                format!("{sep}{detail}")
            }
        };
        Some(match self {
            Outcome::Ok => return None,
            Outcome::Interrupted { signal } if *signal == libc::SIGPIPE => return None,
            Outcome::Interrupted { signal } => format!(
                "mpibench: interrupted by {}{}; exit code {}",
                signal_name(*signal),
                d(""),
                self.exit_code()
            ),
            Outcome::Timeout => format!("error: timeout: {detail}"),
            Outcome::Stall => format!("error: stalled: {detail}"),
            Outcome::NothingJudged => format!("error: history check judged nothing: {detail}"),
            Outcome::Regression => format!("error: history check found {detail}"),
            Outcome::RankDied { rank, .. } => format!(
                "error: rank {} died{}{}",
                rank.map_or("?".to_string(), |r| r.to_string()),
                self.signal().map_or(String::new(), |s| format!(" ({s})")),
                d(""),
            ),
            _ => format!("error: {detail}"),
        })
    }

    /// Prints [`Outcome::line`] (when not quiet) and returns the exit code.
    pub fn say(&self, detail: &str) -> i32 {
        if let Some(l) = self.line(detail) {
            eprintln!("{l}");
        }
        self.exit_code()
    }
}

/// This process has started its ending (a timeout, a stall, a failure, a
/// stop request): other ending paths stay quiet.
static ENDING: AtomicBool = AtomicBool::new(false);

/// Claims the ending of this process: true for the first caller only.
pub fn claim() -> bool {
    !ENDING.swap(true, Ordering::SeqCst)
}

/// True once some path claimed the ending.
pub fn claimed() -> bool {
    ENDING.load(Ordering::SeqCst)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The three tell one story: exit code, one line, status and reason.
    #[test]
    fn every_outcome_agrees_with_itself() {
        for o in Outcome::ALL {
            let code = o.exit_code();
            let line = o.line("detail");
            let status = o.status();
            match code {
                0 => assert_eq!(line, None, "{o:?}"),
                141 => assert_eq!(line, None, "{o:?}: a closed pipe is quiet"),
                _ => {
                    let l = line.unwrap_or_else(|| panic!("{o:?} says nothing"));
                    assert!(!l.contains('\n'), "{o:?}: one line");
                    assert!(
                        l.starts_with("error: ") || l.starts_with("mpibench: interrupted by "),
                        "{o:?}: {l}"
                    );
                }
            }
            match status {
                None => assert_eq!(code, EXIT_USAGE, "{o:?}: only usage errors write no JSON"),
                Some("ok") => assert!(code == 0 || code == EXIT_OUTLIERS, "{o:?}"),
                Some("validation_errors") => assert_eq!(code, EXIT_VALIDATION),
                Some("interrupted") => {
                    assert!(code > 128, "{o:?}");
                    assert!(o.interrupted_by().is_some());
                    assert_eq!(o.reason(), "interrupted");
                }
                Some("aborted") => assert!((3..=5).contains(&code), "{o:?}: {code}"),
                Some("nothing_judged") => assert_eq!(code, EXIT_NOTHING_JUDGED),
                Some("regression") => assert_eq!(code, EXIT_REGRESSION),
                Some(s) => panic!("{o:?}: unknown status {s}"),
            }
            // The reason alone gives the exit code back (but for the signal).
            if o.signal().is_some() {
                assert_eq!(o.reason(), "rank_died", "{o:?}");
            }
            if !matches!(o, Outcome::RankDied { .. } | Outcome::Interrupted { .. }) {
                let back = Outcome::ALL
                    .iter()
                    .find(|p| p.reason() == o.reason())
                    .unwrap();
                assert_eq!(back.exit_code(), code);
            }
        }
        let reasons: std::collections::BTreeSet<_> =
            Outcome::ALL.iter().map(Outcome::reason).collect();
        assert_eq!(reasons.len(), 14, "every reason word: {reasons:?}");
    }

    #[test]
    fn the_lines_name_what_happened() {
        let died = Outcome::RankDied {
            rank: Some(1),
            signal: libc::SIGKILL,
        };
        assert_eq!(
            died.line("").unwrap(),
            "error: rank 1 died (SIGKILL)",
            "the OOM killer's signal"
        );
        assert_eq!(died.signal(), Some("SIGKILL"));
        assert_eq!(died.exit_code(), 3);
        let int = Outcome::Interrupted {
            signal: libc::SIGTERM,
        };
        assert_eq!(
            int.line("").unwrap(),
            "mpibench: interrupted by SIGTERM; exit code 143"
        );
        assert_eq!(int.interrupted_by(), Some("SIGTERM"));
        let gone = Outcome::Interrupted {
            signal: PARENT_DIED,
        };
        assert_eq!(gone.exit_code(), 129);
        assert_eq!(gone.interrupted_by(), Some("parent-exit"));
    }
}
