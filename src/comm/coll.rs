//! The collectives IMB-MPI1 2021 has beyond PMB: rooted vector collectives,
//! all-to-all with counts, the block reduce-scatter and the local reduction.
//! Counts and displacements are in units of `unit` (one element of the
//! message, or a derived type of X bytes beyond the int range).

use std::ffi::{c_int, c_void};

use mpi::ffi;

use super::error::check;
use super::{Comm, Msg};

impl Comm {
    /// `MPI_Gatherv` of `m` from every rank to `root`, at `displs` (units of `unit`).
    #[inline]
    #[allow(clippy::too_many_arguments)]
    pub fn gatherv(
        &self,
        sbuf: *const u8,
        m: &Msg,
        rbuf: *mut u8,
        counts: &[c_int],
        displs: &[c_int],
        unit: &Msg,
        root: usize,
    ) {
        check(
            unsafe {
                ffi::MPI_Gatherv(
                    sbuf as *const c_void,
                    m.count,
                    m.dt,
                    rbuf as *mut c_void,
                    counts.as_ptr(),
                    displs.as_ptr(),
                    unit.dt,
                    root as c_int,
                    self.raw(),
                )
            },
            "MPI_Gatherv",
        );
    }

    /// `MPI_Scatter` of `m` to every rank from `root`.
    #[inline]
    pub fn scatter(&self, sbuf: *const u8, m: &Msg, rbuf: *mut u8, root: usize) {
        check(
            unsafe {
                ffi::MPI_Scatter(
                    sbuf as *const c_void,
                    m.count,
                    m.dt,
                    rbuf as *mut c_void,
                    m.count,
                    m.dt,
                    root as c_int,
                    self.raw(),
                )
            },
            "MPI_Scatter",
        );
    }

    /// `MPI_Scatterv` from `root` at `displs` (units of `unit`), `m` to every rank.
    #[inline]
    #[allow(clippy::too_many_arguments)]
    pub fn scatterv(
        &self,
        sbuf: *const u8,
        counts: &[c_int],
        displs: &[c_int],
        unit: &Msg,
        rbuf: *mut u8,
        m: &Msg,
        root: usize,
    ) {
        check(
            unsafe {
                ffi::MPI_Scatterv(
                    sbuf as *const c_void,
                    counts.as_ptr(),
                    displs.as_ptr(),
                    unit.dt,
                    rbuf as *mut c_void,
                    m.count,
                    m.dt,
                    root as c_int,
                    self.raw(),
                )
            },
            "MPI_Scatterv",
        );
    }

    /// `MPI_Alltoallv` with the same counts and displacements for sending and receiving.
    #[inline]
    pub fn alltoallv(
        &self,
        sbuf: *const u8,
        rbuf: *mut u8,
        counts: &[c_int],
        displs: &[c_int],
        unit: &Msg,
    ) {
        check(
            unsafe {
                ffi::MPI_Alltoallv(
                    sbuf as *const c_void,
                    counts.as_ptr(),
                    displs.as_ptr(),
                    unit.dt,
                    rbuf as *mut c_void,
                    counts.as_ptr(),
                    displs.as_ptr(),
                    unit.dt,
                    self.raw(),
                )
            },
            "MPI_Alltoallv",
        );
    }

    /// `MPI_Reduce_scatter_block` with `MPI_SUM`: `m` (typed elements) to every rank.
    #[inline]
    pub fn reduce_scatter_block(&self, sbuf: *const u8, rbuf: *mut u8, m: &Msg) {
        check(
            unsafe {
                ffi::MPI_Reduce_scatter_block(
                    sbuf as *const c_void,
                    rbuf as *mut c_void,
                    m.count,
                    m.dt,
                    m.sum_op(),
                    self.raw(),
                )
            },
            "MPI_Reduce_scatter_block",
        );
    }
}

/// `MPI_Reduce_local` with `MPI_SUM`: `inout` += `input`, no communication.
#[inline]
pub fn reduce_local(input: *const u8, inout: *mut u8, m: &Msg) {
    check(
        unsafe {
            ffi::MPI_Reduce_local(
                input as *const c_void,
                inout as *mut c_void,
                m.count,
                m.dt,
                m.sum_op(),
            )
        },
        "MPI_Reduce_local",
    );
}
