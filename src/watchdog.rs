//! Two limits watched by one thread on every rank:
//!
//! * `--timeout`: aborts the whole job through `MPI_Abort` when one
//!   benchmark runs past its limit, naming what was running.
//! * the stall limit (`--stall-limit`, on by default): a rank whose
//!   repetitions stop completing ends the job. A dead host or link never
//!   returns an error, it only stops progress, and a rank cut off from the
//!   others cannot be told: so every rank watches itself.
//!
//! The stall rule: a rank is stalled when it finishes no repetition for
//! max(S, 20 × its slowest repetition so far in this benchmark), S = 60 s
//! by default. Progress is a relaxed counter bumped outside the clock pairs
//! ([`progress`]: per repetition for per-repetition methods, per batch for
//! loop timing, whose batch counts as one repetition here; the engine keeps
//! loop batches short when the limit is on), read by the watchdog thread,
//! which also infers from it how long each repetition took: the timed loops
//! pay one plain store per repetition or batch, outside their clock reads,
//! and one clock read per batch ([`expect`], where the batch starts). A
//! rank outside the group of a benchmark finishes no repetition: it is told
//! how long the point should take ([`waiting`]) and is stalled when it
//! waits longer than twice that plus S.
//!
//! The stalled rank prints one line (benchmark, size, process count, hosts),
//! rank 0 rewrites its results with status "aborted" (keeping the finished
//! benchmarks), and the rank ends its process with exit code 3 (after a
//! short grace for `MPI_Abort`, which cannot reach a dead host; see
//! `signals::end_job`). Ranks other than 0 wait two seconds longer, so that
//! rank 0 speaks when it is stalled too.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::outcome::Outcome;

#[derive(Default)]
struct State {
    deadline: Option<Instant>,
    what: String,
    /// Ranks and hosts of the running benchmark, for the stall line.
    hosts: String,
}

/// Disabled when constructed without a limit.
pub struct Watchdog {
    limit: Option<Duration>,
    state: Arc<Mutex<State>>,
}

/// Exit code of an aborted run.
pub const EXIT_ABORTED: i32 = crate::outcome::EXIT_ABORTED;

/// The default stall limit S (seconds).
pub const DEFAULT_STALL_S: f64 = 60.0;
/// A rank is stalled after this many times its slowest repetition (at least S).
pub const STALL_FACTOR: f64 = 20.0;

/// Repetitions this rank finished, and progress events (repetitions or
/// milestones such as the end of a point); written by the measuring thread
/// only, read by the watchdog thread.
static DONE: AtomicU64 = AtomicU64::new(0);
static EVENTS: AtomicU64 = AtomicU64::new(0);
/// Repetitions the next progress event will hold (a loop batch holds n).
static UNIT: AtomicU64 = AtomicU64::new(1);
/// When the batch now running started (nanoseconds since [`origin`]).
static UNIT_START: AtomicU64 = AtomicU64::new(0);
/// Seconds this rank expects to wait without finishing a repetition (f64
/// bits; 0: it is measuring).
static WAIT: AtomicU64 = AtomicU64::new(0);
/// A new benchmark started: the slowest repetition so far is forgotten.
static EPOCH: AtomicU64 = AtomicU64::new(0);
/// The stall limit is watched (from the start of the run to its end).
static WATCHING: AtomicBool = AtomicBool::new(false);

/// `n` repetitions finished (0: a milestone that is not a repetition).
/// Call outside clock pairs: a plain load and store of a relaxed atomic.
#[inline(always)]
pub fn progress(n: usize) {
    DONE.store(DONE.load(Relaxed).wrapping_add(n as u64), Relaxed);
    EVENTS.store(EVENTS.load(Relaxed).wrapping_add(1), Relaxed);
}

/// A batch of `n` repetitions starts; the next progress event comes at its end.
#[inline(always)]
pub fn expect(n: usize) {
    UNIT.store(n.max(1) as u64, Relaxed);
    UNIT_START.store(since_epoch(Instant::now()), Relaxed);
}

