//! The vector collectives with per-peer datatypes (`MPI_Alltoallw`) and the
//! non-blocking vector collectives (MPI-3): `MPI_Iallgatherv`,
//! `MPI_Ialltoallv`, `MPI_Ialltoallw`, `MPI_Igatherv`, `MPI_Iscatterv`,
//! `MPI_Ireduce_scatter`. Same arguments as their blocking forms in
//! `mod.rs` and `coll.rs` (counts and displacements in units of `unit`;
//! the w-forms take displacements in bytes and one datatype per peer);
//! the non-blocking ones leave their request in `req`, to be completed with
//! [`super::wait`].

use std::ffi::{c_int, c_void};

use mpi::ffi;

use super::error::check;
use super::{op_sum, Comm, Msg, Request};

impl Comm {
    /// `MPI_Alltoallw` with the same counts, byte displacements and
    /// datatypes (one per peer) for sending and receiving.
    #[inline]
    pub fn alltoallw(
        &self,
        sbuf: *const u8,
        rbuf: *mut u8,
        counts: &[c_int],
        displs: &[c_int],
        types: &[ffi::MPI_Datatype],
    ) {
        check(
            unsafe {
                ffi::MPI_Alltoallw(
                    sbuf as *const c_void,
                    counts.as_ptr(),
                    displs.as_ptr(),
                    types.as_ptr(),
                    rbuf as *mut c_void,
                    counts.as_ptr(),
                    displs.as_ptr(),
                    types.as_ptr(),
                    self.raw,
                )
            },
            "MPI_Alltoallw",
        );
    }

    /// `MPI_Ialltoallw`: [`Comm::alltoallw`], started.
    #[inline]
    pub fn ialltoallw(
        &self,
        sbuf: *const u8,
        rbuf: *mut u8,
        counts: &[c_int],
        displs: &[c_int],
        types: &[ffi::MPI_Datatype],
        req: &mut Request,
    ) {
        check(
            unsafe {
                ffi::MPI_Ialltoallw(
                    sbuf as *const c_void,
                    counts.as_ptr(),
                    displs.as_ptr(),
                    types.as_ptr(),
                    rbuf as *mut c_void,
                    counts.as_ptr(),
                    displs.as_ptr(),
                    types.as_ptr(),
                    self.raw,
                    req,
                )
            },
            "MPI_Ialltoallw",
        );
    }

    /// `MPI_Iallgatherv` of `m` per rank, at `displs` (units of `unit`).
    #[inline]
    #[allow(clippy::too_many_arguments)]
    pub fn iallgatherv(
        &self,
        sbuf: *const u8,
        m: &Msg,
        rbuf: *mut u8,
        counts: &[c_int],
        displs: &[c_int],
        unit: &Msg,
        req: &mut Request,
    ) {
        check(
            unsafe {
                ffi::MPI_Iallgatherv(
                    sbuf as *const c_void,
                    m.count,
                    m.dt,
                    rbuf as *mut c_void,
                    counts.as_ptr(),
                    displs.as_ptr(),
                    unit.dt,
                    self.raw,
                    req,
                )
            },
            "MPI_Iallgatherv",
        );
    }

    /// `MPI_Ialltoallv` with the same counts and displacements (units of
    /// `unit`) for sending and receiving.
    #[inline]
    pub fn ialltoallv(
        &self,
        sbuf: *const u8,
        rbuf: *mut u8,
        counts: &[c_int],
        displs: &[c_int],
        unit: &Msg,
        req: &mut Request,
    ) {
        check(
            unsafe {
                ffi::MPI_Ialltoallv(
                    sbuf as *const c_void,
                    counts.as_ptr(),
                    displs.as_ptr(),
                    unit.dt,
                    rbuf as *mut c_void,
                    counts.as_ptr(),
                    displs.as_ptr(),
                    unit.dt,
                    self.raw,
                    req,
                )
            },
            "MPI_Ialltoallv",
        );
    }

    /// `MPI_Igatherv` of `m` from every rank to `root`, at `displs` (units of `unit`).
    #[inline]
    #[allow(clippy::too_many_arguments)]
    pub fn igatherv(
        &self,
        sbuf: *const u8,
        m: &Msg,
        rbuf: *mut u8,
        counts: &[c_int],
        displs: &[c_int],
        unit: &Msg,
        root: usize,
        req: &mut Request,
    ) {
        check(
            unsafe {
                ffi::MPI_Igatherv(
                    sbuf as *const c_void,
                    m.count,
                    m.dt,
                    rbuf as *mut c_void,
                    counts.as_ptr(),
                    displs.as_ptr(),
                    unit.dt,
                    root as c_int,
                    self.raw,
                    req,
                )
            },
            "MPI_Igatherv",
        );
    }

    /// `MPI_Iscatterv` from `root` at `displs` (units of `unit`), `m` to every rank.
    #[inline]
    #[allow(clippy::too_many_arguments)]
    pub fn iscatterv(
        &self,
        sbuf: *const u8,
        counts: &[c_int],
        displs: &[c_int],
        unit: &Msg,
        rbuf: *mut u8,
        m: &Msg,
        root: usize,
        req: &mut Request,
    ) {
        check(
            unsafe {
                ffi::MPI_Iscatterv(
                    sbuf as *const c_void,
                    counts.as_ptr(),
                    displs.as_ptr(),
                    unit.dt,
                    rbuf as *mut c_void,
                    m.count,
                    m.dt,
                    root as c_int,
                    self.raw,
                    req,
                )
            },
            "MPI_Iscatterv",
        );
    }

    /// `MPI_Ireduce_scatter` with `MPI_SUM` of elements of `m.dt`, `counts[k]` to rank k.
    #[inline]
    pub fn ireduce_scatter(
        &self,
        sbuf: *const u8,
        rbuf: *mut u8,
        counts: &[c_int],
        m: &Msg,
        req: &mut Request,
    ) {
        check(
            unsafe {
                ffi::MPI_Ireduce_scatter(
                    sbuf as *const c_void,
                    rbuf as *mut c_void,
                    counts.as_ptr(),
                    m.dt,
                    op_sum(),
                    self.raw,
                    req,
                )
            },
            "MPI_Ireduce_scatter",
        );
    }
}
