//! Where a run's wall time goes, by phase, on rank 0 (`MPIBENCH_PHASES=1`,
//! for `bench/time-vs-imb.sh` and whoever asks why a run takes what it
//! takes). Each phase is a span around the engine's and the front end's
//! own steps, never inside a timed region: the timed phase is the kernel's
//! batch as a whole, read around `Kernel::measure`, whose clock pairs are
//! its own. Off (the default) a span is one relaxed load.
//!
//! The line, after `MPI_Finalize`, on stderr:
//! `phases (rank 0): start 0.2100 s, plan 0.0040 s, ..., other 0.0200 s; 6.7000 s in all`.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// The variable that turns the profile on ("1"; "0" or empty: off).
pub const ENV: &str = "MPIBENCH_PHASES";

/// A step of a run, outside the timed loops but for `Timed`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// From the process's start to `MPI_Init`'s return.
    Start,
    /// The plan agreed, the context gathered, the outputs opened.
    Plan,
    /// Communicators, kernels and their buffers, per process count and point.
    Setup,
    /// Untimed repetitions (the point's warm-up, IMB's warm-up at the largest size).
    WarmUp,
    /// Agreements: a failure to build a kernel, the pace, the calibration.
    Agree,
    /// Waits on the other ranks: the end-of-point barrier, and outside the
    /// group of a point its announced time.
    Barrier,
    /// The kernels' timed batches.
    Timed,
    /// The batches' figures combined over the ranks.
    Combine,
    /// The points' records gathered and the result assembled.
    Gather,
    /// Tables, progress and the files, and the agreement on their outcome.
    Output,
    /// `MPI_Finalize`.
    Finalize,
}

const PHASES: [(Phase, &str); 11] = [
    (Phase::Start, "start"),
    (Phase::Plan, "plan"),
    (Phase::Setup, "setup"),
    (Phase::WarmUp, "warm-up"),
    (Phase::Agree, "agree"),
    (Phase::Barrier, "barrier"),
    (Phase::Timed, "timed"),
    (Phase::Combine, "combine"),
    (Phase::Gather, "gather"),
    (Phase::Output, "output"),
    (Phase::Finalize, "finalize"),
];

static ON: AtomicBool = AtomicBool::new(false);
static NANOS: [AtomicU64; PHASES.len()] = [const { AtomicU64::new(0) }; PHASES.len()];
static BEGAN: OnceLock<Instant> = OnceLock::new();

/// At the process's start: the clock of "in all", and whether `ENV` asks
/// for the profile (the value is checked in `environ`).
pub fn begin() {
    BEGAN.get_or_init(Instant::now);
    let on = std::env::var(ENV).is_ok_and(|v| v.trim() == "1");
    ON.store(on, Ordering::Relaxed);
}

/// Whether the profile is on.
pub fn on() -> bool {
    ON.load(Ordering::Relaxed)
}

/// A phase's time so far, from the process's start: `Start` ends here.
pub fn started() {
    if on() {
        if let Some(b) = BEGAN.get() {
            add(Phase::Start, b.elapsed());
        }
    }
}

fn add(p: Phase, d: Duration) {
    let i = PHASES.iter().position(|(q, _)| *q == p).unwrap_or(0);
    NANOS[i].fetch_add(d.as_nanos() as u64, Ordering::Relaxed);
}

/// The time until it is dropped counts to `p` (when the profile is on).
pub struct Span {
    phase: Phase,
    t0: Option<Instant>,
}

impl Drop for Span {
    fn drop(&mut self) {
        if let Some(t0) = self.t0 {
            add(self.phase, t0.elapsed());
        }
    }
}

/// A span of phase `p` from now to its drop.
pub fn span(p: Phase) -> Span {
    Span {
        phase: p,
        t0: on().then(Instant::now),
    }
}

/// The line of the profile: each phase, the rest as "other", and the time
/// since the start; `None` when the profile is off.
pub fn line() -> Option<String> {
    if !on() {
        return None;
    }
    let all = BEGAN.get().map_or(0.0, |b| b.elapsed().as_secs_f64());
    let each: Vec<f64> = NANOS
        .iter()
        .map(|n| n.load(Ordering::Relaxed) as f64 * 1e-9)
        .collect();
    Some(format_line(&each, all))
}

fn format_line(each: &[f64], all: f64) -> String {
    let mut parts: Vec<String> = PHASES
        .iter()
        .zip(each)
        .map(|((_, name), s)| format!("{name} {s:.4} s"))
        .collect();
    let other = (all - each.iter().sum::<f64>()).max(0.0);
    parts.push(format!("other {other:.4} s"));
    format!("phases (rank 0): {}; {all:.4} s in all", parts.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_line_names_every_phase_and_the_rest() {
        let each = [0.2, 0.0, 0.1, 1.0, 0.2, 0.1, 5.0, 0.1, 0.05, 0.02, 0.03];
        let l = format_line(&each, 7.0);
        assert!(
            l.starts_with(
                "phases (rank 0): start 0.2000 s, plan 0.0000 s, setup 0.1000 s, warm-up 1.0000 s"
            ),
            "{l}"
        );
        assert!(l.contains("timed 5.0000 s"), "{l}");
        assert!(
            l.ends_with("finalize 0.0300 s, other 0.2000 s; 7.0000 s in all"),
            "{l}"
        );
        // Spans that overran the clock of "in all" leave no negative rest.
        assert!(format_line(&each, 1.0).contains("other 0.0000 s"));
    }

    #[test]
    fn a_phase_adds_up_in_its_own_slot() {
        let i = PHASES
            .iter()
            .position(|(q, _)| *q == Phase::Finalize)
            .unwrap();
        let before = NANOS[i].load(Ordering::Relaxed);
        add(Phase::Finalize, Duration::from_millis(3));
        add(Phase::Finalize, Duration::from_millis(2));
        assert_eq!(NANOS[i].load(Ordering::Relaxed) - before, 5_000_000);
    }
}
