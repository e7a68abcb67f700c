//! What a rank does when it is told to stop, crashes or panics, so that no
//! signal, crash or panic leaves a hang, an orphan or a wrong status.
//!
//! * SIGINT, SIGTERM and SIGHUP (from the user, `timeout`, a batch system, or
//!   forwarded by mpiexec), a closed stdout pipe, a stop message from the
//!   self-launching parent or that parent's death all end in [`stop`]: rank 0
//!   writes the results finished so far with status "interrupted", says so
//!   in one line (unless the parent does) and the job ends with code
//!   128 + signal. Another rank passes the signal on to rank 0 when it can
//!   (same host) and gives rank 0 time to write before it ends itself.
//! * A panic prints one line and ends the job ([`end_job`]).
//! * SIGSEGV, SIGBUS, SIGILL, SIGFPE and SIGABRT print one line and end the
//!   process: with [`EXIT_MPI_START`] inside `MPI_Init` (the library could
//!   not start, e.g. under `ulimit -v`), with code 3 afterwards; the
//!   launcher then ends the other ranks.

use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use signal_hook::consts::{SIGHUP, SIGINT, SIGPIPE, SIGTERM};

use crate::outcome::{signal_name, Outcome, EXIT_MPI_START, PARENT_DIED};
use crate::{comm, files, link, output, sys};

/// A rank failed (same as `--timeout` and allocation failures).
const EXIT_ABORTED: i32 = crate::outcome::EXIT_ABORTED;

/// Another rank announced its failure (SIGUSR2 from its panic hook or crash
/// handler): a SIGTERM that follows is the launcher ending the job because
/// of it, not an interruption, and rank 0 stays quiet about it.
static PEER_FAILED: AtomicBool = AtomicBool::new(false);
/// The signal by which a failing rank tells rank 0 (on the same host).
const PEER_FAILED_SIGNAL: i32 = libc::SIGUSR2;

/// The exit code decided at the normal end (`ENDED_NOT_YET` before): a
/// signal after it (the launcher ending ranks that are still finalising)
/// ends the process quietly with that code.
static ENDED_WITH: AtomicI32 = AtomicI32::new(ENDED_NOT_YET);
const ENDED_NOT_YET: i32 = i32::MIN;

/// First stop request (signal number), 0 while running.
static STOP: AtomicI32 = AtomicI32::new(0);
/// MPI is initialised and not finalised: the job can be ended with MPI_Abort.
static MPI_UP: AtomicBool = AtomicBool::new(false);
/// Inside MPI_Init (fatal signals are then the library failing to start).
static IN_INIT: AtomicBool = AtomicBool::new(false);
/// World rank (from the launcher's environment until MPI says).
static RANK: AtomicU32 = AtomicU32::new(0);
/// Rank 0's pid when it runs on this host (0: unknown or elsewhere).
static RANK0_PID: AtomicI32 = AtomicI32::new(0);
/// Rank 0: the (rank, pid) of the other ranks on its host.
static PEERS: OnceLock<Vec<(u32, i32)>> = OnceLock::new();
/// Ending with `_exit` ends the whole job (see `link::exit_ends_job`).
static EXIT_ENDS_JOB: AtomicBool = AtomicBool::new(false);

/// How long a signal waits for the link to the parent to tell that the
/// parent died (see [`stop`]).
const PARENT_GONE_WAIT: Duration = Duration::from_millis(300);
/// Ranks other than 0 wait this long for rank 0 to write and end the job.
const RANK0_GRACE: Duration = Duration::from_secs(3);
/// Time for the launcher to pass the one line on before the job ends.
const LINE_DRAIN: Duration = Duration::from_millis(300);
/// If MPI_Abort itself hangs (its daemon is gone), the process still ends.
const ABORT_DEADLINE: Duration = Duration::from_secs(3);

