//! After a stall, the launcher may not end the job by itself: a dead host
//! or link leaves it waiting for a daemon it cannot reach.
//!
//! * Open MPI's `mpiexec` runs the ranks of its own host as its children;
//!   told that one of them failed, it orders every daemon to end its ranks
//!   and waits for their answer, forever when a host is cut off (and a
//!   SIGTERM or SIGINT then makes it crash in `PMIx_Finalize`).
//! * A daemon behind the dead link (orted, prted, hydra_pmi_proxy) waits
//!   for a launcher it cannot reach, and outlives the job on its host.
//!
//! So a stalled rank whose parent is one of these leaves a detached helper
//! process behind ([`end_stuck_launcher`]): when the parent is still there
//! [`GRACE`] after the stall, the helper ends it (a daemon: SIGTERM, then
//! SIGKILL; `mpiexec`: its remaining children, the launch agents to other
//! hosts, and then itself, with SIGKILL and one line saying so). The helper
//! ends as soon as the parent is gone. Any other parent (a shell, srun's
//! slurmstepd, which ends a job whose task died by itself) is never
//! signalled, nor is the `mpiexec` of mpibench's own self-launch (the
//! self-launching parent ends it).

use std::time::Duration;

use super::nap;

/// How long the launcher has to end the job by itself after the stall:
/// `MPI_Abort`'s deadline (3 s, see `signals::end_job`) and one second.
pub const GRACE: Duration = Duration::from_secs(4);
/// From SIGTERM to SIGKILL for a daemon.
const TERM_GRACE: Duration = Duration::from_secs(1);

/// What a rank's parent is, by its command name (`/proc/PID/comm`, at most
/// 15 characters).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Parent {
    /// A launcher's daemon on this host.
    Daemon,
    /// The launcher itself (Open MPI's mpiexec on its own host).
    Launcher,
}

fn parent_kind(comm: &str) -> Option<Parent> {
    match comm {
        "orted" | "prted" | "hydra_pmi_proxy" => Some(Parent::Daemon),
        "orterun" | "prterun" | "prun" => Some(Parent::Launcher),
        c if c.starts_with("mpiexec") || c.starts_with("mpirun") => Some(Parent::Launcher),
        _ => None,
    }
}

/// At most this many children of the launcher are ended with it.
const MAX_CHILDREN: usize = 64;

/// Called once by a stalled rank, before it ends the job: leaves the helper
/// described above when the parent is a launcher or daemon (`self_launched`:
/// the rank runs under mpibench's own self-launch, whose parent ends it).
pub fn end_stuck_launcher(self_launched: bool) {
    // SAFETY: getppid and getpid cannot fail.
    let (ppid, me) = unsafe { (libc::getppid(), libc::getpid()) };
    if ppid <= 1 {
        return;
    }
    let comm = std::fs::read_to_string(format!("/proc/{ppid}/comm")).unwrap_or_default();
    let comm = comm.trim();
    let kind = match parent_kind(comm) {
        Some(Parent::Launcher) if self_launched => return,
        Some(k) => k,
        None => return,
    };
    // Everything the helper needs is prepared here: after fork in a
    // threaded process it may only make async-signal-safe calls.
    let mut children = [0 as libc::pid_t; MAX_CHILDREN];
    if kind == Parent::Launcher {
        let list = std::fs::read_to_string(format!("/proc/{ppid}/task/{ppid}/children"))
            .unwrap_or_default();
        for (slot, pid) in children.iter_mut().zip(
            list.split_whitespace()
                .filter_map(|p| p.parse::<libc::pid_t>().ok())
                .filter(|&p| p != me),
        ) {
            *slot = pid;
        }
    }
    let note = format!(
        "mpibench: {comm} (pid {ppid}) did not end the job within {} s of the stall (a host it waits for is unreachable); killing it (SIGKILL)\n",
        GRACE.as_secs()
    );
    // The line goes where the launcher's own stderr goes: the helper keeps
    // none of the rank's descriptors (the launcher waits for the end of the
    // rank's output before it counts the rank as ended).
    let launcher_stderr = cstring(format!("/proc/{ppid}/fd/2"));
    let stat = |p: libc::pid_t| cstring(format!("/proc/{p}/stat"));
    let parent_stat = stat(ppid);
    let stats: Vec<(libc::pid_t, std::ffi::CString)> = children
        .iter()
        .take_while(|&&p| p > 0)
        .map(|&p| (p, stat(p)))
        .collect();
    // SAFETY: the child runs async-signal-safe calls only (setsid,
    // nanosleep, kill, open, read, write, close, _exit) on memory prepared
    // before the fork.
    unsafe {
        if libc::fork() != 0 {
            return;
        }
        libc::setsid();
        close_all();
        if wait_gone(ppid, &parent_stat, GRACE) {
            libc::_exit(0);
        }
        match kind {
            Parent::Daemon => {
                libc::kill(ppid, libc::SIGTERM);
                if !wait_gone(ppid, &parent_stat, TERM_GRACE) {
                    libc::kill(ppid, libc::SIGKILL);
                }
            }
            Parent::Launcher => {
                let fd = libc::open(launcher_stderr.as_ptr(), libc::O_WRONLY | libc::O_APPEND);
                if fd >= 0 {
                    libc::write(fd, note.as_ptr().cast(), note.len());
                    libc::close(fd);
                }
                // Its children still there (checked: their parent is still
                // the launcher, so the pid was not reused): the launch
                // agents (ssh) to the other hosts, any rank left.
                for (pid, path) in &stats {
                    if read_stat(path).map(|(_, parent)| parent) == Some(ppid) {
                        libc::kill(*pid, libc::SIGKILL);
                    }
                }
                libc::kill(ppid, libc::SIGKILL);
            }
        }
        wait_gone(ppid, &parent_stat, TERM_GRACE);
        libc::_exit(0)
    }
}

