//! The operating system's calls that need `unsafe`, behind safe functions:
//! with `src/comm/` (MPI's) the only module allowed `unsafe` (see the
//! layering test in `src/layers.rs`). No MPI here: the self-launching
//! parent, the output files and the plan use these before MPI starts or
//! without it. The functions marked async-signal-safe may be called from a
//! signal handler. `teardown` runs in a forked child of a multi-threaded
//! process, where only such calls are allowed, so it lives here whole.

use std::ffi::CStr;
use std::io;
use std::os::unix::process::CommandExt;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

pub mod alloc;
pub mod machine;
pub mod teardown;

/// Ends the process at once (`_exit`): no destructors, no atexit handlers,
/// no flushing; async-signal-safe.
pub fn exit_now(code: i32) -> ! {
    // SAFETY: _exit never returns and touches no Rust state.
    unsafe { libc::_exit(code) }
}

/// Physical memory in bytes (`sysconf`; 0 when unknown).
pub fn physical_memory() -> u64 {
    // SAFETY: sysconf only reads.
    let pages = unsafe { libc::sysconf(libc::_SC_PHYS_PAGES) };
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    (pages.max(0) as u64) * (page.max(0) as u64)
}

/// `ulimit -v` in bytes (None: unlimited, or unreadable).
pub fn address_space_limit() -> Option<u64> {
    soft_limit(libc::RLIMIT_AS)
}

/// The soft limit of a resource (`ulimit`; None: unlimited, or unreadable).
pub fn soft_limit(resource: libc::__rlimit_resource_t) -> Option<u64> {
    let mut r = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit(2) fills the struct we own.
    if unsafe { libc::getrlimit(resource, &mut r) } != 0 || r.rlim_cur == libc::RLIM_INFINITY {
        return None;
    }
    Some(r.rlim_cur)
}

/// Makes this thread's sleeps end within `ns` nanoseconds of their deadline
/// (`PR_SET_TIMERSLACK`; the kernel's default slack is 50 µs).
/// Whether this process runs as root (effective uid 0).
pub fn is_root() -> bool {
    // SAFETY: geteuid(2) takes nothing and cannot fail.
    unsafe { libc::geteuid() == 0 }
}

/// Raises the soft limit of `resource` to `want` (at most the hard limit)
/// where it is finite and lower.
pub fn raise_soft_limit(resource: libc::__rlimit_resource_t, want: u64) {
    let mut r = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit/setrlimit(2) on a struct we own.
    unsafe {
        if libc::getrlimit(resource, &mut r) == 0
            && r.rlim_cur != libc::RLIM_INFINITY
            && r.rlim_cur < want
        {
            r.rlim_cur = if r.rlim_max == libc::RLIM_INFINITY {
                want
            } else {
                want.min(r.rlim_max)
            };
            libc::setrlimit(resource, &r);
        }
    }
}

pub fn set_timer_slack(ns: u64) {
    // SAFETY: prctl with PR_SET_TIMERSLACK only changes this thread's slack.
    unsafe {
        libc::prctl(libc::PR_SET_TIMERSLACK, ns as libc::c_ulong, 0, 0, 0);
    }
}

/// The processors this process may run on (`sched_getaffinity`), in
/// order; `None` if the call fails.
pub fn affinity() -> Option<Vec<usize>> {
    // SAFETY: cpu_set_t is plain bits; sched_getaffinity fills at most its size.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        if libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) != 0 {
            return None;
        }
        Some(
            (0..libc::CPU_SETSIZE as usize)
                .filter(|&c| libc::CPU_ISSET(c, &set))
                .collect(),
        )
    }
}

/// What `uname` says about the machine.
pub struct Uname {
    pub sysname: String,
    pub release: String,
    pub version: String,
    pub machine: String,
}

