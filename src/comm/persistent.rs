//! Persistent point-to-point requests (the OSU `*_persistent` programs):
//! MPI_Send_init / MPI_Recv_init once per size, MPI_Start(all) and
//! MPI_Wait(all) per iteration, MPI_Request_free at the end.

use std::ffi::{c_int, c_void};

use mpi::ffi;

use super::error::check;
use super::{check_in_drop, checked, Comm, Error, Msg, Request};

impl Comm {
    /// `MPI_Send_init` of `m` from `buf` to `dest`.
    pub fn send_init(
        &self,
        buf: *const u8,
        m: &Msg,
        dest: usize,
        tag: i32,
        req: &mut Request,
    ) -> Result<(), Error> {
        checked(
            unsafe {
                ffi::MPI_Send_init(
                    buf as *const c_void,
                    m.count,
                    m.dt,
                    dest as c_int,
                    tag,
                    self.raw(),
                    req,
                )
            },
            "MPI_Send_init",
        )
    }

    /// `MPI_Recv_init` of `m` into `buf` from `src`.
    pub fn recv_init(
        &self,
        buf: *mut u8,
        m: &Msg,
        src: usize,
        tag: i32,
        req: &mut Request,
    ) -> Result<(), Error> {
        checked(
            unsafe {
                ffi::MPI_Recv_init(
                    buf as *mut c_void,
                    m.count,
                    m.dt,
                    src as c_int,
                    tag,
                    self.raw(),
                    req,
                )
            },
            "MPI_Recv_init",
        )
    }
}

/// `MPI_Startall` of inactive persistent requests.
#[inline]
pub fn startall(reqs: &mut [Request]) {
    check(
        unsafe { ffi::MPI_Startall(reqs.len() as c_int, reqs.as_mut_ptr()) },
        "MPI_Startall",
    );
}

/// `MPI_Request_free` of every persistent request that is not null (kernels
/// call it from `Drop`: see [`check_in_drop`]).
pub fn free(reqs: &mut [Request]) {
    let null = super::request_null();
    for r in reqs.iter_mut().filter(|r| **r != null) {
        check_in_drop(unsafe { ffi::MPI_Request_free(r) }, "MPI_Request_free");
    }
}
