//! The self-launching parent: it supervises mpiexec and the ranks.
//!
//! `mpibench run -n N` without a launcher starts mpiexec and supervises it:
//!
//! * mpiexec gets a parent-death signal and its own process group, so it
//!   dies with the parent even when the parent is SIGKILLed, and a
//!   terminal's Ctrl-C reaches it once, through the parent, not twice. The
//!   signal is the launcher's (see [`Launcher::death_signal`]): SIGKILL for
//!   Open MPI's mpiexec, whose daemons give the ranks time to write;
//!   SIGTERM for Hydra, whose proxies SIGKILL the ranks at once when their
//!   mpiexec dies, before rank 0 could write the results "interrupted"
//!   (SIGTERM is passed on to the ranks; the ranks, which see the parent's
//!   link close, end the job themselves in any case).
//! * SIGINT, SIGTERM and SIGHUP to the parent are passed on: the ranks are
//!   told at once (which signal, over the link below) and mpiexec gets
//!   SIGTERM, the signal on which both Open MPI's and MPICH's mpiexec end
//!   their job in order (Hydra dies on SIGHUP without ending its ranks, and
//!   answers SIGINT with a Ctrl-C banner). The parent waits for mpiexec and
//!   exits with 128 + the signal it received, after one line.
//! * A closed stdout pipe (`| head`) stops the run in the same way, quietly.
//!
//! The ranks report over the link described in `link` (the rank's side):
//! that they started, that `MPI_Init` returned, that they printed their own
//! one-line message and with which exit code they end.

