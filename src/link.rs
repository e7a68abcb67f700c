//! The rank's side of its launch: what the launcher's environment says
//! (this rank, mpibench's own self-launch, how an exit ends the job) and
//! the link to the self-launching parent (see `supervise`).
//!
//! The link is an abstract Unix socket (no file anywhere) whose name the
//! ranks find in `MPIBENCH_PARENT`. Each local rank connects before
//! `MPI_Init` and reports what the parent cannot see from mpiexec's exit
//! status: that it started, that `MPI_Init` returned, that it printed its
//! own one-line message and with which exit code it ends. A rank whose link
//! reaches end-of-file knows that the parent died and stops. Ranks that
//! cannot connect (another host) run on without the link.

use std::io::{BufRead, BufReader, Write};
use std::os::fd::AsRawFd;
use std::os::linux::net::SocketAddrExt;
use std::os::unix::net::{SocketAddr, UnixStream};
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::Duration;

use crate::outcome::{signal_number, Outcome, EXIT_MPI_START, PARENT_DIED};

/// The environment variable that names the parent's socket.
pub const ENV: &str = "MPIBENCH_PARENT";

/// The parent's message to the ranks: its stdout failed (not a closed
/// pipe); the run ends with a failed write, and the parent says so.
pub const FAIL_WRITE: &str = "fail write";

/// Rank 0's word to the parent: the run's output files are open (a
/// failed write from now on is marked in them).
pub const READY: &str = "ready 0";

/// A rank's word to the parent: the files of a directory whose names
/// start with a prefix are the run's scratch (`scratch DIR<TAB>PREFIX`),
/// which the parent removes when the job has ended, however it ended.
pub const SCRATCH: &str = "scratch ";

/// Tells the parent (nothing without a link) that the files of `dir`
/// starting with `prefix` are scratch, before the first is created. The
/// directory goes as an absolute path; one with a tab or a newline in its
/// name is not told.
pub fn tell_scratch(dir: &std::path::Path, prefix: &str) {
    let dir = std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf());
    let d = dir.to_string_lossy();
    if [&*d, prefix].iter().any(|s| s.contains(['\t', '\n'])) {
        return;
    }
    tell(&format!("{SCRATCH}{d}\t{prefix}"));
}

/// What a `scratch` line names: the directory and the prefix.
pub fn parse_scratch(line: &str) -> Option<(std::path::PathBuf, String)> {
    let (d, p) = line.strip_prefix(SCRATCH)?.split_once('\t')?;
    (!p.is_empty()).then(|| (std::path::PathBuf::from(d), p.to_string()))
}

/// This process's rank according to the launcher's environment (before MPI_Init).
pub fn env_rank() -> usize {
    [
        "OMPI_COMM_WORLD_RANK",
        "PMI_RANK",
        "PMIX_RANK",
        "SLURM_PROCID",
    ]
    .iter()
    .find_map(|v| std::env::var(v).ok()?.parse().ok())
    .unwrap_or(0)
}

/// True when this process was started by mpibench's own self-launch.
pub fn self_launched() -> bool {
    std::env::var_os("MPIBENCH_LAUNCHED").is_some()
}

/// True under Open MPI's mpiexec, where a rank that exits with a non-zero
/// code ends the whole job: ending with `_exit` there does not race the
/// launcher's own shutdown (an MPI_Abort that arrives while mpiexec is
/// ending the job can make it crash). Hydra passes MPI_Abort's code on
/// reliably but not an exit code after it was signalled, and srun lets the
/// other tasks run on: there MPI_Abort it is.
pub fn exit_ends_job() -> bool {
    std::env::var_os("OMPI_COMM_WORLD_SIZE").is_some()
        && std::env::var_os("SLURM_STEP_ID").is_none()
}

static LINK: OnceLock<Mutex<UnixStream>> = OnceLock::new();
/// The link's descriptor, for the fatal-signal handler (-1 without a link).
static LINK_FD: AtomicI32 = AtomicI32::new(-1);
/// Pre-formatted lines for the fatal-signal handler: "said" (it printed its
/// line) or "crashed" (silent), with codes 3 and 5, without the signal and
/// the newline that [`tell_from_signal`] appends.
static FATAL_LINES: OnceLock<[Vec<u8>; 4]> = OnceLock::new();

