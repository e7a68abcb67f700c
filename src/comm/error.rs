//! MPI error codes. Communicators and windows use `MPI_ERRORS_RETURN`, and
//! every call's return code is checked: a failure becomes one line naming
//! the call, the rank and what was running (benchmark, size, processes).
//! Setup calls return it ([`checked`], [`Error`]) and their caller decides;
//! the calls of a timed loop and of teardown ([`check`]) end the job at
//! once, through the registered hook or `MPI_Abort`, with exit code 3. It
//! never becomes a hang or a silent wrong figure.

use std::ffi::{c_char, c_int};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock};

use mpi::ffi;

/// Exit code of a run that ended because of an MPI error or a rank failure.
pub const EXIT_MPI_ERROR: i32 = 3;

static WORLD_RANK: AtomicUsize = AtomicUsize::new(usize::MAX);
static CONTEXT: Mutex<String> = Mutex::new(String::new());
/// What to do before the job is aborted on this rank.
type FatalHook = Box<dyn Fn(&str) + Send>;

/// Called once before the job is aborted (rank 0 marks its results file).
static ON_FATAL: Mutex<Option<FatalHook>> = Mutex::new(None);

/// Remembers this process's world rank for error messages.
pub fn set_world_rank(rank: usize) {
    WORLD_RANK.store(rank, Ordering::Relaxed);
}

/// Describes what is running now, e.g. "PingPong, 1024 bytes, 2 processes".
/// Called outside timed regions only.
pub fn set_context(what: String) {
    *CONTEXT.lock().unwrap_or_else(|e| e.into_inner()) = what;
}

pub fn context() -> String {
    CONTEXT.lock().unwrap_or_else(|e| e.into_inner()).clone()
}

/// Registers what to do before the job is aborted on this rank.
pub fn on_fatal(f: FatalHook) {
    *ON_FATAL.lock().unwrap_or_else(|e| e.into_inner()) = Some(f);
}

/// How this rank ends the job after an MPI error, once it has said so
/// (registered by the layer that handles signals and the self-launching
/// parent before `MPI_Init`; `MPI_Abort` without it).
static END_JOB: OnceLock<fn(i32) -> !> = OnceLock::new();

/// Registers how this rank ends the job after an MPI error (see [`END_JOB`]).
pub fn on_end_job(f: fn(i32) -> !) {
    let _ = END_JOB.set(f);
}

/// Checks the return code of an MPI call of a timed loop or a teardown:
/// a failure ends the job (a partner waits in the matching call, so the
/// ranks could not agree on it).
#[inline(always)]
pub fn check(rc: c_int, call: &'static str) {
    if rc != 0 {
        failed(call, rc)
    }
}

/// Why a setup call (a communicator, group, datatype, operation, window,
/// persistent request or buffer) failed: returned to the caller, which
/// decides what happens to the run.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// An MPI call returned an error code: the one line that names the
    /// call, the rank and what was running. Other ranks may wait inside
    /// the same collective call, so the caller ends the job
    /// ([`Error::end_job`]) rather than asking them to agree.
    #[error("{line}")]
    Call { call: &'static str, line: String },
    /// This rank cannot go on, found before any collective MPI call (its
    /// memory, a count beyond the MPI range): the ranks can agree on it.
    #[error("{0}")]
    Local(String),
}

impl Error {
    /// Whether an MPI call failed (and the job must end at once).
    pub fn is_call(&self) -> bool {
        matches!(self, Error::Call { .. })
    }

    /// Ends the job as [`check`] does after a failed call: the line on
    /// stderr, the fatal hook, exit code [`EXIT_MPI_ERROR`].
    pub fn end_job(&self) -> ! {
        end_job(&self.to_string())
    }
}

/// Checks the return code of a setup call (see [`Error`]).
#[inline]
pub fn checked(rc: c_int, call: &'static str) -> Result<(), Error> {
    if rc == 0 {
        Ok(())
    } else {
        Err(Error::Call {
            call,
            line: message(call, rc),
        })
    }
}

/// `MPI_Error_string` of a code.
pub fn error_string(rc: c_int) -> String {
    let mut buf = vec![0u8; 1024];
    let mut len: c_int = 0;
    let ok = unsafe { ffi::MPI_Error_string(rc, buf.as_mut_ptr() as *mut c_char, &mut len) };
    if ok != 0 {
        return format!("MPI error code {rc}");
    }
    one_line(&String::from_utf8_lossy(
        &buf[..len.clamp(0, 1024) as usize],
    ))
}