/// The signals (bit `sig`) that were ignored when the process started,
/// recorded before any library's constructor ran (see [`RECORD_INHERITED`]).
static INHERITED_IGNORED: AtomicU64 = AtomicU64::new(0);

/// Runs before the shared libraries' constructors: UCX's (MPICH) installs a
/// SIGHUP handler when it is loaded, over an inherited SIG_IGN.
#[used]
#[link_section = ".preinit_array"]
static RECORD_INHERITED: extern "C" fn() = record_inherited;

extern "C" fn record_inherited() {
    let mut bits = 0u64;
    for sig in 1..64 {
        if disposition_ignored(sig) {
            bits |= 1 << sig;
        }
    }
    INHERITED_IGNORED.store(bits, Ordering::Relaxed);
}

fn disposition_ignored(sig: i32) -> bool {
    sys::signal_ignored(sig)
}

/// True when `sig` is ignored now or was when the process started:
/// inherited that way (`nohup` ignores SIGHUP; a script's `cmd &` ignores
/// SIGINT and SIGQUIT), it is the caller's wish and no handler may
/// override it.
pub fn ignored(sig: i32) -> bool {
    (0..64).contains(&sig) && INHERITED_IGNORED.load(Ordering::Relaxed) & (1 << sig) != 0
        || disposition_ignored(sig)
}

/// The signals of `sigs` that were not inherited as ignored (see [`ignored`]);
/// those that were are set back to SIG_IGN where a library's constructor
/// replaced it (and mpiexec inherits that). Call before anything installs a
/// handler for them.
pub fn not_ignored(sigs: &[i32]) -> Vec<i32> {
    sigs.iter()
        .copied()
        .filter(|&s| {
            if !ignored(s) {
                return true;
            }
            if !disposition_ignored(s) {
                sys::ignore_signal(s);
            }
            false
        })
        .collect()
}

/// Installs the panic hook, the fatal-signal handlers and the stop thread,
/// connects to a self-launching parent and marks the start of `MPI_Init`.
/// Call on every rank right before `MPI_Init`.
pub fn before_mpi_init() {
    RANK.store(link::env_rank() as u32, Ordering::Relaxed);
    EXIT_ENDS_JOB.store(link::exit_ends_job(), Ordering::Relaxed);
    install_panic_hook();
    // An MPI error ends the job as every other fatal error on a rank.
    comm::error::on_end_job(said_and_end);
    // Also under a launcher that did not start us with it ignored.
    ignore_sigxfsz();
    fatal::install();
    // A stop signal inherited as ignored (nohup, a script's `&`) stays ignored.
    let mut wanted = not_ignored(&[SIGINT, SIGTERM, SIGHUP]);
    wanted.push(PEER_FAILED_SIGNAL);
    // Registered before the iterator's own action, so it runs first: the
    // value a crashed peer queued with its signal (see [`tell_rank0_failed`]).
    sys::record_queued_value(PEER_FAILED_SIGNAL, &PEER_SIGNAL);
    match signal_hook::iterator::Signals::new(wanted) {
        Ok(mut signals) => {
            sys::spawn(move || {
                for sig in signals.forever() {
                    if sig == PEER_FAILED_SIGNAL {
                        PEER_FAILED.store(true, Ordering::SeqCst);
                        // That rank said what happened; what the library
                        // says while the job comes apart is noise.
                        mute_stderr();
                        if RANK.load(Ordering::Relaxed) == 0 {
                            // The job ends because of that rank: the
                            // outputs say so now, before a launcher that
                            // kills at once (Hydra) takes this rank too.
                            let _ = output::interrupt(peer_outcome());
                        }
                    } else {
                        stop(sig);
                    }
                }
            });
        }
        Err(e) => eprintln!("warning: cannot handle SIGINT/SIGTERM/SIGHUP: {e}"),
    }
    link::connect(link::env_rank(), stop_with);
    limit_malloc_arenas();
    IN_INIT.store(true, Ordering::SeqCst);
}