pub fn uname() -> Uname {
    let field = |f: &[libc::c_char]| {
        let bytes: Vec<u8> = f
            .iter()
            .take_while(|&&c| c != 0)
            .map(|&c| c as u8)
            .collect();
        String::from_utf8_lossy(&bytes).into_owned()
    };
    // SAFETY: uname fills the struct we own (zeroed: a failed call leaves
    // empty strings).
    let u = unsafe {
        let mut u: libc::utsname = std::mem::zeroed();
        libc::uname(&mut u);
        u
    };
    Uname {
        sysname: field(&u.sysname),
        release: field(&u.release),
        version: field(&u.version),
        machine: field(&u.machine),
    }
}

/// The local time now, formatted by `strftime` with `format` (at most 63
/// bytes).
pub fn local_time(format: &CStr) -> String {
    // SAFETY: localtime_r and strftime write into the buffers given, within
    // their sizes.
    unsafe {
        let now = libc::time(std::ptr::null_mut());
        let mut tm: libc::tm = std::mem::zeroed();
        libc::localtime_r(&now, &mut tm);
        let mut buf = [0u8; 64];
        let n = libc::strftime(
            buf.as_mut_ptr() as *mut libc::c_char,
            buf.len(),
            format.as_ptr(),
            &tm,
        );
        String::from_utf8_lossy(&buf[..n]).into_owned()
    }
}

/// True when descriptor `fd` is open (async-signal-safe).
pub fn fd_is_open(fd: i32) -> bool {
    // SAFETY: fcntl F_GETFD only reads the descriptor's flags.
    unsafe { libc::fcntl(fd, libc::F_GETFD) != -1 }
}

/// True when the disposition of `sig` is SIG_IGN now.
pub fn signal_ignored(sig: i32) -> bool {
    // SAFETY: sigaction with a null new action only reads the disposition.
    unsafe {
        let mut old: libc::sigaction = std::mem::zeroed();
        libc::sigaction(sig, std::ptr::null(), &mut old) == 0 && old.sa_sigaction == libc::SIG_IGN
    }
}

/// Sets `sig` to SIG_IGN.
pub fn ignore_signal(sig: i32) {
    // SAFETY: signal(2) with an ignore disposition.
    unsafe { libc::signal(sig, libc::SIG_IGN) };
}

/// Sets `sig` to SIG_DFL.
pub fn default_signal(sig: i32) {
    // SAFETY: signal(2) with the default disposition.
    unsafe { libc::signal(sig, libc::SIG_DFL) };
}

/// Before any other action for `sig` runs: stores the value a `sigqueue`
/// sent with it into `slot`, when non-zero and `slot` is still 0.
pub fn record_queued_value(sig: i32, slot: &'static AtomicUsize) {
    // SAFETY: the action only stores an atomic (async-signal-safe).
    let _ = unsafe {
        signal_hook_registry::register_sigaction(sig, move |info: &libc::siginfo_t| {
            if info.si_code == libc::SI_QUEUE {
                let v = info.si_value().sival_ptr as usize;
                if v != 0 {
                    let _ = slot.compare_exchange(0, v, Ordering::SeqCst, Ordering::SeqCst);
                }
            }
        })
    };
}

/// Installs `handler` for the fatal signal `sig`, once (SA_RESETHAND), on
/// the alternate stack. The handler must call only async-signal-safe
/// functions.
pub fn on_fatal_signal(
    sig: i32,
    handler: extern "C" fn(i32, *mut libc::siginfo_t, *mut libc::c_void),
) {
    // SAFETY: a plain sigaction; what the handler calls is its contract.
    unsafe {
        let mut sa: libc::sigaction = std::mem::zeroed();
        sa.sa_sigaction = handler as usize;
        sa.sa_flags = libc::SA_ONSTACK | libc::SA_SIGINFO | libc::SA_RESETHAND;
        libc::sigemptyset(&mut sa.sa_mask);
        libc::sigaction(sig, &sa, std::ptr::null_mut());
    }
}

/// One malloc arena for every thread (`mallopt(M_ARENA_MAX, 1)`).
pub fn one_malloc_arena() {
    // SAFETY: mallopt takes plain ints.
    unsafe { libc::mallopt(libc::M_ARENA_MAX, 1) };
}