/// The process's reference instant for [`UNIT_START`].
fn origin() -> Instant {
    static E: std::sync::OnceLock<Instant> = std::sync::OnceLock::new();
    *E.get_or_init(Instant::now)
}

fn since_epoch(t: Instant) -> u64 {
    t.saturating_duration_since(origin()).as_nanos() as u64
}

/// This rank waits about `seconds` for the others (it is outside the group
/// of the point that runs); 0 when it measures again.
pub fn waiting(seconds: f64) {
    WAIT.store(seconds.max(0.0).to_bits(), Relaxed);
    progress(0);
}

/// What the watchdog thread knows about progress.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Stall {
    /// S, seconds.
    pub limit: f64,
    /// Slowest repetition so far in this benchmark (seconds; a loop
    /// batch counts as one).
    pub slowest: f64,
    /// Repetitions in the batch now running.
    pub unit: u64,
    /// Expected wait of a rank outside the group (seconds; 0: measuring).
    pub wait: f64,
}

impl Stall {
    /// How long the rank may go without progress (seconds).
    pub fn allowance(&self) -> f64 {
        if self.wait > 0.0 {
            2.0 * self.wait + self.limit
        } else {
            self.limit.max(STALL_FACTOR * self.slowest)
        }
    }
}

/// The watchdog thread's view of one rank's progress.
struct Tracker {
    events: u64,
    done: u64,
    epoch: u64,
    last: Instant,
    slowest: f64,
}

impl Tracker {
    fn new(now: Instant) -> Tracker {
        Tracker {
            events: EVENTS.load(Relaxed),
            done: DONE.load(Relaxed),
            epoch: EPOCH.load(Relaxed),
            last: now,
            slowest: 0.0,
        }
    }

    /// Reads the counters; returns the stall state and the time since the
    /// last progress.
    fn observe(&mut self, now: Instant, limit: f64) -> (Stall, f64) {
        let epoch = EPOCH.load(Relaxed);
        if epoch != self.epoch {
            self.epoch = epoch;
            self.slowest = 0.0;
        }
        let (events, done) = (EVENTS.load(Relaxed), DONE.load(Relaxed));
        if events != self.events {
            // Repetitions (or batches) finished since the last look, and the
            // time they took: from the last look or the start of the batch,
            // whichever is later, so that setup work does not count.
            let reps = done.wrapping_sub(self.done);
            let unit = UNIT.load(Relaxed).max(1);
            let units = (reps / unit).max(1);
            if reps > 0 {
                let start = origin() + Duration::from_nanos(UNIT_START.load(Relaxed));
                let from = start.max(self.last).min(now);
                let per = now.duration_since(from).as_secs_f64() / units as f64;
                self.slowest = self.slowest.max(per);
            }
            self.events = events;
            self.done = done;
            self.last = now;
        }
        let st = Stall {
            limit,
            slowest: self.slowest,
            unit: UNIT.load(Relaxed),
            wait: f64::from_bits(WAIT.load(Relaxed)),
        };
        (st, now.duration_since(self.last).as_secs_f64())
    }
}