/// Under an address-space limit (`ulimit -v`), glibc's 64 MiB of address
/// space per malloc arena (one per thread that allocates: MPI's progress
/// threads) is what exhausts the limit inside `MPI_Init`; one arena
/// avoids that. Without a limit nothing changes.
fn limit_malloc_arenas() {
    if sys::address_space_limit().is_some() {
        sys::one_malloc_arena();
    }
}

/// This process's world rank (the launcher's until MPI has started).
pub fn rank() -> u32 {
    RANK.load(Ordering::Relaxed)
}

/// After `MPI_Init`: rank 0 tells every rank its pid and host, so that a
/// rank that alone receives a signal can pass it on.
pub fn mpi_started(world: &comm::Comm) {
    IN_INIT.store(false, Ordering::SeqCst);
    MPI_UP.store(true, Ordering::SeqCst);
    RANK.store(world.rank as u32, Ordering::Relaxed);
    let host = comm::processor_name();
    let mut bytes = if world.rank == 0 {
        format!("{} {host}", std::process::id()).into_bytes()
    } else {
        Vec::new()
    };
    world.bcast_vec(&mut bytes, 0);
    let text = String::from_utf8_lossy(&bytes);
    if let Some((pid, h)) = text.split_once(' ') {
        if h == host {
            RANK0_PID.store(pid.parse().unwrap_or(0), Ordering::Relaxed);
        }
    }
    let all = world.gather_strings(&format!("{} {host}", std::process::id()), 0);
    if world.rank == 0 {
        let peers = all
            .iter()
            .enumerate()
            .skip(1)
            .filter_map(|(r, s)| Some((r as u32, s.split_once(' ')?)))
            .filter(|(_, (_, h))| *h == host)
            .filter_map(|(r, (p, _))| Some((r, p.parse().ok()?)))
            .collect();
        let _ = PEERS.set(peers);
    }
    link::tell(&format!("up {}", world.rank));
    // Test hook (robustness tests): a panic on this rank must end the job.
    if std::env::var("MPIBENCH_TEST_PANIC_RANK")
        .ok()
        .and_then(|r| r.parse().ok())
        == Some(world.rank)
    {
        panic!("test panic requested by MPIBENCH_TEST_PANIC_RANK");
    }
}

/// Before `MPI_Finalize`, with the exit code the run ends with: from here on
/// a signal is no interruption, and the job cannot be aborted through MPI.
pub fn mpi_ending(code: i32) {
    ENDED_WITH.store(code, Ordering::SeqCst);
    if STOP.load(Ordering::SeqCst) != 0 {
        // A stop request is ending the job (it wrote the results
        // "interrupted"): its outcome stands, not a normal end. [`stop`]
        // stores before it loads too, so that one of the two always sees
        // the other; the stop thread ends the process.
        loop {
            std::thread::park();
        }
    }
    MPI_UP.store(false, Ordering::SeqCst);
}

/// Ends this rank's part of the run because of `sig` (see the module
/// documentation). Only the first request acts; later ones return at once
/// on other threads, and never return on the acting one.
pub fn stop(sig: i32) {
    // A SIGTERM that reaches a rank after the self-launching parent died
    // (Hydra passing its parent-death signal on) is the parent's exit. It
    // can overtake the link's end of file (a parent-death signal follows
    // the end of the thread that started mpiexec, the link closes with the
    // last thread): the link gets a moment to say so.
    let sig = if sig == SIGTERM && link::parent_gone(PARENT_GONE_WAIT) {
        PARENT_DIED
    } else {
        sig
    };
    // A SIGTERM after a rank on this host vanished is the launcher ending
    // the job because that rank died (the OOM killer's SIGKILL).
    if let Some((rank, signal)) = (sig == SIGTERM).then(dead_peer).flatten() {
        return stop_with(Outcome::RankDied {
            rank: Some(rank),
            signal,
        });
    }
    stop_as(sig)
}