/// Rank side: connects to the self-launching parent, if there is one here,
/// and watches it: the parent's stop message, its failed stdout and its
/// death end this rank's part of the run through `stop`. Call before
/// `MPI_Init`.
pub fn connect(rank: usize, stop: fn(Outcome)) {
    let Some(name) = std::env::var_os(ENV) else {
        return;
    };
    let Ok(addr) = SocketAddr::from_abstract_name(name.as_encoded_bytes()) else {
        return;
    };
    let Ok(stream) = UnixStream::connect_addr(&addr) else {
        return; // another host, or the parent is gone: run without the link
    };
    let Ok(reader) = stream.try_clone() else {
        return;
    };
    LINK_FD.store(stream.as_raw_fd(), Ordering::SeqCst);
    let m = EXIT_MPI_START;
    let _ = FATAL_LINES.set([
        format!("said {rank} 3").into_bytes(),
        format!("said {rank} {m}").into_bytes(),
        format!("crashed {rank} 3").into_bytes(),
        format!("crashed {rank} {m}").into_bytes(),
    ]);
    let _ = LINK.set(Mutex::new(stream));
    tell(&format!("start {rank} {}", std::process::id()));
    crate::sys::spawn(move || {
        for line in BufReader::new(reader).lines() {
            let Ok(line) = line else { break };
            if let Some(sig) = line.strip_prefix("stop ").and_then(signal_number) {
                stop(Outcome::Interrupted { signal: sig });
            }
            if line == FAIL_WRITE {
                stop(Outcome::WriteFailed);
            }
        }
        // End of file: the parent died (it never closes the link first).
        stop(Outcome::Interrupted {
            signal: PARENT_DIED,
        });
    });
}

/// True when a parent will report how the run ended (ranks then stay quiet
/// about interruptions).
pub fn parent_speaks() -> bool {
    LINK.get().is_some()
}

/// True when the link to the parent exists and the parent closed it (died),
/// now or within `wait`.
pub fn parent_gone(wait: Duration) -> bool {
    let fd = LINK_FD.load(Ordering::SeqCst);
    if fd < 0 {
        return false;
    }
    let (n, revents) = crate::sys::poll_fd(fd, libc::POLLRDHUP, wait.as_millis() as i32);
    n == 1 && revents & (libc::POLLRDHUP | libc::POLLHUP) != 0
}

/// Sends one line to the parent (nothing without a link).
pub fn tell(msg: &str) {
    if let Some(l) = LINK.get() {
        let mut s = l.lock().unwrap_or_else(|e| e.into_inner());
        let _ = s.write_all(format!("{msg}\n").as_bytes());
    }
}

/// From a fatal-signal handler: "I exit with `code`, having printed my
/// line" (`said`) or not. Async-signal-safe (one write(2) of a prepared
/// buffer).
pub fn tell_from_signal(code: i32, said: bool, sig: i32) {
    let fd = LINK_FD.load(Ordering::SeqCst);
    let i = usize::from(code == EXIT_MPI_START) + if said { 0 } else { 2 };
    let msg = FATAL_LINES.get().map(|l| &l[i]);
    if let (true, Some(m)) = (fd >= 0, msg) {
        // One write of "<line> <signal>\n", formatted on the stack.
        let mut buf = [0u8; 96];
        let n = m.len().min(buf.len() - 8);
        buf[..n].copy_from_slice(&m[..n]);
        let mut end = n;
        buf[end] = b' ';
        end += 1;
        let s = sig.clamp(0, 999) as u32;
        for d in [s / 100, s / 10 % 10, s % 10]
            .into_iter()
            .skip_while(|&d| d == 0)
            .chain((s == 0).then_some(0))
        {
            buf[end] = b'0' + d as u8;
            end += 1;
        }
        buf[end] = b'\n';
        end += 1;
        crate::sys::write_fd(fd, &buf[..end]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_scratch_line_names_its_directory_and_prefix() {
        let (d, p) = parse_scratch("scratch /tmp/x y\tmpibench-io-1-0").unwrap();
        assert_eq!(d, std::path::PathBuf::from("/tmp/x y"));
        assert_eq!(p, "mpibench-io-1-0");
        assert_eq!(parse_scratch("scratch /tmp\t"), None);
        assert_eq!(parse_scratch("said 0"), None);
    }
}
