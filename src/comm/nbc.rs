//! Non-blocking collectives (MPI-3): each starts the operation and leaves
//! its request in `req`, to be completed with [`super::wait`]. Same
//! arguments as the blocking calls of `comm/mod.rs` (a resolved [`Msg`];
//! reductions with `MPI_SUM` on `m.dt`); the blocking forms beyond PMB's
//! are in `coll.rs`.

use std::ffi::{c_int, c_void};

use mpi::ffi;

use super::error::check;
use super::{op_sum, Comm, Msg, Request};

impl Comm {
    /// `MPI_Ibarrier`.
    #[inline]
    pub fn ibarrier(&self, req: &mut Request) {
        check(unsafe { ffi::MPI_Ibarrier(self.raw, req) }, "MPI_Ibarrier");
    }

    /// `MPI_Ibcast` of `m` from `root`.
    #[inline]
    pub fn ibcast(&self, buf: *mut u8, m: &Msg, root: usize, req: &mut Request) {
        check(
            unsafe {
                ffi::MPI_Ibcast(
                    buf as *mut c_void,
                    m.count,
                    m.dt,
                    root as c_int,
                    self.raw,
                    req,
                )
            },
            "MPI_Ibcast",
        );
    }

    /// `MPI_Igather` of `m` from every rank to `root`.
    #[inline]
    pub fn igather(&self, sbuf: *const u8, m: &Msg, rbuf: *mut u8, root: usize, req: &mut Request) {
        check(
            unsafe {
                ffi::MPI_Igather(
                    sbuf as *const c_void,
                    m.count,
                    m.dt,
                    rbuf as *mut c_void,
                    m.count,
                    m.dt,
                    root as c_int,
                    self.raw,
                    req,
                )
            },
            "MPI_Igather",
        );
    }

    /// `MPI_Iscatter` of `m` to every rank from `root`.
    #[inline]
    pub fn iscatter(
        &self,
        sbuf: *const u8,
        m: &Msg,
        rbuf: *mut u8,
        root: usize,
        req: &mut Request,
    ) {
        check(
            unsafe {
                ffi::MPI_Iscatter(
                    sbuf as *const c_void,
                    m.count,
                    m.dt,
                    rbuf as *mut c_void,
                    m.count,
                    m.dt,
                    root as c_int,
                    self.raw,
                    req,
                )
            },
            "MPI_Iscatter",
        );
    }

    /// `MPI_Iallgather` of `m` per rank.
    #[inline]
    pub fn iallgather(&self, sbuf: *const u8, m: &Msg, rbuf: *mut u8, req: &mut Request) {
        check(
            unsafe {
                ffi::MPI_Iallgather(
                    sbuf as *const c_void,
                    m.count,
                    m.dt,
                    rbuf as *mut c_void,
                    m.count,
                    m.dt,
                    self.raw,
                    req,
                )
            },
            "MPI_Iallgather",
        );
    }

    /// `MPI_Ialltoall` of `m` to every rank.
    #[inline]
    pub fn ialltoall(&self, sbuf: *const u8, m: &Msg, rbuf: *mut u8, req: &mut Request) {
        check(
            unsafe {
                ffi::MPI_Ialltoall(
                    sbuf as *const c_void,
                    m.count,
                    m.dt,
                    rbuf as *mut c_void,
                    m.count,
                    m.dt,
                    self.raw,
                    req,
                )
            },
            "MPI_Ialltoall",
        );
    }

    /// `MPI_Ireduce` with `MPI_SUM` of `m` (typed elements) to `root`.
    #[inline]
    pub fn ireduce(&self, sbuf: *const u8, rbuf: *mut u8, m: &Msg, root: usize, req: &mut Request) {
        check(
            unsafe {
                ffi::MPI_Ireduce(
                    sbuf as *const c_void,
                    rbuf as *mut c_void,
                    m.count,
                    m.dt,
                    op_sum(),
                    root as c_int,
                    self.raw,
                    req,
                )
            },
            "MPI_Ireduce",
        );
    }

    /// `MPI_Iallreduce` with `MPI_SUM` of `m` (typed elements).
    #[inline]
    pub fn iallreduce(&self, sbuf: *const u8, rbuf: *mut u8, m: &Msg, req: &mut Request) {
        check(
            unsafe {
                ffi::MPI_Iallreduce(
                    sbuf as *const c_void,
                    rbuf as *mut c_void,
                    m.count,
                    m.dt,
                    op_sum(),
                    self.raw,
                    req,
                )
            },
            "MPI_Iallreduce",
        );
    }

    /// `MPI_Ireduce_scatter_block` with `MPI_SUM`: `m` elements to every rank.
    #[inline]
    pub fn ireduce_scatter_block(
        &self,
        sbuf: *const u8,
        rbuf: *mut u8,
        m: &Msg,
        req: &mut Request,
    ) {
        check(
            unsafe {
                ffi::MPI_Ireduce_scatter_block(
                    sbuf as *const c_void,
                    rbuf as *mut c_void,
                    m.count,
                    m.dt,
                    op_sum(),
                    self.raw,
                    req,
                )
            },
            "MPI_Ireduce_scatter_block",
        );
    }
}