/// Rank 0: a rank of this host whose process is gone or a zombie, with
/// the signal that ended it when the zombie still tells (0: unknown).
fn dead_peer() -> Option<(u32, i32)> {
    if RANK.load(Ordering::Relaxed) != 0 {
        return None;
    }
    PEERS.get()?.iter().find_map(|&(rank, pid)| {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok();
        let Some(stat) = stat else {
            return Some((rank, 0));
        };
        // Fields after the command name (in parentheses): state is the
        // first, the wait status (exit_code) the 50th.
        let rest = stat.rsplit_once(')')?.1;
        let f: Vec<&str> = rest.split_whitespace().collect();
        if f.first() != Some(&"Z") {
            return None;
        }
        let status: i32 = f.get(49).and_then(|x| x.parse().ok()).unwrap_or(0);
        Some((
            rank,
            if libc::WIFSIGNALED(status) {
                libc::WTERMSIG(status)
            } else {
                0
            },
        ))
    })
}

/// [`stop`] for a request whose cause is known: the parent's stop message
/// or its death.
pub fn stop_as(sig: i32) {
    stop_with(Outcome::Interrupted { signal: sig })
}

/// Ends this rank's part of the run with `outcome`: an interruption, or a
/// failure the parent or rank 0 found (a failed write of the parent's
/// stdout, a rank that died). Only the first ending acts.
pub fn stop_with(outcome: Outcome) {
    let code = outcome.exit_code();
    if STOP
        .compare_exchange(0, code, Ordering::SeqCst, Ordering::SeqCst)
        .is_err()
    {
        return;
    }
    let ended = ENDED_WITH.load(Ordering::SeqCst);
    if ended != ENDED_NOT_YET {
        // The run's outcome is decided: the parent learns it, not a signal.
        link::tell(&format!("end {} {ended}", RANK.load(Ordering::Relaxed)));
        sys::exit_now(ended)
    }
    if !crate::outcome::claim() {
        // Another ending (a timeout, a stall, a failure) is under way on
        // this rank and ends the process: it has said what happened.
        mute_stderr();
        loop {
            std::thread::park();
        }
    }
    let rank = RANK.load(Ordering::Relaxed);
    if PEER_FAILED.load(Ordering::SeqCst) {
        // The launcher ends the job because another rank failed (and said so).
        let _ = output::interrupt(peer_outcome());
        mute_stderr();
        end_job(EXIT_ABORTED);
    }
    let sig = match outcome {
        Outcome::Interrupted { signal } => signal,
        _ => SIGTERM,
    };
    if let Outcome::Interrupted { .. } = outcome {
        link::tell(&format!("stopped {rank} {}", signal_name(sig)));
    }
    if rank == 0 {
        // The results first: the launcher may end this process any moment.
        let saved = output::interrupt(outcome);
        stop_peers(sig);
        if !link::parent_speaks() {
            if let Some(line) = outcome.line(&saved_detail(outcome, saved)) {
                eprintln!("{line}");
            }
        }
        mute_stderr();
    } else {
        // Rank 0 (or the parent) tells what happened; what the MPI library
        // says while the job comes apart (a peer that vanished mid-transfer)
        // is noise.
        mute_stderr();
        let pid0 = RANK0_PID.load(Ordering::Relaxed);
        if pid0 > 0 && sig != PARENT_DIED {
            // Rank 0's pid, learnt from rank 0 on this host.
            sys::kill(pid0, sig);
            let end = Instant::now() + RANK0_GRACE;
            while Instant::now() < end && sys::kill(pid0, 0) {
                std::thread::sleep(Duration::from_millis(20));
            }
        } else {
            std::thread::sleep(Duration::from_millis(500));
        }
    }
    end_job(code);
}