/// The calling thread's page faults so far: [minor, major]
/// (`getrusage(RUSAGE_THREAD)`; zeros where it fails).
pub fn thread_faults() -> [u64; 2] {
    // SAFETY: getrusage fills the struct it is given.
    unsafe {
        let mut u: libc::rusage = std::mem::zeroed();
        if libc::getrusage(libc::RUSAGE_THREAD, &mut u) != 0 {
            return [0, 0];
        }
        [u.ru_minflt as u64, u.ru_majflt as u64]
    }
}

/// The mmap threshold `--malloc stable` fixes: every allocation below 32 MiB
/// comes from the heap, and the heap is never trimmed below 1 GiB, so that
/// a buffer freed and allocated again inside a call reuses mapped pages.
pub const STABLE_MMAP_THRESHOLD: i32 = 32 << 20;
pub const STABLE_TRIM_THRESHOLD: i32 = 1 << 30;

/// `--malloc stable`: fixed thresholds (`mallopt(M_MMAP_THRESHOLD)` and
/// `M_TRIM_THRESHOLD`, which also ends glibc's dynamic threshold), before
/// MPI starts; true when the C library took both.
pub fn stable_malloc() -> bool {
    // SAFETY: mallopt takes plain ints.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, STABLE_MMAP_THRESHOLD) == 1
            && libc::mallopt(libc::M_TRIM_THRESHOLD, STABLE_TRIM_THRESHOLD) == 1
    }
}

/// The page size in bytes (4096 when unknown).
pub fn page_size() -> usize {
    // SAFETY: sysconf only reads.
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    if page > 0 {
        page as usize
    } else {
        4096
    }
}

/// Test hook: maps `pages` fresh pages, writes one byte to each (a minor
/// fault each) and unmaps them.
pub fn touch_fresh_pages(pages: usize) {
    if pages == 0 {
        return;
    }
    let page = page_size();
    let Some(len) = pages.checked_mul(page) else {
        return;
    };
    // SAFETY: an anonymous private mapping, written within its length and
    // unmapped before return.
    unsafe {
        let p = libc::mmap(
            std::ptr::null_mut(),
            len,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
            -1,
            0,
        );
        if p == libc::MAP_FAILED {
            return;
        }
        let b = p.cast::<u8>();
        for i in 0..pages {
            std::ptr::write_volatile(b.add(i * page), 1);
        }
        libc::munmap(p, len);
    }
}

/// Sends `sig` to `pid` (a negative pid: its process group; signal 0:
/// only checks that it exists); true when sent (async-signal-safe).
pub fn kill(pid: i32, sig: i32) -> bool {
    // SAFETY: kill(2) takes plain ints.
    unsafe { libc::kill(pid, sig) == 0 }
}

/// Sends `sig` with `value` to `pid` (`sigqueue`; async-signal-safe).
pub fn sigqueue(pid: i32, sig: i32, value: usize) {
    let v = libc::sigval {
        sival_ptr: value as *mut libc::c_void,
    };
    // SAFETY: sigqueue(2) takes plain values.
    unsafe { libc::sigqueue(pid, sig, v) };
}

/// Points descriptor `fd` at the file `path` opened with `flags`; nothing
/// when it cannot be opened (async-signal-safe).
pub fn point_fd_at(fd: i32, path: &CStr, flags: i32) {
    // SAFETY: open/dup2/close on our own descriptors.
    unsafe {
        let new = libc::open(path.as_ptr(), flags);
        if new >= 0 {
            libc::dup2(new, fd);
            libc::close(new);
        }
    }
}

/// One `write(2)` of `bytes` to `fd`, whatever it writes (async-signal-safe).
pub fn write_fd(fd: i32, bytes: &[u8]) {
    // SAFETY: write(2) from a slice of its length.
    unsafe { libc::write(fd, bytes.as_ptr().cast(), bytes.len()) };
}

/// Sleeps `d` (`nanosleep`; async-signal-safe).
pub fn nap(d: Duration) {
    let t = libc::timespec {
        tv_sec: d.as_secs() as libc::time_t,
        tv_nsec: d.subsec_nanos() as libc::c_long,
    };
    // SAFETY: nanosleep with a valid timespec.
    unsafe { libc::nanosleep(&t, std::ptr::null_mut()) };
}