use std::collections::BTreeSet;
use std::io::{BufRead, BufReader, Write};
use std::os::linux::net::SocketAddrExt;
use std::os::unix::net::{SocketAddr, UnixListener, UnixStream};
use std::os::unix::process::ExitStatusExt;
use std::process::{Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use signal_hook::consts::{SIGHUP, SIGINT, SIGPIPE, SIGTERM};

use crate::outcome::Outcome;
use crate::outcome::{signal_name, signal_number, EXIT_MPI_START};
use crate::{link, signals};

/// The launcher could not be started, failed, or started no rank.
pub const EXIT_LAUNCHER: i32 = crate::outcome::EXIT_LAUNCHER;

/// How long the parent waits for ranks to disconnect after mpiexec ended.
const RANK_EXIT_GRACE: Duration = Duration::from_secs(5);

/// What the ranks reported.
#[derive(Default, Debug)]
struct Seen {
    started: BTreeSet<u32>,
    pids: Vec<i32>,
    up: BTreeSet<u32>,
    /// (rank, code) of ranks that printed their own line.
    said: Vec<(u32, i32)>,
    /// (rank, code) of ranks that crashed silently (their parent speaks).
    crashed: Vec<(u32, i32)>,
    /// The deaths in the order the parent learnt them: (rank, Some(signal))
    /// for a crash, (rank, None) for a rank that vanished without a word.
    /// The first is the cause; the others often follow from it.
    deaths: Vec<(u32, Option<i32>)>,
    /// When each of `deaths` was learnt.
    death_times: Vec<Instant>,
    /// (rank, code) of ranks that ended normally.
    ended: Vec<(u32, i32)>,
    /// Rank 0 reported its end before the parent received a signal: the
    /// outcome was decided (its outputs final) before any interruption.
    rank0_ended_first: bool,
    /// (rank, signal) of a rank that was stopped by a signal of its own.
    stopped: Option<(u32, i32)>,
    /// A rank hit the stall limit: a host or link may be dead, and the
    /// launcher's own abort can hang on it (see [`Shared::end_child`]).
    stalled: bool,
    /// Ranks that told how they end (said, crashed, end, stopped).
    spoke: BTreeSet<u32>,
    /// Ranks whose link closed before they told how they end (killed by a
    /// signal they cannot handle: SIGKILL, the OOM killer), in that order.
    vanished: Vec<u32>,
    /// (rank, reason word) of a rank that ended the run for a reason of
    /// its own (timeout, stall).
    reason: Option<(u32, String)>,
    open: usize,
}

/// A rank that vanished within this time of the first crash was learnt of
/// in the wrong order: the survivor's crash on the vanished peer came
/// through first. (A rank that crashes first waits a second before it
/// exits, and the launcher ends the others after that.)
const DEATH_ORDER_SLACK: Duration = Duration::from_millis(300);

impl Seen {
    /// (rank, signal) of the first rank that crashed of a fatal signal.
    fn fatal(&self) -> Option<(u32, i32)> {
        self.deaths.iter().find_map(|&(r, s)| s.map(|s| (r, s)))
    }

    /// Puts the silent deaths in the order the links hung up (`hangups`,
    /// ranks), keeping the crashes where they are and the times at which
    /// deaths were learnt in their order.
    fn in_hangup_order(&mut self, hangups: &[u32]) {
        let key = |r: u32| hangups.iter().position(|&h| h == r).unwrap_or(usize::MAX);
        let at: Vec<usize> = (0..self.deaths.len())
            .filter(|&i| self.deaths[i].1.is_none())
            .collect();
        let mut silent: Vec<(u32, Option<i32>)> = at.iter().map(|&i| self.deaths[i]).collect();
        silent.sort_by_key(|d| key(d.0));
        for (&i, d) in at.iter().zip(silent) {
            self.deaths[i] = d;
        }
        self.vanished.sort_by_key(|&r| key(r));
    }

    /// A silent death learnt within [`DEATH_ORDER_SLACK`] of the first crash.
    fn vanished_with_first_crash(&self) -> bool {
        let crash = self.deaths.iter().position(|d| d.1.is_some());
        let Some(t) = crash.and_then(|i| self.death_times.get(i)) else {
            return false;
        };
        self.deaths
            .iter()
            .zip(&self.death_times)
            .any(|(d, v)| d.1.is_none() && v.saturating_duration_since(*t) < DEATH_ORDER_SLACK)
    }

    /// Records a line that arrived before any signal to the parent.
    #[cfg(test)]
    fn record(&mut self, line: &str) {
        self.record_at(line, false);
    }

    /// Records a line; `signalled`: the parent had received a signal.
    fn record_at(&mut self, line: &str, signalled: bool) {
        if line.starts_with("end 0 ") && !signalled {
            self.rank0_ended_first = true;
        }
        let f: Vec<&str> = line.split_whitespace().collect();
        let num = |i: usize| f.get(i).and_then(|x| x.parse::<i64>().ok());
        let (Some(kind), Some(rank)) = (f.first(), num(1)) else {
            return;
        };
        let rank = rank as u32;
        if matches!(*kind, "said" | "crashed" | "end" | "stopped") {
            self.spoke.insert(rank);
        }
        if let ("said" | "crashed", Some(sig @ 1..=64)) = (*kind, num(3)) {
            self.deaths.push((rank, Some(sig as i32)));
            self.death_times.push(Instant::now());
        }
        match *kind {
            "start" => {
                self.started.insert(rank);
                if let Some(pid) = num(2) {
                    self.pids.push(pid as i32);
                }
            }
            "up" => {
                self.up.insert(rank);
            }
            "said" => self.said.push((rank, num(2).unwrap_or(3) as i32)),
            "crashed" => self.crashed.push((rank, num(2).unwrap_or(3) as i32)),
            "end" => self.ended.push((rank, num(2).unwrap_or(0) as i32)),
            "stalled" => self.stalled = true,
            "reason" => {
                if let Some(w) = f.get(2) {
                    self.reason.get_or_insert((rank, w.to_string()));
                }
            }
            "stopped" => {
                if let Some(sig) = f.get(2).and_then(|s| signal_number(s)) {
                    self.stopped.get_or_insert((rank, sig));
                }
            }
            _ => {}
        }
    }
}

struct Shared {
    seen: Mutex<Seen>,
    conns: Mutex<Vec<UnixStream>>,
    /// First signal the parent received (or SIGPIPE for a closed stdout).
    signal: AtomicI32,
    child: AtomicI32,
    /// We sent mpiexec a signal ourselves: a launcher killed by a signal we
    /// never sent was killed by somebody else, whatever the ranks then said.
    signalled: std::sync::atomic::AtomicBool,
    /// Writing the job's output to our stdout failed (not a closed pipe).
    stdout_error: Mutex<Option<std::io::Error>>,
    /// The stdout relay has seen the end of mpiexec's output.
    relay_done: std::sync::atomic::AtomicBool,
    /// The stderr relay has seen the end of mpiexec's error output.
    stderr_done: std::sync::atomic::AtomicBool,
    /// The library's lines the relay dropped (the first [`mpi_words::KEPT`]):
    /// its own words when it could not start.
    dropped: Mutex<Vec<Vec<u8>>>,
    /// The job wrote something on stdout (ranks run somewhere, maybe on
    /// another host whose ranks cannot connect).
    output_seen: std::sync::atomic::AtomicBool,
    /// The launcher's process group (its pid; kept after it was reaped).
    pgid: AtomicI32,
    /// No rank started within the start deadline: the parent ended the launcher.
    start_timed_out: std::sync::atomic::AtomicBool,
    /// Rank 0's progress, when our stderr is a terminal.
    bar: Option<crate::progress::Bar>,
    /// The order in which the ranks' links hung up.
    hangups: Hangups,
}

/// The order in which the ranks' links hung up, from one epoll set: the
/// kernel queues readiness in the order it happens, so that the order is
/// true however late it is read. (The reader threads, one per link, can
/// learn of two deaths a moment apart in either order on a loaded machine:
/// a rank killed from outside, then the one the launcher killed after it.)
struct Hangups {
    /// The epoll set; each link is in it by its number, once.
    set: crate::sys::Hangups,
    /// Link number → rank, once the rank said who it is.
    ranks: Mutex<Vec<(u64, u32)>>,
}

impl Hangups {
    fn new() -> Hangups {
        Hangups {
            set: crate::sys::Hangups::new(),
            ranks: Mutex::new(Vec::new()),
        }
    }

    /// Watches link `id` for its hang-up. The link's descriptor must stay
    /// open until [`Hangups::order`] (the parent keeps a clone of every
    /// link in `Shared::conns`), or its event is forgotten.
    fn watch(&self, id: u64, fd: i32) {
        self.set.watch(id, fd);
    }

    fn name(&self, id: u64, rank: u32) {
        self.ranks
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push((id, rank));
    }

    /// The ranks whose links have hung up, in the order they did.
    fn order(&self) -> Vec<u32> {
        let ranks = self.ranks.lock().unwrap_or_else(|e| e.into_inner());
        self.set
            .ready(ranks.len())
            .into_iter()
            .filter_map(|id| ranks.iter().find(|(i, _)| *i == id).map(|&(_, r)| r))
            .collect()
    }
}

impl Shared {
    /// The state of one supervised launch, before it starts.
    fn new() -> Shared {
        Shared {
            seen: Mutex::new(Seen::default()),
            conns: Mutex::new(Vec::new()),
            signal: AtomicI32::new(0),
            child: AtomicI32::new(0),
            signalled: std::sync::atomic::AtomicBool::new(false),
            stdout_error: Mutex::new(None),
            relay_done: std::sync::atomic::AtomicBool::new(false),
            stderr_done: std::sync::atomic::AtomicBool::new(false),
            dropped: Mutex::new(Vec::new()),
            output_seen: std::sync::atomic::AtomicBool::new(false),
            pgid: AtomicI32::new(0),
            start_timed_out: std::sync::atomic::AtomicBool::new(false),
            bar: crate::progress::Bar::wanted().then(crate::progress::Bar::default),
            hangups: Hangups::new(),
        }
    }

    fn seen(&self) -> std::sync::MutexGuard<'_, Seen> {
        self.seen.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Passes an interruption on: the ranks first (they record the right
    /// signal, rank 0 saves, and they end, which ends mpiexec), then
    /// mpiexec itself: SIGTERM at once when no rank is linked, else after
    /// [`STOP_GRACE`] if it still runs (an immediate SIGTERM would race the
    /// ranks' own ending, which Open MPI's mpiexec answers with a crash);
    /// SIGKILL when that does not end it either, or on a second interruption.
    fn interrupt(self: &Arc<Self>, sig: i32) {
        let first = self
            .signal
            .compare_exchange(0, sig, Ordering::SeqCst, Ordering::SeqCst)
            .is_ok();
        if !first {
            self.kill_child(libc::SIGKILL);
            return;
        }
        let linked = {
            let mut conns = self.conns.lock().unwrap_or_else(|e| e.into_inner());
            for c in conns.iter_mut() {
                let _ = c.write_all(format!("stop {}\n", signal_name(sig)).as_bytes());
            }
            !conns.is_empty()
        };
        self.end_child(linked);
    }

    /// Our stdout failed: the ranks end with a failed write (rank 0 marks
    /// its outputs), mpiexec is ended as after an interruption.
    fn fail_write(self: &Arc<Self>) {
        if self
            .signal
            .compare_exchange(0, SIGPIPE, Ordering::SeqCst, Ordering::SeqCst)
            .is_err()
        {
            return;
        }
        let linked = {
            let mut conns = self.conns.lock().unwrap_or_else(|e| e.into_inner());
            for c in conns.iter_mut() {
                let _ = c.write_all(format!("{}\n", link::FAIL_WRITE).as_bytes());
            }
            !conns.is_empty()
        };
        self.end_child(linked);
    }

    /// Makes sure mpiexec ends: after [`STOP_GRACE`] (when `grace`) SIGTERM,
    /// after [`KILL_GRACE`] more SIGKILL. Also used when a rank reports its
    /// own failure: a launcher can hang after a rank died in `MPI_Init`.
    /// After a stall, SIGKILL at once: a launcher told to end a job whose
    /// host is unreachable waits for that host's daemon (Open MPI's mpiexec
    /// then crashes on SIGTERM, with a page of backtrace).
    fn end_child(self: &Arc<Self>, grace: bool) {
        let sh = Arc::clone(self);
        crate::sys::spawn(move || {
            if grace {
                sh.wait_child_gone(STOP_GRACE);
            }
            if sh.seen().stalled {
                sh.kill_child(libc::SIGKILL);
                return;
            }
            sh.kill_child(libc::SIGTERM);
            sh.wait_child_gone(KILL_GRACE);
            sh.kill_child(libc::SIGKILL);
        });
    }

    fn kill_child(&self, sig: i32) {
        let pid = self.child.load(Ordering::SeqCst);
        if pid > 0 {
            self.signalled.store(true, Ordering::SeqCst);
            // Our own child, not yet reaped (the pid is cleared before the
            // wait returns to the caller).
            crate::sys::kill(pid, sig);
        }
    }

    /// Signals the launcher's whole process group (a launcher script's
    /// children too). Also after the launcher was reaped (which does not
    /// count as `signalled`: the launcher's status was taken before).
    fn kill_group(&self, sig: i32) {
        let pgid = self.pgid.load(Ordering::SeqCst);
        if pgid > 0 {
            // The process group our child created for itself.
            crate::sys::kill(-pgid, sig);
        }
    }

    /// Ends the launcher when no rank has started within `deadline` and
    /// the job printed nothing (ranks on other hosts cannot connect, but
    /// rank 0 prints its header): a launcher that hangs without starting
    /// the job would otherwise keep the parent waiting forever.
    fn watch_start(self: &Arc<Self>, deadline: Duration) {
        let sh = Arc::clone(self);
        crate::sys::spawn(move || {
            let end = Instant::now() + deadline;
            while Instant::now() < end {
                if sh.child.load(Ordering::SeqCst) == 0 {
                    return;
                }
                std::thread::sleep(Duration::from_millis(50));
            }
            let idle = sh.seen().started.is_empty()
                && !sh.output_seen.load(Ordering::SeqCst)
                && sh.signal.load(Ordering::SeqCst) == 0;
            if !idle || sh.child.load(Ordering::SeqCst) == 0 {
                return;
            }
            sh.start_timed_out.store(true, Ordering::SeqCst);
            sh.signalled.store(true, Ordering::SeqCst);
            sh.kill_group(libc::SIGTERM);
            sh.wait_child_gone(KILL_GRACE);
            sh.kill_group(libc::SIGKILL);
        });
    }

    fn wait_child_gone(&self, limit: Duration) {
        let end = Instant::now() + limit;
        while self.child.load(Ordering::SeqCst) != 0 && Instant::now() < end {
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

/// How long linked ranks get to end the job themselves after an interruption.
const STOP_GRACE: Duration = Duration::from_secs(4);
/// How long mpiexec gets after SIGTERM before SIGKILL.
const KILL_GRACE: Duration = Duration::from_secs(5);

/// The least time a launcher gets to start a rank (see [`start_deadline`]).
const START_DEADLINE_MIN: Duration = Duration::from_secs(60);
/// Overrides the start deadline (seconds), for tests and slow clusters.
pub const START_DEADLINE_ENV: &str = "MPIBENCH_START_DEADLINE";

/// How long the launcher gets to start a first rank: max(60 s, `--timeout`),
/// or `MPIBENCH_START_DEADLINE` seconds when that holds a positive number.
pub fn start_deadline(timeout: Option<f64>) -> Duration {
    deadline_from(std::env::var(START_DEADLINE_ENV).ok().as_deref(), timeout)
}

fn deadline_from(env: Option<&str>, timeout: Option<f64>) -> Duration {
    let secs = |x: f64| (x.is_finite() && x > 0.0 && x < 1e9).then(|| Duration::from_secs_f64(x));
    if let Some(d) = env
        .and_then(|v| v.trim().parse::<f64>().ok())
        .and_then(secs)
    {
        return d;
    }
    timeout
        .and_then(secs)
        .map_or(START_DEADLINE_MIN, |t| t.max(START_DEADLINE_MIN))
}

/// The one line of a launcher that started no rank in time.
fn start_deadline_line(name: &str, deadline: Duration) -> String {
    format!(
        "the launcher '{name}' started no mpibench rank within {} s; it was ended (set {START_DEADLINE_ENV}=SECONDS to wait longer)",
        deadline.as_secs_f64()
    )
}

/// What the parent knows about the launcher, for its messages.
pub struct Launcher<'a> {
    pub name: &'a str,
    /// Where the JSON goes (named in the interruption line).
    pub json: Option<&'a std::path::Path>,
    /// The signal mpiexec gets when the parent dies (see the module documentation).
    pub death_signal: i32,
    /// See [`start_deadline`].
    pub start_deadline: Duration,
}

/// Runs `cmd` (mpiexec ...) under supervision; returns mpibench's exit code.
pub fn run(mut cmd: Command, l: &Launcher) -> i32 {
    let shared = Arc::new(Shared::new());
    if shared.bar.is_some() {
        cmd.env(crate::progress::ENV, "bar");
    }
    if let Some(name) = listen(&shared) {
        cmd.env(link::ENV, name);
    }
    // The ranks' stdout is our relay pipe: they learn what ours is, so that
    // an output on the file stdout is redirected to counts as stdout.
    match crate::files::stdout_id() {
        Some(id) => cmd.env(crate::files::STDOUT_ID_ENV, id),
        None => cmd.env_remove(crate::files::STDOUT_ID_ENV),
    };
    watch_signals(&shared);
    watch_stdout(&shared);
    let parent = std::process::id() as i32;
    let death_signal = l.death_signal;
    // Own process group: a terminal's Ctrl-C reaches mpiexec once, through
    // us; and it dies with us, even when we are SIGKILLed.
    crate::sys::launch_as_child(&mut cmd, parent, death_signal, EXIT_LAUNCHER);
    cmd.stdin(Stdio::null());
    // The job's stdout passes through us: a write error (a full disk, a
    // closed pipe) is ours to see, whatever the launcher does with it.
    cmd.stdout(Stdio::piped());
    // And its stderr: what the MPI library prints after a rank died is
    // not shown (see [`relay_stderr`]).
    cmd.stderr(Stdio::piped());
    let mut child = match cmd.spawn() {
        Ok(c) => c,
        Err(e) => {
            eprintln!("{}", spawn_error(l.name, &e));
            return EXIT_LAUNCHER;
        }
    };
    shared.child.store(child.id() as i32, Ordering::SeqCst);
    // setpgid(0, 0) ran before exec, which spawn() waited for.
    shared.pgid.store(child.id() as i32, Ordering::SeqCst);
    shared.watch_start(l.start_deadline);
    start_relays(&mut child, &shared);
    if shared.signal.load(Ordering::SeqCst) != 0 {
        // A signal arrived before mpiexec existed.
        shared.signalled.store(true, Ordering::SeqCst);
        crate::sys::kill(child.id() as i32, libc::SIGTERM);
    }
    // Wait without reaping first, so that the pid the signal thread may
    // kill stays ours until it is cleared.
    crate::sys::wait_exited(child.id());
    shared.child.store(0, Ordering::SeqCst);
    let status = loop {
        match child.wait() {
            Ok(s) => break s,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => {
                eprintln!("error: cannot wait for the launcher '{}': {e}", l.name);
                return EXIT_LAUNCHER;
            }
        }
    };
    conclude(&shared, status, l)
}

/// Starts the relays of the job's stdout and stderr; a relay that cannot
/// start counts as done.
fn start_relays(child: &mut std::process::Child, shared: &Arc<Shared>) {
    let relay = |pipe: Option<Box<dyn FnOnce() + Send>>, done: &std::sync::atomic::AtomicBool| {
        if !pipe.is_some_and(crate::sys::spawn) {
            done.store(true, Ordering::SeqCst);
        }
    };
    let (sh_out, sh_err) = (Arc::clone(shared), Arc::clone(shared));
    relay(
        child
            .stdout
            .take()
            .map(|out| Box::new(move || relay_stdout(out, &sh_out)) as Box<dyn FnOnce() + Send>),
        &shared.relay_done,
    );
    relay(
        child
            .stderr
            .take()
            .map(|err| Box::new(move || relay_stderr(err, &sh_err)) as Box<dyn FnOnce() + Send>),
        &shared.stderr_done,
    );
}

/// After the launcher ended: the ranks and the relays are given time to
/// end, then the exit code (and the one line) of the run.
fn conclude(shared: &Shared, status: ExitStatus, l: &Launcher) -> i32 {
    reap_ranks(shared);
    // What the launcher left in its process group (a launcher script's
    // children) goes with it.
    shared.kill_group(libc::SIGKILL);
    let end = Instant::now() + RANK_EXIT_GRACE;
    while !(shared.relay_done.load(Ordering::SeqCst) && shared.stderr_done.load(Ordering::SeqCst))
        && Instant::now() < end
    {
        std::thread::sleep(Duration::from_millis(10));
    }
    if let Some(bar) = &shared.bar {
        bar.finish();
    }
    // The scratch files the ranks named (a rank killed before it removed
    // its own: Hydra ends rank 0 at once when another rank dies).
    let left = crate::files::remove_scratch();
    if !left.is_empty() {
        eprintln!("mpibench: could not remove {}", left.join(", "));
    }
    if let Some(e) = shared
        .stdout_error
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .take()
    {
        if let Some(p) = l.json {
            mark_json(p, Outcome::WriteFailed);
        }
        return Outcome::WriteFailed.say(&crate::files::stdout_error(e));
    }
    if shared.start_timed_out.load(Ordering::SeqCst) {
        return Outcome::LauncherFailed.say(&start_deadline_line(l.name, l.start_deadline));
    }
    let mut seen = shared.seen();
    seen.in_hangup_order(&shared.hangups.order());
    let outside = status.signal().is_some() && !shared.signalled.load(Ordering::SeqCst);
    let code = verdict(
        &seen,
        shared.signal.load(Ordering::SeqCst),
        status,
        outside,
        l,
    );
    // MPI could not start: the library's own words, under mpibench's line.
    if code == EXIT_MPI_START {
        let kept = shared.dropped.lock().unwrap_or_else(|e| e.into_inner());
        eprint!("{}", crate::mpi_words::block(&kept));
    }
    // A file the ranks left "running" says how the launcher or MPI failed.
    let failure = [Outcome::LauncherFailed, Outcome::MpiStartFailed]
        .into_iter()
        .find(|o| o.exit_code() == code);
    if let (Some(o), Some(p)) = (failure, l.json) {
        mark_json(p, o);
    }
    code
}

/// The line for a launcher that could not be started: a resource that ran
/// out is named as such (open files, processes, memory); only a launcher
/// that is not there is blamed on the installation.
pub fn spawn_error(launcher: &str, e: &std::io::Error) -> String {
    match e.raw_os_error() {
        Some(libc::EMFILE) => format!(
            "error: too many open files (ulimit -n {}) to start the launcher '{launcher}': raise the limit",
            soft_limit(libc::RLIMIT_NOFILE)
        ),
        Some(libc::ENFILE) => format!(
            "error: too many open files in the system to start the launcher '{launcher}' ({e})"
        ),
        Some(libc::EAGAIN) => format!(
            "error: too many processes (ulimit -u {}) to start the launcher '{launcher}': raise the limit",
            soft_limit(libc::RLIMIT_NPROC)
        ),
        Some(libc::ENOMEM) => format!(
            "error: not enough memory to start the launcher '{launcher}' (ulimit -v {})",
            soft_limit(libc::RLIMIT_AS)
        ),
        _ => format!(
            "error: cannot start the launcher '{launcher}': {e} (install an MPI launcher or pass --mpiexec)"
        ),
    }
}

/// The soft limit of a resource (`ulimit`), as the shell prints it.
fn soft_limit(resource: libc::__rlimit_resource_t) -> String {
    crate::sys::soft_limit(resource).map_or("unlimited".into(), |n| n.to_string())
}

/// The signal a vanished rank died of, from the launcher's exit status:
/// Open MPI's mpiexec exits with 128 + the signal, Hydra with the signal
/// number itself (0: unknown).
fn died_of(status: ExitStatus) -> i32 {
    match status.code() {
        Some(c) if c > 128 && c <= 128 + 64 => c - 128,
        Some(c) if (1..=64).contains(&c) => c,
        _ => 0,
    }
}

/// Makes the JSON file say what the parent knows better than rank 0 could:
/// a rank died (rank 0 saw only the launcher's SIGTERM, or was killed
/// before it could write), or the reason of a rank that ended the run.
/// Only a regular file whose run did not end "ok" is touched.
fn mark_json(path: &std::path::Path, outcome: Outcome) {
    use crate::files::{resolve, write_whole, Target};
    let Ok(t @ Target::Replace(_)) = resolve(path) else {
        return;
    };
    let Target::Replace(p) = &t else { return };
    let Some(mut v) = std::fs::read(p)
        .ok()
        .and_then(|b| serde_json::from_slice::<serde_json::Value>(&b).ok())
    else {
        return;
    };
    let status = v["status"].as_str().unwrap_or("");
    let reason = v["reason"].as_str().unwrap_or("");
    let specific = matches!(outcome, Outcome::RankDied { .. })
        && (status == "running"
            || status == "interrupted"
            || (status == "aborted" && matches!(reason, "error" | "rank_died")));
    let vague = status == "running" || (status == "aborted" && reason == "error");
    // The job's stdout was lost after rank 0 saved an "ok" file: the file
    // must not say what the exit code denies.
    let lost = outcome == Outcome::WriteFailed && status == "ok";
    let Some(new_status) = outcome.status() else {
        return;
    };
    if !(specific || lost || (vague && new_status == "aborted" && outcome != Outcome::Error)) {
        return;
    }
    let Some(o) = v.as_object_mut() else { return };
    o.insert("complete".into(), false.into());
    o.insert("status".into(), new_status.into());
    o.insert("reason".into(), outcome.reason().into());
    o.remove("interrupted_by");
    match outcome.signal() {
        Some(sig) => o.insert("signal".into(), sig.into()),
        None => o.remove("signal"),
    };
    if let Ok(mut bytes) = serde_json::to_vec_pretty(&v) {
        bytes.push(b'\n');
        let _ = write_whole(&t, path, &bytes);
    }
}

/// Copies mpiexec's stdout to ours. A closed pipe stops the run quietly
/// (SIGPIPE); another error stops it and is reported. Either way the rest
/// is drained, so that mpiexec never blocks on a full pipe.
fn relay_stdout(mut from: std::process::ChildStdout, sh: &Arc<Shared>) {
    use std::io::Read;
    let mut buf = vec![0u8; 64 << 10];
    let mut failed = false;
    loop {
        let n = match from.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => break,
        };
        sh.output_seen.store(true, Ordering::SeqCst);
        if failed {
            continue;
        }
        let write = || {
            let mut out = std::io::stdout().lock();
            out.write_all(&buf[..n]).and_then(|_| out.flush())
        };
        let written = match &sh.bar {
            Some(bar) => bar.suspend(write),
            None => write(),
        };
        if let Err(e) = written {
            failed = true;
            if e.kind() == std::io::ErrorKind::BrokenPipe {
                sh.interrupt(SIGPIPE);
            } else {
                *sh.stdout_error.lock().unwrap_or_else(|e| e.into_inner()) = Some(e);
                sh.fail_write();
            }
        }
    }
    sh.relay_done.store(true, Ordering::SeqCst);
}

/// How long a line of the launcher or the MPI library waits before it is
/// shown: long enough for the parent to learn of a rank's death first.
const STDERR_HOLD: Duration = Duration::from_millis(500);

/// The form of an error line that the same failure has on every rank: the
/// rank numbers and the handles' addresses (`0x7f...`) left out, so that
/// two ranks failing in the same collective call print one line, not two.
fn failure_key(line: &[u8]) -> Option<Vec<u8>> {
    if !line.starts_with(b"error: ") {
        return None;
    }
    let text = String::from_utf8_lossy(line);
    let mut key = String::with_capacity(text.len());
    let mut words = text.split_inclusive(' ').peekable();
    while let Some(w) = words.next() {
        if w == "rank "
            && words
                .peek()
                .is_some_and(|n| n.starts_with(|c: char| c.is_ascii_digit()))
        {
            key.push_str("rank ");
            let n = words.next().unwrap_or_default();
            key.push_str(n.trim_start_matches(|c: char| c.is_ascii_digit()));
            continue;
        }
        key.push_str(&hex_masked(w));
    }
    Some(key.into_bytes())
}

/// `w` with every `0x` followed by hex digits written as `0x`.
fn hex_masked(w: &str) -> String {
    let mut out = String::with_capacity(w.len());
    let mut rest = w;
    while let Some(i) = rest.find("0x") {
        out.push_str(&rest[..i + 2]);
        rest = rest[i + 2..].trim_start_matches(|c: char| c.is_ascii_hexdigit());
    }
    out.push_str(rest);
    out
}

/// mpibench's own lines on stderr: shown at once, never dropped.
fn own_line(line: &[u8]) -> bool {
    const OWN: [&[u8]; 4] = [b"error: ", b"warning: ", b"mpibench: ", b"note: "];
    OWN.iter().any(|p| line.starts_with(p))
}

impl Shared {
    /// The job is ending badly (a rank died or crashed, a rank ended with a
    /// code of its own or was stopped, a stall, a signal):
    /// the MPI library's own reaction on the surviving ranks (a transport's
    /// backtrace, a banner) says nothing the one line does not.
    fn failing(&self) -> bool {
        let seen = self.seen();
        !seen.vanished.is_empty()
            || !seen.crashed.is_empty()
            || seen.said.iter().any(|&(_, c)| c != 0)
            || seen.ended.iter().any(|&(_, c)| c != 0)
            || seen.stopped.is_some()
            || seen.stalled
            || self.signal.load(Ordering::SeqCst) != 0
    }
}

/// Copies mpiexec's stderr to ours, line by line, in order. mpibench's own
/// lines pass at once; any other line (the launcher's, the MPI library's)
/// is held for [`STDERR_HOLD`] and dropped if by then the job is failing.
fn relay_stderr(from: std::process::ChildStderr, sh: &Arc<Shared>) {
    use std::sync::mpsc::{channel, RecvTimeoutError};
    let (tx, rx) = channel::<Vec<u8>>();
    crate::sys::spawn(move || {
        let mut r = BufReader::new(from);
        loop {
            let mut line = Vec::new();
            match r.read_until(b'\n', &mut line) {
                Ok(0) => break,
                Ok(_) => {
                    if tx.send(line).is_err() {
                        break;
                    }
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(_) => break,
            }
        }
    });
    let write = |line: &[u8]| {
        let w = || {
            let mut err = std::io::stderr().lock();
            let _ = err.write_all(line).and_then(|_| err.flush());
        };
        match &sh.bar {
            Some(bar) => bar.suspend(w),
            None => w(),
        }
    };
    let mut held: std::collections::VecDeque<(Instant, Vec<u8>)> = Default::default();
    // The failures already said: another rank's line of the same failure
    // is not said again.
    let mut said: BTreeSet<Vec<u8>> = BTreeSet::new();
    // Shows (or drops) the held lines older than `age`.
    let release = |held: &mut std::collections::VecDeque<(Instant, Vec<u8>)>, age: Duration| {
        while held.front().is_some_and(|(t, _)| t.elapsed() >= age) {
            let Some((_, line)) = held.pop_front() else {
                break;
            };
            if !sh.failing() {
                write(&line);
            } else {
                let mut kept = sh.dropped.lock().unwrap_or_else(|e| e.into_inner());
                if kept.len() < crate::mpi_words::KEPT {
                    kept.push(line);
                }
            }
        }
    };
    loop {
        let wait = held.front().map_or(Duration::from_secs(3600), |(t, _)| {
            STDERR_HOLD.saturating_sub(t.elapsed())
        });
        match rx.recv_timeout(wait) {
            Ok(line) if own_line(&line) => {
                release(&mut held, Duration::ZERO);
                if failure_key(&line).is_none_or(|k| said.insert(k)) {
                    write(&line);
                }
            }
            Ok(line) => held.push_back((Instant::now(), line)),
            Err(RecvTimeoutError::Timeout) => release(&mut held, STDERR_HOLD),
            Err(RecvTimeoutError::Disconnected) => {
                if let Some((t, _)) = held.back() {
                    std::thread::sleep(STDERR_HOLD.saturating_sub(t.elapsed()));
                }
                release(&mut held, Duration::ZERO);
                break;
            }
        }
    }
    sh.stderr_done.store(true, Ordering::SeqCst);
}

/// Binds the abstract socket and accepts the ranks' connections.
fn listen(shared: &Arc<Shared>) -> Option<String> {
    let name = format!(
        "mpibench.{}.{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0)
    );
    let addr = SocketAddr::from_abstract_name(name.as_bytes()).ok()?;
    let listener = UnixListener::bind_addr(&addr).ok()?;
    let sh = Arc::clone(shared);
    crate::sys::spawn(move || {
        for (id, conn) in listener.incoming().enumerate() {
            let id = id as u64;
            let Ok(conn) = conn else { continue };
            let Ok(writer) = conn.try_clone() else {
                continue;
            };
            let sig = sh.signal.load(Ordering::SeqCst);
            {
                let mut conns = sh.conns.lock().unwrap_or_else(|e| e.into_inner());
                let mut w = writer;
                if sig != 0 {
                    // Connected after the interruption (or the failed
                    // write): tell it at once.
                    let failed = sig == SIGPIPE
                        && sh
                            .stdout_error
                            .lock()
                            .unwrap_or_else(|e| e.into_inner())
                            .is_some();
                    let msg = if failed {
                        format!("{}\n", link::FAIL_WRITE)
                    } else {
                        format!("stop {}\n", signal_name(sig))
                    };
                    let _ = w.write_all(msg.as_bytes());
                }
                conns.push(w);
            }
            sh.hangups.watch(id, std::os::fd::AsRawFd::as_raw_fd(&conn));
            sh.seen().open += 1;
            let sh2 = Arc::clone(&sh);
            crate::sys::spawn(move || {
                let mut rank: Option<u32> = None;
                for line in BufReader::new(conn).lines() {
                    let Ok(line) = line else { break };
                    if let Some(r) = line.strip_prefix("start ") {
                        rank = r.split_whitespace().next().and_then(|r| r.parse().ok());
                        if let Some(r) = rank {
                            sh2.hangups.name(id, r);
                        }
                    }
                    if line == crate::link::READY && crate::files::stdout_closed_at_start() {
                        // A stdout closed from the start (`>&-`) would fail
                        // the run's first table: once rank 0's files are
                        // open, the run ends as that failed write, before
                        // its first benchmark rather than after its last.
                        *sh2.stdout_error.lock().unwrap_or_else(|e| e.into_inner()) =
                            Some(std::io::Error::from_raw_os_error(libc::EBADF));
                        sh2.fail_write();
                        continue;
                    }
                    if let Some((dir, prefix)) = link::parse_scratch(&line) {
                        // Removed in `conclude`, once no rank is left.
                        crate::files::register_scratch(&dir, &prefix);
                        continue;
                    }
                    if let (Some(bar), Some(e)) = (&sh2.bar, crate::progress::Event::parse(&line)) {
                        bar.update(&e);
                        continue;
                    }
                    let signalled = sh2.signal.load(Ordering::SeqCst) != 0;
                    sh2.seen().record_at(&line, signalled);
                    if (line.starts_with("said ") || line.starts_with("crashed "))
                        && !line.ends_with(" 0")
                    {
                        sh2.end_child(true);
                    }
                }
                let mut seen = sh2.seen();
                if let Some(r) = rank.filter(|r| !seen.spoke.contains(r)) {
                    seen.vanished.push(r);
                    seen.deaths.push((r, None));
                    seen.death_times.push(Instant::now());
                }
                seen.open -= 1;
            });
        }
    });
    Some(name)
}

fn watch_signals(shared: &Arc<Shared>) {
    // A signal inherited as ignored (nohup, a script's `&`) stays ignored:
    // mpiexec inherits that too, and the run goes on.
    let wanted = signals::not_ignored(&[SIGINT, SIGTERM, SIGHUP]);
    let Ok(mut signals) = signal_hook::iterator::Signals::new(wanted) else {
        return;
    };
    let sh = Arc::clone(shared);
    crate::sys::spawn(move || {
        for sig in signals.forever() {
            sh.interrupt(sig);
        }
    });
}

/// A pipe on stdout whose reader went away (`| head`) reports POLLERR: the
/// run stops as on SIGPIPE, quietly. (The ranks cannot see it: Open MPI
/// gives them a pseudo-terminal and mpiexec ignores SIGPIPE.)
fn watch_stdout(shared: &Arc<Shared>) {
    if !crate::sys::fd_file(1)
        .is_some_and(|(kind, _, _)| matches!(kind, libc::S_IFIFO | libc::S_IFSOCK))
    {
        return;
    }
    let sh = Arc::clone(shared);
    crate::sys::spawn(move || loop {
        let (n, revents) = crate::sys::poll_fd(1, 0, -1);
        if n > 0 && revents & (libc::POLLERR | libc::POLLHUP) != 0 {
            sh.interrupt(SIGPIPE);
            return;
        }
        if n < 0 && std::io::Error::last_os_error().kind() != std::io::ErrorKind::Interrupted {
            return;
        }
    });
}

/// After mpiexec ended: gives the local ranks time to end, then closes the
/// links (a rank that sees end-of-file stops) and kills what is left.
fn reap_ranks(shared: &Shared) {
    let wait_closed = |limit: Duration| {
        let end = Instant::now() + limit;
        while shared.seen().open > 0 && Instant::now() < end {
            std::thread::sleep(Duration::from_millis(20));
        }
    };
    wait_closed(RANK_EXIT_GRACE);
    if shared.seen().open == 0 {
        return;
    }
    for c in shared
        .conns
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .iter()
    {
        let _ = c.shutdown(std::net::Shutdown::Both);
    }
    wait_closed(Duration::from_secs(3));
    for &pid in &shared.seen().pids {
        // These processes told us their pid over our private socket.
        crate::sys::kill(pid, libc::SIGKILL);
    }
}

/// What the JSON file really holds after an interruption, for the one
/// line: its status and how many results, or that it was never written.
/// Only a regular file is read (never a FIFO, a device or stdout).
fn json_state(path: &std::path::Path) -> String {
    let shown = path.display();
    match std::fs::metadata(path) {
        Ok(m) if m.is_file() => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return format!("; '{shown}' was not written")
        }
        _ => return String::new(),
    }
    let v: Option<serde_json::Value> = std::fs::read(path)
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok());
    let Some(v) = v else {
        return format!("; '{shown}' holds no readable results");
    };
    let n = v["results"].as_array().map_or(0, Vec::len);
    let status = v["status"].as_str().unwrap_or("unknown");
    let results = if n == 1 { "result" } else { "results" };
    if status == "interrupted" {
        format!("; the {n} {results} finished so far are in '{shown}' (status \"interrupted\")")
    } else {
        format!("; '{shown}' holds {n} {results} with status \"{status}\"")
    }
}

fn describe(status: ExitStatus) -> String {
    match (status.code(), status.signal()) {
        (Some(c), _) => format!("exited with code {c}"),
        (None, Some(s)) => format!("was killed by {}", signal_name(s)),
        _ => "ended".to_string(),
    }
}

/// `ulimit -v`, when set: the most common reason for MPI not to start here.
pub fn address_space_hint() -> String {
    match crate::sys::address_space_limit() {
        Some(limit) => format!(
            "; the address-space limit (ulimit -v) is {} KiB",
            limit / 1024
        ),
        None => String::new(),
    }
}

/// A signal that ends a job when sent from outside (not a crash).
fn ends_a_job(sig: i32) -> bool {
    [
        libc::SIGKILL,
        libc::SIGTERM,
        libc::SIGINT,
        libc::SIGHUP,
        libc::SIGQUIT,
    ]
    .contains(&sig)
}

/// The exit code (and the one line, when the ranks did not print one).
///
/// `outside`: the launcher died of a signal that we did not send.
fn verdict(
    seen: &Seen,
    parent_signal: i32,
    status: ExitStatus,
    outside: bool,
    l: &Launcher,
) -> i32 {
    if std::env::var_os("MPIBENCH_DEBUG_SUPERVISE").is_some() {
        eprintln!("supervise: {seen:?} signal {parent_signal} {status:?}");
    }
    // A rank's own failure explains the signals the launcher then sends.
    // A rank's own failure, or rank 0's decided end, explains the signals
    // the launcher then sends; so does MPI failing to start everywhere.
    let failed = seen.said.iter().find(|(_, c)| *c != 0).map(|&(_, c)| c);
    let crashed = !seen.crashed.is_empty();
    // A crash that followed a rank's silent death (a survivor's transport
    // faulting on the vanished peer) does not hide that death: the parent
    // learnt of the death first, or within a moment of the crash.
    let vanished_first = !seen.vanished.is_empty()
        && (matches!(seen.deaths.first(), Some((_, None))) || seen.vanished_with_first_crash());
    let crashed_first = crashed && !vanished_first;
    let rank0_end = seen.ended.iter().find(|(r, _)| *r == 0).map(|&(_, c)| c);
    let all_up = seen.up.len() == seen.started.len();
    // A launcher that itself died of a signal took its ranks along: that
    // is the launcher's failure, not a rank's death.
    if let (0, Some(&rank), None, false, None, true, None) = (
        parent_signal,
        seen.vanished.first(),
        failed,
        crashed_first,
        rank0_end,
        all_up,
        status.signal(),
    ) {
        // A rank vanished without a word (SIGKILL, the OOM killer): the
        // interruption or failure that followed is the launcher's doing.
        let outcome = Outcome::RankDied {
            rank: Some(rank),
            signal: died_of(status),
        };
        if let Some(p) = l.json {
            mark_json(p, outcome);
        }
        return outcome.say(
            "; the launcher ended the job (a rank killed from outside, or by the OOM killer: see dmesg)",
        );
    }
    let stop = (parent_signal != 0)
        .then_some((None, parent_signal))
        .or(seen
            .stopped
            .filter(|_| failed.is_none() && !crashed && rank0_end.is_none() && all_up)
            .map(|(r, s)| (Some(r), s)));
    if let Some((rank, sig)) = stop {
        if let (Some(code), None, true) = (rank0_end, rank, seen.rank0_ended_first) {
            // Rank 0 had decided how the run ends (its outputs final)
            // before the signal reached the job: that outcome stands.
            return code;
        }
        let by = rank
            .map(|r| format!(" (received by rank {r})"))
            .unwrap_or_default();
        let json = l.json.map(json_state).unwrap_or_default();
        return Outcome::Interrupted { signal: sig }.say(&format!("{by}{json}"));
    }
    // A rank's failure explains a launcher that died of a signal when we
    // ended it, or when the launcher crashed (SIGSEGV, SIGABRT) after the
    // rank's line went through it. A kill from outside does not: the ranks
    // fail because their launcher is gone, and their lines went with it.
    let killed_outside = outside && status.signal().is_some_and(ends_a_job);
    if let (0, Some(sig), false, true) = (
        parent_signal,
        status.signal(),
        seen.started.is_empty(),
        failed.is_none() || killed_outside,
    ) {
        // The ranks' own messages went through the launcher that died.
        return Outcome::LauncherFailed.say(&format!(
            "the launcher '{}' was killed by {} while the job ran; the results are incomplete",
            l.name,
            signal_name(sig)
        ));
    }
    if seen.started.is_empty() {
        return Outcome::LauncherFailed.say(&format!(
            "the launcher '{}' {} without starting any mpibench rank{}",
            l.name,
            describe(status),
            address_space_hint()
        ));
    }
    from_ranks(seen, failed, rank0_end, status, l)
}

/// The exit code when neither a signal nor the launcher's own failure
/// explains the end: what the ranks reported (a failure of their own, a
/// crash, rank 0's end, MPI that did not start), else an error.
fn from_ranks(
    seen: &Seen,
    failed: Option<i32>,
    rank0_end: Option<i32>,
    status: ExitStatus,
    l: &Launcher,
) -> i32 {
    if let (Some(&(rank, signal)), Some(p)) = (seen.fatal().as_ref(), l.json) {
        // A rank crashed of a fatal signal: the JSON names it as a death.
        mark_json(
            p,
            Outcome::RankDied {
                rank: Some(rank),
                signal,
            },
        );
    }
    if let Some(code) = failed {
        // A rank ended the run for a reason of its own: the JSON says which.
        if let (Some((_, w)), Some(p)) = (&seen.reason, l.json) {
            let o = [Outcome::Timeout, Outcome::Stall]
                .into_iter()
                .find(|o| o.reason() == w);
            if let Some(o) = o {
                mark_json(p, o);
            }
        }
        return code;
    }
    if let Some(&(rank, code)) = seen.crashed.first() {
        let sig = seen
            .deaths
            .iter()
            .find_map(|&(r, s)| s.filter(|_| r == rank))
            .map(|s| (rank, s));
        let what = match sig {
            _ if code == EXIT_MPI_START => {
                "inside MPI_Init: the MPI library could not start here".to_string()
            }
            Some((_, sig)) => format!("of {}; the job was ended", signal_name(sig)),
            None => "with a fatal signal; the job was ended".to_string(),
        };
        eprintln!("error: rank {rank} crashed {what}{}", address_space_hint());
        return code;
    }
    if let Some(code) = rank0_end {
        return code;
    }
    if seen.up.len() < seen.started.len() {
        let missing: Vec<String> = seen
            .started
            .difference(&seen.up)
            .map(u32::to_string)
            .collect();
        return Outcome::MpiStartFailed.say(&format!(
            "MPI_Init did not complete on rank {} (the launcher '{}' {}): the MPI library could not start{}",
            missing.join(", "),
            l.name,
            describe(status),
            address_space_hint()
        ));
    }
    Outcome::Error.say(&format!(
        "the job ended without a result from rank 0: the launcher '{}' {}",
        l.name,
        describe(status)
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn exited(code: i32) -> ExitStatus {
        ExitStatus::from_raw(code << 8)
    }

    fn launcher() -> Launcher<'static> {
        Launcher {
            name: "mpiexec",
            json: None,
            death_signal: libc::SIGKILL,
            start_deadline: START_DEADLINE_MIN,
        }
    }

    #[test]
    fn a_resource_that_ran_out_is_named() {
        let e = |n| std::io::Error::from_raw_os_error(n);
        let l = spawn_error("mpiexec", &e(libc::EMFILE));
        assert!(
            l.starts_with("error: too many open files (ulimit -n "),
            "{l}"
        );
        let l = spawn_error("mpiexec", &e(libc::EAGAIN));
        assert!(
            l.starts_with("error: too many processes (ulimit -u "),
            "{l}"
        );
        let l = spawn_error("/x/mpiexec", &e(libc::ENOENT));
        assert!(
            l.starts_with("error: cannot start the launcher '/x/mpiexec': No such file"),
            "{l}"
        );
        for l in [l, spawn_error("m", &e(libc::ENOMEM))] {
            assert!(!l.contains('\n'), "{l}");
        }
    }

    #[test]
    fn the_start_deadline() {
        let s = Duration::from_secs;
        assert_eq!(deadline_from(None, None), s(60));
        assert_eq!(deadline_from(None, Some(5.0)), s(60), "at least 60 s");
        assert_eq!(
            deadline_from(None, Some(300.0)),
            s(300),
            "--timeout when longer"
        );
        assert_eq!(
            deadline_from(Some("3"), Some(300.0)),
            s(3),
            "the variable wins"
        );
        assert_eq!(deadline_from(Some("0.5"), None), Duration::from_millis(500));
        for bad in ["", "0", "-3", "x", "inf", "nan"] {
            assert_eq!(deadline_from(Some(bad), None), s(60), "{bad:?} is ignored");
        }
        let line = start_deadline_line("./hang.sh", s(3));
        assert!(
            line.starts_with("the launcher './hang.sh' started no mpibench rank within 3 s"),
            "{line}"
        );
    }

    #[test]
    fn records_rank_reports() {
        let mut s = Seen::default();
        for l in [
            "start 0 100",
            "start 1 101",
            "up 0",
            "said 1 5",
            "end 0 0",
            "stopped 1 SIGTERM",
            "stalled 1",
            "junk",
        ] {
            s.record(l);
        }
        assert_eq!(s.started.len(), 2);
        assert_eq!(s.pids, vec![100, 101]);
        assert_eq!(s.said, vec![(1, 5)]);
        assert_eq!(s.ended, vec![(0, 0)]);
        assert_eq!(s.stopped, Some((1, SIGTERM)));
        assert!(s.stalled);
        assert_eq!(s.fatal(), None, "a line without a signal names none");
        s.record("crashed 2 3 11");
        s.record("said 3 3 7");
        assert_eq!(
            s.fatal(),
            Some((2, libc::SIGSEGV)),
            "the first crash counts"
        );
    }

    #[test]
    fn one_failure_on_two_ranks_is_one_line() {
        let a = b"error: MPI_Wait failed on rank 0 during Scatter_persist, 8 bytes, 3 processes: Other MPI error, error stack: MPI_Wait(request=0x7f19ec068dd0, status=0x1) failed\n";
        let b = b"error: MPI_Wait failed on rank 1 during Scatter_persist, 8 bytes, 3 processes: Other MPI error, error stack: MPI_Wait(request=0x7f23100680c0, status=0x1) failed\n";
        assert_eq!(failure_key(a), failure_key(b));
        // Another call, another size or another message is another failure.
        let c = b"error: MPI_Wait failed on rank 1 during Scatter_persist, 16 bytes, 3 processes: Other MPI error\n";
        assert_ne!(failure_key(a), failure_key(c));
        let d = b"error: rank 1 died (SIGKILL)\n";
        let e = b"error: rank 2 died (SIGSEGV)\n";
        assert_ne!(failure_key(d), failure_key(e));
        // Only error lines are folded.
        assert_eq!(
            failure_key(b"mpibench: [1/2] Scatter_persist on 2 processes\n"),
            None
        );
    }

    #[test]
    fn own_lines_pass_at_once() {
        assert!(own_line(b"error: rank 1 died (SIGKILL)\n"));
        assert!(own_line(b"warning: --iter 5 is small\n"));
        assert!(own_line(b"mpibench: interrupted by SIGINT\n"));
        assert!(!own_line(
            b"[vm:1:0:2] cma_ep.c:81 process_vm_readv(...) returned -1\n"
        ));
        assert!(!own_line(b"==== backtrace (tid: 2) ====\n"));
        assert!(!own_line(b"errors: none\n"));
    }

    #[test]
    fn the_interruption_line_says_what_the_json_holds() {
        let d = tempfile::tempdir().unwrap();
        let f = d.path().join("out.json");
        assert!(json_state(&f).contains("was not written"));
        std::fs::write(&f, r#"{"status": "interrupted", "results": [{}, {}]}"#).unwrap();
        let s = json_state(&f);
        assert!(
            s.contains("the 2 results finished so far") && s.contains("\"interrupted\""),
            "{s}"
        );
        std::fs::write(&f, r#"{"status": "ok", "complete": true, "results": [{}]}"#).unwrap();
        let s = json_state(&f);
        assert!(s.contains("holds 1 result with status \"ok\""), "{s}");
        std::fs::write(&f, "{").unwrap();
        assert!(json_state(&f).contains("no readable results"));
        assert_eq!(json_state(d.path()), "", "a directory is not read");
    }

    #[test]
    fn a_signal_after_rank_0_ended_keeps_its_code() {
        let l = launcher();
        let mut s = Seen::default();
        for x in ["start 0 1", "start 1 2", "up 0", "up 1", "end 0 0"] {
            s.record(x);
        }
        assert_eq!(verdict(&s, SIGINT, exited(0), false, &l), 0);
        s.ended.clear();
        s.record("end 0 1");
        assert_eq!(verdict(&s, SIGTERM, exited(1), false, &l), 1);
        s.ended.clear();
        assert_eq!(verdict(&s, SIGTERM, exited(1), false, &l), 143);
        // An end reported after the signal is the interruption's doing.
        let mut s = Seen::default();
        for x in ["start 0 1", "start 1 2", "up 0", "up 1"] {
            s.record(x);
        }
        s.record_at("end 0 3", true);
        assert_eq!(verdict(&s, SIGPIPE, exited(3), false, &l), 141);
    }

    #[test]
    fn the_first_death_is_the_cause() {
        let d = tempfile::tempdir().unwrap();
        let f = d.path().join("j.json");
        let l = Launcher {
            json: Some(&f),
            ..launcher()
        };
        let judge = |lines: &[&str], vanished_first: bool| {
            std::fs::write(&f, r#"{"status": "aborted", "reason": "error"}"#).unwrap();
            let mut s = Seen::default();
            for x in ["start 0 1", "start 1 2", "up 0", "up 1"] {
                s.record(x);
            }
            if vanished_first {
                s.vanished.push(0);
                s.deaths.push((0, None));
                s.death_times.push(Instant::now());
            }
            for x in lines {
                s.record(x);
            }
            if !vanished_first {
                std::thread::sleep(DEATH_ORDER_SLACK * 2);
                s.vanished.push(0);
                s.deaths.push((0, None));
                s.death_times.push(Instant::now());
            }
            assert_eq!(verdict(&s, 0, exited(9), false, &l), 3);
            let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&f).unwrap()).unwrap();
            (v["reason"].clone(), v["signal"].clone())
        };
        // Rank 0 killed, then rank 1's transport faulted on the dead peer.
        assert_eq!(
            judge(&["crashed 1 3 7"], true),
            ("rank_died".into(), "SIGKILL".into())
        );
        // Rank 1 crashed first: its signal is the cause.
        assert_eq!(
            judge(&["crashed 1 3 11"], false),
            ("rank_died".into(), "SIGSEGV".into())
        );
    }

    /// Two silent deaths learnt in the wrong order (the reader threads
    /// woke late) take the order in which their links hung up; a crash
    /// keeps its place.
    #[test]
    fn silent_deaths_take_the_hangup_order() {
        let mut s = Seen::default();
        for d in [(0, None), (2, Some(11)), (1, None), (3, None)] {
            s.deaths.push(d);
            s.death_times.push(Instant::now());
            if d.1.is_none() {
                s.vanished.push(d.0);
            }
        }
        s.in_hangup_order(&[1, 0]);
        assert_eq!(s.deaths, [(1, None), (2, Some(11)), (0, None), (3, None)]);
        assert_eq!(s.vanished, [1, 0, 3]);
        // No hang-up order known: as learnt.
        s.in_hangup_order(&[]);
        assert_eq!(s.vanished, [1, 0, 3]);
    }

    /// The kernel's order: links closed one after the other are read back
    /// in that order, however late.
    #[test]
    fn hangups_are_read_in_the_order_they_happened() {
        let h = Hangups::new();
        let mut keep = Vec::new();
        let mut peers = Vec::new();
        for id in 0..3u64 {
            let (a, b) = UnixStream::pair().unwrap();
            h.watch(id, std::os::fd::AsRawFd::as_raw_fd(&a));
            h.name(id, id as u32 + 10);
            keep.push(a);
            peers.push(Some(b));
        }
        for i in [2, 0, 1] {
            peers[i] = None;
        }
        assert_eq!(h.order(), [12, 10, 11]);
    }

    #[test]
    fn a_rank_that_vanished_died() {
        let l = launcher();
        let mut s = Seen::default();
        for x in [
            "start 0 1",
            "start 1 2",
            "up 0",
            "up 1",
            "stopped 0 SIGTERM",
        ] {
            s.record(x);
        }
        s.vanished.push(1);
        // Open MPI's mpiexec: 128 + 9; Hydra: 9. Rank 0's SIGTERM was the
        // launcher ending the job.
        assert_eq!(verdict(&s, 0, exited(137), false, &l), 3);
        assert_eq!(died_of(exited(137)), libc::SIGKILL);
        assert_eq!(died_of(exited(9)), libc::SIGKILL);
        assert_eq!(died_of(exited(0)), 0);
        // The launcher itself killed from outside took its ranks along: a
        // launcher failure (4), not a rank's death.
        let mut k = Seen::default();
        for x in ["start 0 1", "start 1 2", "up 0", "up 1"] {
            k.record(x);
        }
        k.vanished.push(0);
        assert_eq!(
            verdict(&k, 0, ExitStatus::from_raw(libc::SIGKILL), true, &l),
            EXIT_LAUNCHER
        );
        // The user's interruption comes first.
        assert_eq!(verdict(&s, SIGINT, exited(130), false, &l), 130);
        // A rank's own failure explains the rest.
        s.record("said 0 3");
        assert_eq!(verdict(&s, 0, exited(137), false, &l), 3);
        let d = tempfile::tempdir().unwrap();
        let f = d.path().join("j.json");
        std::fs::write(
            &f,
            r#"{"status": "interrupted", "interrupted_by": "SIGTERM", "complete": false}"#,
        )
        .unwrap();
        mark_json(
            &f,
            Outcome::RankDied {
                rank: Some(1),
                signal: libc::SIGKILL,
            },
        );
        let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&f).unwrap()).unwrap();
        assert_eq!(v["status"], "aborted");
        assert_eq!(v["reason"], "rank_died");
        assert_eq!(v["signal"], "SIGKILL");
        assert!(v.get("interrupted_by").is_none());
        // A final "ok" is never touched.
        std::fs::write(&f, r#"{"status": "ok", "reason": "ok", "complete": true}"#).unwrap();
        mark_json(&f, Outcome::Timeout);
        let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&f).unwrap()).unwrap();
        assert_eq!(v["status"], "ok");
    }

    #[test]
    fn verdicts() {
        let l = launcher();
        assert_eq!(verdict(&Seen::default(), SIGINT, exited(1), false, &l), 130);
        assert_eq!(
            verdict(&Seen::default(), 0, exited(0), false, &l),
            EXIT_LAUNCHER
        );
        let mut s = Seen::default();
        s.record("start 0 1");
        s.record("start 1 2");
        assert_eq!(verdict(&s, 0, exited(1), false, &l), EXIT_MPI_START);
        s.record("up 0");
        s.record("up 1");
        s.record("end 0 2");
        assert_eq!(verdict(&s, 0, exited(2), false, &l), 2);
        s.ended.clear();
        s.record("stopped 0 SIGHUP");
        assert_eq!(verdict(&s, 0, exited(1), false, &l), 129);
        s.record("end 0 3");
        assert_eq!(
            verdict(&s, 0, exited(1), false, &l),
            3,
            "rank 0's end explains the signal"
        );
        s.ended.clear();
        s.record("crashed 1 3");
        assert_eq!(
            verdict(&s, 0, exited(1), false, &l),
            3,
            "a crash explains the signal"
        );
        s.record("said 1 3");
        assert_eq!(
            verdict(&s, 0, exited(3), false, &l),
            3,
            "a failure explains the signal"
        );
        s.record("stalled 1");
        assert_eq!(
            verdict(&s, 0, ExitStatus::from_raw(libc::SIGKILL), false, &l),
            3,
            "after a stall the parent killed the launcher itself"
        );
        assert_eq!(
            verdict(&s, SIGINT, exited(3), false, &l),
            130,
            "the parent's signal first"
        );
        assert_eq!(
            verdict(&s, 0, ExitStatus::from_raw(libc::SIGKILL), true, &l),
            EXIT_LAUNCHER,
            "a launcher killed from outside, whatever the ranks said"
        );
        assert_eq!(
            verdict(&s, 0, ExitStatus::from_raw(libc::SIGSEGV), true, &l),
            3,
            "a launcher that crashed after a rank's failure"
        );
    }
}