/// Rank 0: tells the other ranks on this host to stop (and so to fall
/// silent) before it ends, so that none of them reports rank 0's exit as
/// a failed transfer.
fn stop_peers(sig: i32) {
    let relay = if sig == SIGPIPE || sig == PARENT_DIED {
        SIGTERM
    } else {
        sig
    };
    let peers = PEERS.get().map(Vec::as_slice).unwrap_or(&[]);
    for &(_, p) in peers {
        // The pids the ranks of this job reported.
        sys::kill(p, relay);
    }
    if !peers.is_empty() {
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Points stderr at /dev/null (the one line has been said).
fn mute_stderr() {
    mute_stderr_raw()
}

/// [`mute_stderr`], async-signal-safe.
fn mute_stderr_raw() {
    sys::point_fd_at(2, c"/dev/null", libc::O_WRONLY);
}

/// What rank 0 saved at an ending, for its one line.
fn saved_detail(outcome: Outcome, saved: Option<anyhow::Result<usize>>) -> String {
    match (saved, output::first_file()) {
        (Some(Ok(n)), Some(f)) => format!(
            "; {n} results finished so far are in '{}' (status \"{}\")",
            f.display(),
            outcome.status().unwrap_or_default()
        ),
        (Some(Err(e)), _) => format!("; {e:#}"),
        _ => String::new(),
    }
}

/// Ends the whole job with `code`: MPI_Abort while MPI is up (or `_exit`
/// where the launcher ends the job on a non-zero exit anyway), `_exit`
/// otherwise. The one line has been said: stderr is muted first, so that
/// the library's abort banner and its complaints about vanished peers do
/// not follow it.
pub fn end_job(code: i32) -> ! {
    use std::io::Write;
    for f in crate::files::remove_scratch() {
        eprintln!("mpibench: could not remove {f}");
    }
    let _ = std::io::stdout().flush();
    let _ = std::io::stderr().flush();
    if MPI_UP.load(Ordering::SeqCst) {
        // The launcher forwards the line through a pipe; an abort right
        // behind it can end the job before the line got through (Hydra).
        std::thread::sleep(LINE_DRAIN);
    }
    mute_stderr();
    if MPI_UP.load(Ordering::SeqCst) && !EXIT_ENDS_JOB.load(Ordering::Relaxed) {
        sys::spawn(move || {
            std::thread::sleep(ABORT_DEADLINE);
            // Without running destructors.
            sys::exit_now(code)
        });
        comm::abort(code);
    }
    sys::exit_now(code)
}

/// This rank printed the one line of a failure: tells the parent and rank 0,
/// then ends the job with `code` (also the watchdog's way out).
pub fn said_and_end(code: i32) -> ! {
    tell_rank0_failed(0);
    tell_peers_failed();
    link::tell(&format!("said {} {code}", RANK.load(Ordering::Relaxed)));
    end_job(code)
}

/// A stalled rank's way out: as [`said_and_end`], and a launcher left
/// waiting for a dead host is ended too (`sys::teardown::end_stuck_launcher`:
/// the daemon on this host, or Open MPI's mpiexec when it is the parent),
/// so that nothing outlives the job on any host.
pub fn stalled_end(code: i32) -> ! {
    crate::sys::teardown::end_stuck_launcher(link::self_launched());
    said_and_end(code)
}

/// Lets rank 0 (on this host) know that this rank failed and said so.
/// Async-signal-safe.
/// `sig`: the fatal signal this rank crashed of (0: it failed otherwise),
/// which rank 0 records as the run's reason (see [`peer_outcome`]).
fn tell_rank0_failed(sig: i32) {
    let pid0 = RANK0_PID.load(Ordering::Relaxed);
    let rank = RANK.load(Ordering::Relaxed);
    if rank != 0 && pid0 > 0 {
        let value = if sig > 0 {
            ((rank as usize + 1) << 8) | (sig as usize & 0xff)
        } else {
            0
        };
        // The pid is rank 0's on this host.
        sys::sigqueue(pid0, PEER_FAILED_SIGNAL, value);
    }
}

/// What a peer that failed told rank 0 with its signal: (rank + 1) << 8 |
/// the fatal signal, 0 when it failed otherwise.
static PEER_SIGNAL: AtomicUsize = AtomicUsize::new(0);

/// The outcome of a run that a peer's failure ended: its death of a fatal
/// signal, or an error (the peer said which).
fn peer_outcome() -> Outcome {
    match PEER_SIGNAL.load(Ordering::SeqCst) {
        0 => Outcome::Error,
        v => Outcome::RankDied {
            rank: Some(((v >> 8) - 1) as u32),
            signal: (v & 0xff) as i32,
        },
    }
}

/// Rank 0 failed and said so: the ranks of its host stay quiet (their own
/// watchdog would say it again). Async-signal-safe.
fn tell_peers_failed() {
    if RANK.load(Ordering::Relaxed) == 0 {
        for &(_, p) in PEERS.get().map(Vec::as_slice).unwrap_or(&[]) {
            // The pids the ranks of this job reported.
            sys::kill(p, PEER_FAILED_SIGNAL);
        }
    }
}

/// Another rank failed and said so (see [`PEER_FAILED`]).
pub fn peer_failed() -> bool {
    PEER_FAILED.load(Ordering::SeqCst)
}

fn install_panic_hook() {
    std::panic::set_hook(Box::new(|info| {
        let msg = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "panic".into());
        let at = info
            .location()
            .map(|l| format!(" at {}:{}", l.file(), l.line()))
            .unwrap_or_default();
        eprintln!(
            "error: rank {}: internal error: {}{at}; ending the job",
            RANK.load(Ordering::Relaxed),
            msg.lines().next().unwrap_or("")
        );
        said_and_end(EXIT_ABORTED);
    }));
}

/// Every process from the start of `main` (the subcommands without MPI,
/// help, the self-launching parent) until a rank installs its own: a panic
/// prints one line, without a backtrace, and exits with code 3 (a
/// self-launching parent's mpiexec follows through its parent-death signal).
pub fn install_process_panic_hook() {
    std::panic::set_hook(Box::new(|info| {
        let msg = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "panic".into());
        let at = info
            .location()
            .map(|l| format!(" at {}:{}", l.file(), l.line()))
            .unwrap_or_default();
        // `println!` fails on a closed or failing stdout: a failed write.
        if let Some(e) = msg.strip_prefix("failed printing to stdout: ") {
            let e = std::io::Error::other(e.to_string());
            let code = Outcome::WriteFailed.say(&files::stdout_error(e));
            sys::exit_now(code)
        }
        eprintln!(
            "error: internal error: {}{at}",
            msg.lines().next().unwrap_or("")
        );
        sys::exit_now(EXIT_ABORTED)
    }));
}