/// Polls descriptor `fd` for `events` up to `timeout_ms` (-1: forever):
/// what `poll` returned and the events that occurred.
pub fn poll_fd(fd: i32, events: i16, timeout_ms: i32) -> (i32, i16) {
    let mut p = libc::pollfd {
        fd,
        events,
        revents: 0,
    };
    // SAFETY: poll on one valid pollfd.
    let n = unsafe { libc::poll(&mut p, 1, timeout_ms) };
    (n, p.revents)
}

/// The file type bits (`S_IFMT`), device and inode of descriptor `fd`.
pub fn fd_file(fd: i32) -> Option<(u32, u64, u64)> {
    // SAFETY: fstat with a valid out pointer.
    unsafe {
        let mut st: libc::stat = std::mem::zeroed();
        (libc::fstat(fd, &mut st) == 0).then_some((st.st_mode & libc::S_IFMT, st.st_dev, st.st_ino))
    }
}

/// True when this process may write the file `path` (`access(W_OK)`).
pub fn writable(path: &CStr) -> bool {
    // SAFETY: access(2) on a NUL-terminated path.
    unsafe { libc::access(path.as_ptr(), libc::W_OK) == 0 }
}

/// Makes `to` a hard link of `from`, following `from` if it is a symlink.
pub fn link_following(from: &CStr, to: &CStr) -> io::Result<()> {
    // SAFETY: linkat(2) on two NUL-terminated paths.
    let r = unsafe {
        libc::linkat(
            libc::AT_FDCWD,
            from.as_ptr(),
            libc::AT_FDCWD,
            to.as_ptr(),
            libc::AT_SYMLINK_FOLLOW,
        )
    };
    if r == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

/// The pid of the process at the other end of the Unix socket `fd`.
pub fn socket_peer_pid(fd: i32) -> Option<i32> {
    // SAFETY: getsockopt with a buffer of the option's size.
    unsafe {
        let mut cred: libc::ucred = std::mem::zeroed();
        let mut len = std::mem::size_of::<libc::ucred>() as libc::socklen_t;
        let r = libc::getsockopt(
            fd,
            libc::SOL_SOCKET,
            libc::SO_PEERCRED,
            (&mut cred as *mut libc::ucred).cast(),
            &mut len,
        );
        (r == 0 && cred.pid > 0).then_some(cred.pid)
    }
}

/// Clears `O_NONBLOCK` on descriptor `fd`.
pub fn set_blocking(fd: i32) {
    // SAFETY: fcntl on a descriptor the caller owns.
    unsafe {
        let fl = libc::fcntl(fd, libc::F_GETFL);
        libc::fcntl(fd, libc::F_SETFL, fl & !libc::O_NONBLOCK);
    }
}

/// Waits until the child `pid` has exited, without reaping it (`waitid`
/// with `WNOWAIT`), again after an interruption.
pub fn wait_exited(pid: u32) {
    loop {
        // SAFETY: waitid with a valid out pointer.
        let r = unsafe {
            let mut info: libc::siginfo_t = std::mem::zeroed();
            libc::waitid(libc::P_PID, pid, &mut info, libc::WEXITED | libc::WNOWAIT)
        };
        if r == 0 || io::Error::last_os_error().kind() != io::ErrorKind::Interrupted {
            return;
        }
    }
}

/// Between fork and exec of `cmd`: its own process group, `death_signal`
/// when this process dies, and `_exit(code)` when this process (`parent`)
/// died already.
pub fn launch_as_child(cmd: &mut std::process::Command, parent: i32, death_signal: i32, code: i32) {
    // SAFETY: only async-signal-safe calls between fork and exec.
    unsafe {
        cmd.pre_exec(move || {
            libc::setpgid(0, 0);
            libc::prctl(libc::PR_SET_PDEATHSIG, death_signal);
            if libc::getppid() != parent {
                libc::_exit(code);
            }
            Ok(())
        });
    }
}

/// An epoll set for hang-ups (`EPOLLRDHUP`), each descriptor reported once
/// under a number of the caller's; empty when epoll is not available.
pub struct Hangups {
    epfd: i32,
}

impl Hangups {
    pub fn new() -> Hangups {
        // SAFETY: a plain system call; a failure (-1) leaves the set empty.
        Hangups {
            epfd: unsafe { libc::epoll_create1(libc::EPOLL_CLOEXEC) },
        }
    }

    /// Watches the open descriptor `fd` for its hang-up, reported as `id`.
    pub fn watch(&self, id: u64, fd: i32) {
        if self.epfd < 0 {
            return;
        }
        let mut ev = libc::epoll_event {
            events: (libc::EPOLLRDHUP | libc::EPOLLONESHOT) as u32,
            u64: id,
        };
        // SAFETY: epfd and fd are open descriptors; ev outlives the call.
        unsafe { libc::epoll_ctl(self.epfd, libc::EPOLL_CTL_ADD, fd, &mut ev) };
    }

    /// The numbers of up to `max` descriptors that have hung up, in the
    /// order they did (never blocks).
    pub fn ready(&self, max: usize) -> Vec<u64> {
        if self.epfd < 0 {
            return Vec::new();
        }
        let mut evs = vec![libc::epoll_event { events: 0, u64: 0 }; max.max(1)];
        // SAFETY: evs has room for evs.len() events; timeout 0 never blocks.
        let n = unsafe { libc::epoll_wait(self.epfd, evs.as_mut_ptr(), evs.len() as i32, 0) };
        evs.iter()
            .take(n.max(0) as usize)
            .map(|ev| ev.u64)
            .collect()
    }
}

impl Drop for Hangups {
    fn drop(&mut self) {
        if self.epfd >= 0 {
            // SAFETY: our own descriptor, closed once.
            unsafe { libc::close(self.epfd) };
        }
    }
}

/// Spawns a helper thread with a small stack; under a tight address-space
/// limit (`ulimit -v`) a thread may not be possible at all, which must not
/// become a panic. Returns whether it runs.
pub fn spawn(f: impl FnOnce() + Send + 'static) -> bool {
    std::thread::Builder::new()
        .stack_size(256 << 10)
        .spawn(f)
        .is_ok()
}

/// Bytes an unprivileged process may still write on the file system that
/// holds `path` (statvfs(2): `f_bavail × f_frsize`).
pub fn free_bytes(path: &CStr) -> io::Result<u64> {
    // SAFETY: a plain C struct, filled by statvfs(2) on a NUL-terminated path.
    let mut s: libc::statvfs = unsafe { std::mem::zeroed() };
    if unsafe { libc::statvfs(path.as_ptr(), &mut s) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok((s.f_bavail as u64).saturating_mul(s.f_frsize as u64))
}

/// Whether the file system that holds `path` is a tmpfs (statfs(2)'s
/// `f_type`): its pages are its storage, and no advice drops them.
pub fn on_tmpfs(path: &CStr) -> bool {
    // SAFETY: a plain C struct, filled by statfs(2) on a NUL-terminated path.
    let mut s: libc::statfs = unsafe { std::mem::zeroed() };
    (unsafe { libc::statfs(path.as_ptr(), &mut s) } == 0) && s.f_type == libc::TMPFS_MAGIC
}

/// Asks the kernel to drop the cached pages of the file at `path`
/// (`posix_fadvise(POSIX_FADV_DONTNEED)` over the whole file, after
/// `fdatasync` so that dirty pages can go): no privilege needed, and a
/// no-op on a tmpfs.
pub fn drop_cached_pages(path: &std::path::Path) -> io::Result<()> {
    use std::os::fd::AsRawFd;
    let f = std::fs::File::open(path)?;
    let fd = f.as_raw_fd();
    // SAFETY: fd is open for the lifetime of `f`.
    unsafe { libc::fdatasync(fd) };
    let rc = unsafe { libc::posix_fadvise(fd, 0, 0, libc::POSIX_FADV_DONTNEED) };
    if rc != 0 {
        return Err(io::Error::from_raw_os_error(rc));
    }
    Ok(())
}