impl Watchdog {
    /// Starts the watchdog thread when `limit_s` (`--timeout`) or
    /// `stall_s` (the stall limit, 0 or None: off) is set. Rank 0 reports
    /// first; other ranks wait longer so that the message comes from rank 0
    /// when it can.
    pub fn start(limit_s: Option<f64>, stall_s: Option<f64>, rank: usize) -> Watchdog {
        let limit = limit_s.map(Duration::from_secs_f64);
        let stall = stall_s.filter(|&s| s > 0.0);
        let _ = origin();
        let state = Arc::new(Mutex::new(State::default()));
        if limit.is_some() || stall.is_some() {
            let st = Arc::clone(&state);
            let (grace, stall_grace) = if rank == 0 {
                (Duration::ZERO, 0.0)
            } else {
                (Duration::from_secs(1), 2.0)
            };
            WATCHING.store(stall.is_some(), Relaxed);
            let period = Duration::from_millis(if limit.is_some() { 20 } else { 50 });
            let mut tracker = Tracker::new(Instant::now());
            crate::sys::spawn(move || loop {
                std::thread::sleep(period);
                let now = Instant::now();
                let (due, what, hosts) = {
                    let s = st.lock().unwrap_or_else(|e| e.into_inner());
                    (
                        s.deadline.is_some_and(|d| now > d + grace),
                        s.what.clone(),
                        s.hosts.clone(),
                    )
                };
                if let (true, Some(limit)) = (due, limit) {
                    let detail = format!(
                        "{what} ran longer than --timeout {} s (rank {rank}); aborting the job",
                        limit.as_secs_f64()
                    );
                    end(Outcome::Timeout, rank, &detail);
                    return;
                }
                let Some(s) = stall else { continue };
                let (state, idle) = tracker.observe(now, s);
                if !WATCHING.load(Relaxed) || idle <= state.allowance() + stall_grace {
                    continue;
                }
                end(
                    Outcome::Stall,
                    rank,
                    &stall_line(&what, &hosts, rank, idle, &state),
                );
                return;
            });
        }
        Watchdog { limit, state }
    }

    /// Starts the clock for one benchmark (and a new stall epoch).
    pub fn arm(&self, what: String) {
        EPOCH.store(EPOCH.load(Relaxed).wrapping_add(1), Relaxed);
        WAIT.store(0, Relaxed);
        expect(1);
        progress(0);
        let mut s = self.state.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(limit) = self.limit {
            s.deadline = Some(Instant::now() + limit);
        }
        s.what = what;
        s.hosts.clear();
    }

    /// Names the message length now running (the deadline stays).
    pub fn at(&self, what: String) {
        self.state.lock().unwrap_or_else(|e| e.into_inner()).what = what;
    }

    /// Names the ranks and hosts of the benchmark now running.
    pub fn hosts(&self, hosts: String) {
        self.state.lock().unwrap_or_else(|e| e.into_inner()).hosts = hosts;
    }

    pub fn disarm(&self) {
        progress(0);
        if self.limit.is_some() {
            self.state
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .deadline = None;
        }
    }

    /// The run is over (MPI_Finalize follows): no more stall checks.
    pub fn finish(&self) {
        WATCHING.store(false, Relaxed);
        self.disarm();
    }
}

impl Drop for Watchdog {
    fn drop(&mut self) {
        self.finish();
    }
}

/// Ends the job for a limit (`--timeout`, the stall limit): rank 0 marks
/// its outputs first, then the one line, then the job ends. Returns (the
/// thread ends) when another ending is under way on this rank or another
/// rank has already failed and said so.
fn end(outcome: Outcome, rank: usize, detail: &str) {
    if crate::signals::peer_failed() || !crate::outcome::claim() {
        return;
    }
    if outcome == Outcome::Stall {
        crate::link::tell(&format!("stalled {rank}"));
    }
    crate::link::tell(&format!("reason {rank} {}", outcome.reason()));
    let saved = (rank == 0)
        .then(|| crate::output::interrupt(outcome))
        .flatten();
    outcome.say(detail);
    if let Some(Err(e)) = saved {
        eprintln!("error: {e:#}");
    }
    let code = outcome.exit_code();
    if outcome == Outcome::Stall {
        crate::signals::stalled_end(code)
    } else {
        // One line said: end the job without the library's abort banner,
        // and let a self-launching parent know.
        crate::signals::said_and_end(code)
    }
}