/// The commands that only print (list, help, report, compare, --dry-run)
/// end at a closed stdout pipe (`| head`) as Unix tools do: killed by
/// SIGPIPE, quietly. Set at the start of `main`.
pub fn default_sigpipe() {
    sys::default_signal(libc::SIGPIPE);
}

/// A run (the ranks, the self-launching parent) sees a closed pipe as
/// EPIPE instead, and ends the job in order (`output::agree`, the parent's
/// stdout relay).
pub fn ignore_sigpipe() {
    sys::ignore_signal(libc::SIGPIPE);
}

/// A file size limit (`ulimit -f`) makes a write fail with EFBIG, reported
/// in one line like any failed write, instead of killing the process with
/// SIGXFSZ. Set at the start of `main`; mpiexec and the ranks inherit it.
pub fn ignore_sigxfsz() {
    sys::ignore_signal(libc::SIGXFSZ);
}

/// Async-signal-safe handlers of the fatal signals.
mod fatal {
    use super::*;

    static PREFIX: OnceLock<Vec<u8>> = OnceLock::new();

    const SIGNALS: [i32; 5] = [
        libc::SIGSEGV,
        libc::SIGBUS,
        libc::SIGILL,
        libc::SIGFPE,
        libc::SIGABRT,
    ];

    pub fn install() {
        let _ = PREFIX.set(format!("error: rank {}: ", RANK.load(Ordering::Relaxed)).into_bytes());
        for sig in SIGNALS {
            // The handler only calls async-signal-safe functions (write, _exit).
            sys::on_fatal_signal(sig, handler);
        }
    }

