//! The operating system's calls that need `unsafe`, behind safe functions:
//! with `src/comm/` (MPI's) the only module allowed `unsafe` (see the
//! layering test in `src/layers.rs`). No MPI here: the self-launching
//! parent, the output files and the plan use these before MPI starts or
//! without it.

use std::ffi::CStr;

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
    let mut r = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit(2) fills the struct we own.
    if unsafe { libc::getrlimit(libc::RLIMIT_AS, &mut r) } != 0 || r.rlim_cur == libc::RLIM_INFINITY
    {
        return None;
    }
    Some(r.rlim_cur)
}

/// Makes this thread's sleeps end within `ns` nanoseconds of their deadline
/// (`PR_SET_TIMERSLACK`; the kernel's default slack is 50 µs).
pub fn set_timer_slack(ns: u64) {
    // SAFETY: prctl with PR_SET_TIMERSLACK only changes this thread's slack.
    unsafe {
        libc::prctl(libc::PR_SET_TIMERSLACK, ns as libc::c_ulong, 0, 0, 0);
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