/// A library's error text on one line: MPICH's spans several ("Invalid
/// rank, error stack:\nMPI_Send(...) failed\n..."), and the failure must
/// stay one line.
fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The one line that describes a failed call.
pub fn message(call: &str, rc: c_int) -> String {
    let rank = WORLD_RANK.load(Ordering::Relaxed);
    let rank = if rank == usize::MAX {
        "?".to_string()
    } else {
        rank.to_string()
    };
    let ctx = context();
    let during = if ctx.is_empty() {
        String::new()
    } else {
        format!(" during {ctx}")
    };
    format!("{call} failed on rank {rank}{during}: {}", error_string(rc))
}

/// Checks the return code of a call that frees a handle in a `Drop`: as
/// [`check`], except while the thread unwinds from a panic, when the failure
/// is reported on one line and the drop goes on (the panic is what ends the
/// run; aborting here would hide it).
pub fn check_in_drop(rc: c_int, call: &'static str) {
    match in_drop(rc, std::thread::panicking()) {
        InDrop::Fine => {}
        InDrop::Report => eprintln!("error: {} (while unwinding)", message(call, rc)),
        InDrop::Fail => failed(call, rc),
    }
}

/// What [`check_in_drop`] does with a return code.
#[derive(Debug, PartialEq, Eq)]
enum InDrop {
    Fine,
    /// Unwinding already: one line, and the drop goes on.
    Report,
    /// As [`check`]: one line and exit code 3.
    Fail,
}

fn in_drop(rc: c_int, unwinding: bool) -> InDrop {
    match (rc, unwinding) {
        (0, _) => InDrop::Fine,
        (_, true) => InDrop::Report,
        (_, false) => InDrop::Fail,
    }
}

/// Whether MPI is running: initialised and not yet finalised.
fn mpi_running() -> bool {
    let (mut init, mut fin): (c_int, c_int) = (0, 0);
    // SAFETY: both may be called at any time, before MPI_Init and after
    // MPI_Finalize. Should either fail, MPI is taken as not running.
    let ok = unsafe { ffi::MPI_Initialized(&mut init) == 0 && ffi::MPI_Finalized(&mut fin) == 0 };
    ok && init != 0 && fin == 0
}

#[cold]
#[inline(never)]
fn failed(call: &'static str, rc: c_int) -> ! {
    end_job(&message(call, rc))
}

/// Says `msg` on one line, runs the fatal hook and ends the job.
#[cold]
#[inline(never)]
fn end_job(msg: &str) -> ! {
    // One write: the ranks share the launcher's stderr, and a line written
    // in pieces interleaves with another rank's.
    {
        use std::io::Write;
        let _ = std::io::stderr()
            .lock()
            .write_all(format!("error: {msg}\n").as_bytes());
    }
    if let Some(f) = ON_FATAL.lock().unwrap_or_else(|e| e.into_inner()).take() {
        f(msg);
    }
    if !mpi_running() {
        // Before MPI_Init (the self-launcher reads the library version) or
        // after MPI_Finalize, MPI_Abort may not be called.
        std::process::exit(EXIT_MPI_ERROR)
    }
    // As every other fatal error on a rank: the self-launching parent and
    // rank 0 learn that this rank failed (so neither reads the job's end
    // as an interruption), then the job ends with the code.
    match END_JOB.get() {
        Some(end) => end(EXIT_MPI_ERROR),
        None => super::abort(EXIT_MPI_ERROR),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_texts_become_one_line() {
        assert_eq!(
            one_line(" Invalid rank, error stack:\nMPI_Send(buf=0x1) failed\n  bad  rank \n"),
            "Invalid rank, error stack: MPI_Send(buf=0x1) failed bad rank"
        );
    }

    #[test]
    fn a_failed_free_in_a_drop_ends_the_run_unless_a_panic_is_unwinding() {
        assert_eq!(in_drop(0, false), InDrop::Fine);
        assert_eq!(in_drop(0, true), InDrop::Fine);
        assert_eq!(in_drop(5, false), InDrop::Fail);
        assert_eq!(in_drop(5, true), InDrop::Report);
        // A successful free while unwinding says nothing and returns.
        let r = std::panic::catch_unwind(|| {
            struct Guard;
            impl Drop for Guard {
                fn drop(&mut self) {
                    check_in_drop(0, "MPI_Comm_free");
                }
            }
            let _g = Guard;
            panic!("the real failure");
        });
        assert!(r.is_err());
    }
}