fn cstring(s: String) -> std::ffi::CString {
    std::ffi::CString::new(s).unwrap_or_default()
}

/// Closes every descriptor (async-signal-safe): the rank's output pipes,
/// its sockets to the other ranks and to its daemon, its files.
fn close_all() {
    // SAFETY: close_range(2), or close(2) on each number when the kernel
    // lacks it (before Linux 5.9).
    unsafe {
        if libc::syscall(libc::SYS_close_range, 0u32, u32::MAX, 0u32) != 0 {
            for fd in 0..65536 {
                libc::close(fd);
            }
        }
    }
}

/// Waits up to `d` for process `pid` (its stat file `stat`) to end: gone,
/// or a zombie its own parent has not reaped yet; true when it did
/// (async-signal-safe: polls every 50 ms).
fn wait_gone(pid: libc::pid_t, stat: &std::ffi::CStr, d: Duration) -> bool {
    let step = Duration::from_millis(50);
    let mut waited = Duration::ZERO;
    loop {
        // SAFETY: signal 0 only checks that the process exists.
        if unsafe { libc::kill(pid, 0) } != 0
            || read_stat(stat).is_none_or(|(state, _)| state == b'Z')
        {
            return true;
        }
        if waited >= d {
            return false;
        }
        nap(step);
        waited += step;
    }
}

/// The state and the parent pid in a `/proc/PID/stat` file
/// (async-signal-safe: open, read into a stack buffer, close).
fn read_stat(path: &std::ffi::CStr) -> Option<(u8, libc::pid_t)> {
    let mut buf = [0u8; 512];
    // SAFETY: a NUL-terminated path; read into a buffer of its length.
    let n = unsafe {
        let fd = libc::open(path.as_ptr(), libc::O_RDONLY | libc::O_CLOEXEC);
        if fd < 0 {
            return None;
        }
        let n = libc::read(fd, buf.as_mut_ptr().cast(), buf.len());
        libc::close(fd);
        n
    };
    parse_stat(buf.get(..usize::try_from(n).ok()?)?)
}

/// The third and fourth fields of a stat line: `PID (COMM) STATE PPID ...`
/// (COMM may hold spaces and parentheses: the last `)` ends it).
fn parse_stat(stat: &[u8]) -> Option<(u8, libc::pid_t)> {
    let close = stat.iter().rposition(|&b| b == b')')?;
    let mut fields = stat
        .get(close + 1..)?
        .split(|&b| b == b' ')
        .filter(|f| !f.is_empty());
    let state = *fields.next()?.first()?;
    let ppid = fields.next()?;
    let mut v: libc::pid_t = 0;
    for &b in ppid {
        if !b.is_ascii_digit() {
            return None;
        }
        v = v
            .checked_mul(10)?
            .checked_add(libc::pid_t::from(b - b'0'))?;
    }
    Some((state, v))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_launchers_and_their_daemons_are_ended() {
        assert_eq!(parent_kind("orted"), Some(Parent::Daemon));
        assert_eq!(parent_kind("prted"), Some(Parent::Daemon));
        assert_eq!(parent_kind("hydra_pmi_proxy"), Some(Parent::Daemon));
        assert_eq!(parent_kind("mpiexec.openmpi"), Some(Parent::Launcher));
        assert_eq!(parent_kind("mpiexec"), Some(Parent::Launcher));
        assert_eq!(parent_kind("mpirun"), Some(Parent::Launcher));
        assert_eq!(parent_kind("orterun"), Some(Parent::Launcher));
        for other in [
            "bash",
            "sh",
            "slurmstepd",
            "srun",
            "mpibench",
            "systemd",
            "init",
            "",
        ] {
            assert_eq!(parent_kind(other), None, "{other}");
        }
    }

    #[test]
    fn the_parent_is_the_fourth_stat_field() {
        assert_eq!(
            parse_stat(b"123 (mpibench) S 45 123 45 0 -1"),
            Some((b'S', 45))
        );
        assert_eq!(parse_stat(b"7 (a ) b) (c) Z 1 7 7"), Some((b'Z', 1)));
        assert_eq!(parse_stat(b"7 (x) R"), None);
        assert_eq!(parse_stat(b"garbage"), None);
        // SAFETY: getppid cannot fail.
        let ppid = unsafe { libc::getppid() };
        let path = cstring(format!("/proc/{}/stat", std::process::id()));
        assert_eq!(read_stat(&path).map(|(_, p)| p), Some(ppid));
    }

    #[test]
    fn wait_gone_sees_a_process_end() {
        let mut child = std::process::Command::new("sleep")
            .arg("0.2")
            .spawn()
            .unwrap();
        let pid = child.id() as libc::pid_t;
        let stat = cstring(format!("/proc/{pid}/stat"));
        assert!(!wait_gone(pid, &stat, Duration::ZERO));
        // Ended but not reaped (a zombie) counts as gone.
        assert!(wait_gone(pid, &stat, Duration::from_secs(10)));
        child.wait().unwrap();
        assert!(wait_gone(pid, &stat, Duration::ZERO));
    }
}