    fn put(b: &[u8]) {
        sys::write_fd(2, b);
    }

    extern "C" fn handler(sig: i32, _: *mut libc::siginfo_t, _: *mut libc::c_void) {
        let stopping = STOP.load(Ordering::SeqCst);
        if stopping != 0 || crate::outcome::claimed() {
            // The job is coming apart on purpose (a peer vanished mid-call).
            let code = if stopping != 0 {
                stopping
            } else {
                EXIT_ABORTED
            };
            sys::exit_now(code)
        }
        let name: &[u8] = match sig {
            libc::SIGSEGV => b"SIGSEGV (segmentation fault)",
            libc::SIGBUS => b"SIGBUS (bus error)",
            libc::SIGILL => b"SIGILL (illegal instruction)",
            libc::SIGFPE => b"SIGFPE (arithmetic error)",
            _ => b"SIGABRT (abort)",
        };
        let in_init = IN_INIT.load(Ordering::SeqCst);
        let code = if in_init {
            EXIT_MPI_START
        } else {
            EXIT_ABORTED
        };
        // With a parent, only rank 0 speaks (several ranks often crash
        // alike); the parent speaks for another rank that crashed alone.
        // Under a parent it speaks for every rank: a rank that crashes
        // because a peer vanished (a transport aborting on the dead peer)
        // must not tell a story the parent knows better.
        let speak = !link::parent_speaks();
        if speak {
            put(PREFIX.get().map(Vec::as_slice).unwrap_or(b"error: "));
            put(name);
            put(if in_init {
                b" inside MPI_Init: the MPI library could not start here (check `ulimit -v`, TMPDIR and the MPI installation)\n"
            } else {
                b": the rank crashed; ending the job\n"
            });
        } else {
            mute_stderr_raw();
        }
        link::tell_from_signal(code, speak, sig);
        tell_rank0_failed(if in_init { 0 } else { sig });
        if RANK.load(Ordering::Relaxed) != 0 && RANK0_PID.load(Ordering::Relaxed) > 0 && !in_init {
            // Rank 0 (told above) writes "aborted" before this exit makes
            // the launcher end the job.
            sys::nap(Duration::from_secs(1));
        }
        sys::exit_now(code)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_inherited_ignore_is_respected() {
        // SIGUSR1: no test uses it; its disposition is restored.
        let sig = libc::SIGUSR1;
        // SAFETY: signal(2) with plain dispositions.
        let prev = unsafe { libc::signal(sig, libc::SIG_IGN) };
        assert!(ignored(sig));
        assert_eq!(not_ignored(&[sig, SIGTERM]), vec![SIGTERM]);
        unsafe { libc::signal(sig, libc::SIG_DFL) };
        assert!(!ignored(sig));
        assert_eq!(not_ignored(&[sig, SIGTERM]), vec![sig, SIGTERM]);
        // Ignored at the start, then replaced by a library's handler: the
        // ignore is restored.
        INHERITED_IGNORED.fetch_or(1 << sig, Ordering::Relaxed);
        unsafe { libc::signal(sig, libc::SIG_DFL) };
        assert!(ignored(sig));
        assert_eq!(not_ignored(&[sig, SIGTERM]), vec![SIGTERM]);
        assert!(disposition_ignored(sig), "set back to SIG_IGN");
        INHERITED_IGNORED.fetch_and(!(1 << sig), Ordering::Relaxed);
        unsafe { libc::signal(sig, prev) };
    }
}
