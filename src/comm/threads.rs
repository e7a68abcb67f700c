//! Communicators of their own for the threads of an MPI_THREAD_MULTIPLE
//! run (IMB-MT): each thread calls MPI only on its own duplicate of the
//! group's communicator, with its own messages and requests.

use std::ffi::{c_int, CString};

use mpi::ffi;

use super::error::check;
use super::{checked, request_null, Comm, Msg, Request};

/// What one thread of a rank calls MPI with: a duplicate of a communicator
/// (`MPI_Comm_dup`, freed on drop) carrying the info hint `thread_id` that
/// IMB-MT gives the library, the thread's message, a one-byte message
/// (acknowledgements) and its requests. It is moved to the thread that uses
/// it and used by that thread alone.
pub struct ThreadComm {
    pub comm: Comm,
    pub msg: Msg,
    pub one: Msg,
    pub reqs: Vec<Request>,
}

// SAFETY: everything inside is an MPI handle (a communicator this value
// owns, datatypes, requests) that only MPI calls read. A ThreadComm is
// used by one thread at a time; calls from a thread other than the main
// one are what MPI_THREAD_MULTIPLE allows, and the benchmarks that make
// ThreadComms refuse to run without it.
unsafe impl Send for ThreadComm {}

impl ThreadComm {
    /// Collective over `parent`: its duplicate for thread `thread`, with
    /// `msg`, and room for `reqs` requests. Every rank makes the same
    /// ThreadComms in the same order.
    pub fn new(
        parent: &Comm,
        thread: usize,
        msg: Msg,
        reqs: usize,
    ) -> Result<ThreadComm, super::Error> {
        let mut raw = unsafe { ffi::RSMPI_COMM_NULL };
        checked(
            unsafe { ffi::MPI_Comm_dup(parent.raw(), &mut raw) },
            "MPI_Comm_dup",
        )?;
        let key = CString::new("thread_id").expect("no NUL");
        let value = CString::new(thread.to_string()).expect("no NUL");
        let mut info = unsafe { ffi::RSMPI_INFO_NULL };
        unsafe {
            checked(ffi::MPI_Info_create(&mut info), "MPI_Info_create")?;
            checked(
                ffi::MPI_Info_set(info, key.as_ptr(), value.as_ptr()),
                "MPI_Info_set",
            )?;
            checked(ffi::MPI_Comm_set_info(raw, info), "MPI_Comm_set_info")?;
            checked(ffi::MPI_Info_free(&mut info), "MPI_Info_free")?;
        }
        Ok(ThreadComm {
            comm: Comm::wrap(raw, true),
            msg,
            one: Msg::small(1),
            reqs: vec![request_null(); reqs.max(1)],
        })
    }

    /// `MPI_Waitall` on the first `n` requests.
    #[inline]
    pub fn waitall(&mut self, n: usize) {
        super::waitall(&mut self.reqs[..n]);
    }

    /// `MPI_Wait` on request `i`.
    #[inline]
    pub fn wait(&mut self, i: usize) {
        super::wait(&mut self.reqs[i]);
    }

    /// `MPI_Isend` of the thread's message from `buf` into request `i`.
    #[inline]
    pub fn isend(&mut self, buf: *const u8, dest: usize, tag: i32, i: usize) {
        self.comm
            .isend(buf, &self.msg, dest, tag, &mut self.reqs[i]);
    }

    /// `MPI_Irecv` of the thread's message into `buf`, request `i`.
    #[inline]
    pub fn irecv(&mut self, buf: *mut u8, src: usize, tag: i32, i: usize) {
        self.comm.irecv(buf, &self.msg, src, tag, &mut self.reqs[i]);
    }
}

/// The thread level MPI_Init_thread gave, as a name, when it is not
/// MPI_THREAD_MULTIPLE (None: it is, or MPI is not initialised yet).
pub fn not_multiple() -> Option<String> {
    let mut init: c_int = 0;
    check(
        unsafe { ffi::MPI_Initialized(&mut init) },
        "MPI_Initialized",
    );
    if init == 0 {
        return None;
    }
    let level = mpi::environment::threading_support();
    (level != mpi::environment::Threading::Multiple).then(|| format!("{level:?}"))
}

/// A communicator and a message that the threads of one rank share for
/// blocking sends and receives (osu_latency_mt: every thread on the rank's
/// communicator, the library matching by tag).
pub struct SharedComm<'a> {
    comm: &'a Comm,
    msg: &'a Msg,
}

// SAFETY: the communicator and datatype handles are only passed to MPI
// calls, which MPI_THREAD_MULTIPLE makes safe from any thread; nothing
// else in them is mutated.
unsafe impl Sync for SharedComm<'_> {}

impl<'a> SharedComm<'a> {
    pub fn new(comm: &'a Comm, msg: &'a Msg) -> SharedComm<'a> {
        SharedComm { comm, msg }
    }

    #[inline]
    pub fn send(&self, buf: *const u8, dest: usize, tag: i32) {
        self.comm.send(buf, self.msg, dest, tag);
    }

    #[inline]
    pub fn recv(&self, buf: *mut u8, src: usize, tag: i32) {
        self.comm.recv(buf, self.msg, src, tag);
    }
}