/// The detail of the one line of a stalled rank.
fn stall_line(what: &str, hosts: &str, rank: usize, idle: f64, s: &Stall) -> String {
    let what = if what.is_empty() { "the run" } else { what };
    let on = if hosts.is_empty() {
        String::new()
    } else {
        format!(" on {hosts}")
    };
    let rule = if s.wait > 0.0 {
        format!(
            "twice the expected wait of {:.1} s plus {} s",
            s.wait, s.limit
        )
    } else {
        let what = if s.unit > 1 { "batch" } else { "repetition" };
        format!(
            "max({} s, {} x its slowest {what} {})",
            s.limit,
            STALL_FACTOR,
            seconds(s.slowest)
        )
    };
    format!(
        "{what}{on}: rank {rank} finished no repetition for {idle:.0} s (stall limit {:.0} s = {rule}); a host or link is down or hangs; ending the job (exit code {EXIT_ABORTED}; --stall-limit changes the limit)",
        s.allowance()
    )
}

/// A duration in the unit that reads best.
fn seconds(s: f64) -> String {
    if s >= 1.0 {
        format!("{s:.1} s")
    } else if s >= 1e-3 {
        format!("{:.1} ms", s * 1e3)
    } else {
        format!("{:.1} us", s * 1e6)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn allowance_is_the_stall_rule() {
        let s = |slowest: f64, unit: u64, wait: f64| Stall {
            limit: 60.0,
            slowest,
            unit,
            wait,
        };
        assert_eq!(s(0.0, 1, 0.0).allowance(), 60.0);
        assert_eq!(s(1.0, 1, 0.0).allowance(), 60.0);
        assert_eq!(s(4.0, 1, 0.0).allowance(), 80.0);
        // A loop batch of 100 repetitions taking 5 s counts as one repetition.
        assert_eq!(s(5.0, 100, 0.0).allowance(), 100.0);
        // Outside the group: twice the expected wait plus S.
        assert_eq!(s(4.0, 1, 30.0).allowance(), 120.0);
    }

    #[test]
    fn the_tracker_infers_the_slowest_repetition() {
        let _ = origin();
        let t0 = Instant::now();
        let mut t = Tracker::new(t0);
        UNIT_START.store(since_epoch(t0), Relaxed);
        progress(10);
        let (st, idle) = t.observe(t0 + Duration::from_secs(1), 60.0);
        assert!((st.slowest - 0.1).abs() < 1e-9, "{st:?}");
        assert_eq!(idle, 0.0);
        // Nothing for 5 s: idle grows, the slowest repetition stays.
        let (st, idle) = t.observe(t0 + Duration::from_secs(6), 60.0);
        assert!((idle - 5.0).abs() < 1e-9);
        assert!((st.slowest - 0.1).abs() < 1e-9);
        // A milestone resets the time without changing the slowest repetition.
        progress(0);
        let (st, idle) = t.observe(t0 + Duration::from_secs(7), 60.0);
        assert_eq!(idle, 0.0);
        assert!((st.slowest - 0.1).abs() < 1e-9);
        // A batch of 4 that started 0.5 s before it ended, after 2 s of
        // setup: one batch of 0.5 s.
        UNIT.store(4, Relaxed);
        UNIT_START.store(since_epoch(t0 + Duration::from_millis(9500)), Relaxed);
        progress(4);
        let (st, _) = t.observe(t0 + Duration::from_secs(10), 60.0);
        assert!((st.slowest - 0.5).abs() < 1e-6, "{st:?}");
        UNIT.store(1, Relaxed);
        // A new benchmark forgets it.
        EPOCH.store(EPOCH.load(Relaxed) + 1, Relaxed);
        let (st, _) = t.observe(t0 + Duration::from_secs(11), 60.0);
        assert_eq!(st.slowest, 0.0);
        let line = stall_line(
            "PingPong, 1 MiB, 2 processes",
            "ranks 0, 2 on node1, node2",
            2,
            75.0,
            &Stall {
                limit: 60.0,
                slowest: 0.01,
                unit: 1,
                wait: 0.0,
            },
        );
        assert!(
            line.contains("20 x its slowest repetition 10.0 ms"),
            "{line}"
        );
        assert!(
            line.contains("PingPong, 1 MiB, 2 processes on ranks 0, 2 on node1, node2: rank 2"),
            "{line}"
        );
        assert!(!line.contains('\n'));
    }
}
