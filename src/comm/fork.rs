//! Processes forked from an MPI process that only sleep (OMB's
//! osu_latency_mp: whether the library keeps working, and at what latency,
//! once the process has forked). A child calls nothing but `prctl`, `sleep`
//! and `_exit`, so it never touches MPI or the parent's locks, and it dies
//! with its parent.

/// Forks `n` children that sleep `secs` seconds and exit (or die with this
/// process, whichever comes first). Returns how many were forked.
pub fn sleepers(n: usize, secs: u32) -> usize {
    let mut made = 0;
    for _ in 0..n {
        // SAFETY: the child runs only async-signal-safe calls before _exit.
        match unsafe { libc::fork() } {
            0 => unsafe {
                libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
                libc::sleep(secs);
                libc::_exit(0);
            },
            pid if pid > 0 => made += 1,
            _ => break,
        }
    }
    made
}

/// Reaps the children that have ended, without waiting for the others.
pub fn reap() {
    // SAFETY: waitpid with WNOHANG on any child.
    while unsafe { libc::waitpid(-1, std::ptr::null_mut(), libc::WNOHANG) } > 0 {}
}
