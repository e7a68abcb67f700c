//! Persistent collectives (MPI-4 `MPI_Xxx_init`), for OSU's
//! `osu_*_persistent` programs: a request made once per size outside any
//! timed region, started with [`start`] and completed with
//! [`super::wait`] every iteration, freed with [`super::persistent::free`].
//!
//! The C shim picks the entry points: MPICH 4 has `MPI_Xxx_init` in mpi.h;
//! Open MPI 4.1 has them only as `MPIX_Xxx_init` in its `pcollreq`
//! extension (mpi-ext.h). A library with neither makes [`available`] `None`,
//! and the programs refuse to run (the init calls are never made).
//! Arguments as the blocking calls (`comm/mod.rs`, `comm/coll.rs`): a
//! resolved [`Msg`], counts and displacements in units of `unit`,
//! reductions with `MPI_SUM` on `m.dt`. The buffers, counts and
//! displacements must stay in place until the request is freed.

use std::ffi::{c_int, c_void};

use mpi::ffi;

use super::error::check;
use super::{checked, op_sum, Comm, Error, Msg, Request};

type Dt = ffi::MPI_Datatype;
type Raw = ffi::MPI_Comm;
type Req = *mut ffi::MPI_Request;

extern "C" {
    fn mpibench_pcoll() -> c_int;
    fn mpibench_barrier_init(c: Raw, r: Req) -> c_int;
    fn mpibench_bcast_init(b: *mut c_void, n: c_int, t: Dt, root: c_int, c: Raw, r: Req) -> c_int;
    fn mpibench_gather_init(
        s: *const c_void,
        n: c_int,
        t: Dt,
        rb: *mut c_void,
        root: c_int,
        c: Raw,
        r: Req,
    ) -> c_int;
    fn mpibench_gatherv_init(
        s: *const c_void,
        n: c_int,
        t: Dt,
        rb: *mut c_void,
        counts: *const c_int,
        displs: *const c_int,
        u: Dt,
        root: c_int,
        c: Raw,
        r: Req,
    ) -> c_int;
    fn mpibench_scatter_init(
        s: *const c_void,
        n: c_int,
        t: Dt,
        rb: *mut c_void,
        root: c_int,
        c: Raw,
        r: Req,
    ) -> c_int;
    fn mpibench_scatterv_init(
        s: *const c_void,
        counts: *const c_int,
        displs: *const c_int,
        u: Dt,
        rb: *mut c_void,
        n: c_int,
        t: Dt,
        root: c_int,
        c: Raw,
        r: Req,
    ) -> c_int;
    fn mpibench_allgather_init(
        s: *const c_void,
        n: c_int,
        t: Dt,
        rb: *mut c_void,
        c: Raw,
        r: Req,
    ) -> c_int;
    fn mpibench_allgatherv_init(
        s: *const c_void,
        n: c_int,
        t: Dt,
        rb: *mut c_void,
        counts: *const c_int,
        displs: *const c_int,
        u: Dt,
        c: Raw,
        r: Req,
    ) -> c_int;
    fn mpibench_alltoall_init(
        s: *const c_void,
        n: c_int,
        t: Dt,
        rb: *mut c_void,
        c: Raw,
        r: Req,
    ) -> c_int;
    fn mpibench_alltoallv_init(
        s: *const c_void,
        rb: *mut c_void,
        counts: *const c_int,
        displs: *const c_int,
        u: Dt,
        c: Raw,
        r: Req,
    ) -> c_int;
    fn mpibench_alltoallw_init(
        s: *const c_void,
        rb: *mut c_void,
        counts: *const c_int,
        displs: *const c_int,
        types: *const Dt,
        c: Raw,
        r: Req,
    ) -> c_int;
    fn mpibench_reduce_init(
        s: *const c_void,
        rb: *mut c_void,
        n: c_int,
        t: Dt,
        op: ffi::MPI_Op,
        root: c_int,
        c: Raw,
        r: Req,
    ) -> c_int;
    fn mpibench_allreduce_init(
        s: *const c_void,
        rb: *mut c_void,
        n: c_int,
        t: Dt,
        op: ffi::MPI_Op,
        c: Raw,
        r: Req,
    ) -> c_int;
    fn mpibench_reduce_scatter_init(
        s: *const c_void,
        rb: *mut c_void,
        counts: *const c_int,
        t: Dt,
        op: ffi::MPI_Op,
        c: Raw,
        r: Req,
    ) -> c_int;
}

/// Where this library's persistent collectives are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Api {
    /// MPI-4 `MPI_Xxx_init` (MPICH 4, Open MPI 5).
    Mpi4,
    /// Open MPI 4.1's `pcollreq` extension: `MPIX_Xxx_init`.
    Mpix,
}

/// The library's persistent collectives, if it has them (known at build
/// time: callable before `MPI_Init`).
pub fn available() -> Option<Api> {
    match unsafe { mpibench_pcoll() } {
        4 => Some(Api::Mpi4),
        1 => Some(Api::Mpix),
        _ => None,
    }
}

/// The name of a call for error messages, with this library's prefix.
macro_rules! call {
    ($n:literal) => {
        if available() == Some(Api::Mpix) {
            concat!("MPIX_", $n, "_init")
        } else {
            concat!("MPI_", $n, "_init")
        }
    };
}

/// `MPI_Start` of an inactive persistent request.
#[inline]
pub fn start(req: &mut Request) {
    check(unsafe { ffi::MPI_Start(req) }, "MPI_Start");
}

fn cv(p: *const u8) -> *const c_void {
    p as *const c_void
}

fn mv(p: *mut u8) -> *mut c_void {
    p as *mut c_void
}

impl Comm {
    /// `MPI_Barrier_init`.
    pub fn barrier_init(&self, req: &mut Request) -> Result<(), Error> {
        checked(
            unsafe { mpibench_barrier_init(self.raw(), req) },
            call!("Barrier"),
        )
    }

    /// `MPI_Bcast_init` of `m` from `root`.
    pub fn bcast_init(
        &self,
        buf: *mut u8,
        m: &Msg,
        root: usize,
        req: &mut Request,
    ) -> Result<(), Error> {
        checked(
            unsafe { mpibench_bcast_init(mv(buf), m.count, m.dt, root as c_int, self.raw(), req) },
            call!("Bcast"),
        )
    }

    /// `MPI_Gather_init` of `m` from every rank to `root`.
    pub fn gather_init(
        &self,
        sbuf: *const u8,
        m: &Msg,
        rbuf: *mut u8,
        root: usize,
        req: &mut Request,
    ) -> Result<(), Error> {
        checked(
            unsafe {
                mpibench_gather_init(
                    cv(sbuf),
                    m.count,
                    m.dt,
                    mv(rbuf),
                    root as c_int,
                    self.raw(),
                    req,
                )
            },
            call!("Gather"),
        )
    }

    /// `MPI_Gatherv_init` of `m` from every rank to `root`, at `displs` (units of `unit`).
    #[allow(clippy::too_many_arguments)]
    pub fn gatherv_init(
        &self,
        sbuf: *const u8,
        m: &Msg,
        rbuf: *mut u8,
        counts: &[c_int],
        displs: &[c_int],
        unit: &Msg,
        root: usize,
        req: &mut Request,
    ) -> Result<(), Error> {
        checked(
            unsafe {
                mpibench_gatherv_init(
                    cv(sbuf),
                    m.count,
                    m.dt,
                    mv(rbuf),
                    counts.as_ptr(),
                    displs.as_ptr(),
                    unit.dt,
                    root as c_int,
                    self.raw(),
                    req,
                )
            },
            call!("Gatherv"),
        )
    }

    /// `MPI_Scatter_init` of `m` to every rank from `root`.
    pub fn scatter_init(
        &self,
        sbuf: *const u8,
        m: &Msg,
        rbuf: *mut u8,
        root: usize,
        req: &mut Request,
    ) -> Result<(), Error> {
        checked(
            unsafe {
                mpibench_scatter_init(
                    cv(sbuf),
                    m.count,
                    m.dt,
                    mv(rbuf),
                    root as c_int,
                    self.raw(),
                    req,
                )
            },
            call!("Scatter"),
        )
    }

    /// `MPI_Scatterv_init` from `root` at `displs` (units of `unit`), `m` to every rank.
    #[allow(clippy::too_many_arguments)]
    pub fn scatterv_init(
        &self,
        sbuf: *const u8,
        counts: &[c_int],
        displs: &[c_int],
        unit: &Msg,
        rbuf: *mut u8,
        m: &Msg,
        root: usize,
        req: &mut Request,
    ) -> Result<(), Error> {
        checked(
            unsafe {
                mpibench_scatterv_init(
                    cv(sbuf),
                    counts.as_ptr(),
                    displs.as_ptr(),
                    unit.dt,
                    mv(rbuf),
                    m.count,
                    m.dt,
                    root as c_int,
                    self.raw(),
                    req,
                )
            },
            call!("Scatterv"),
        )
    }

    /// `MPI_Allgather_init` of `m` per rank.
    pub fn allgather_init(
        &self,
        sbuf: *const u8,
        m: &Msg,
        rbuf: *mut u8,
        req: &mut Request,
    ) -> Result<(), Error> {
        checked(
            unsafe { mpibench_allgather_init(cv(sbuf), m.count, m.dt, mv(rbuf), self.raw(), req) },
            call!("Allgather"),
        )
    }

    /// `MPI_Allgatherv_init` with counts and displacements in units of `unit`.
    #[allow(clippy::too_many_arguments)]
    pub fn allgatherv_init(
        &self,
        sbuf: *const u8,
        m: &Msg,
        rbuf: *mut u8,
        counts: &[c_int],
        displs: &[c_int],
        unit: &Msg,
        req: &mut Request,
    ) -> Result<(), Error> {
        checked(
            unsafe {
                mpibench_allgatherv_init(
                    cv(sbuf),
                    m.count,
                    m.dt,
                    mv(rbuf),
                    counts.as_ptr(),
                    displs.as_ptr(),
                    unit.dt,
                    self.raw(),
                    req,
                )
            },
            call!("Allgatherv"),
        )
    }

    /// `MPI_Alltoall_init` of `m` to every rank.
    pub fn alltoall_init(
        &self,
        sbuf: *const u8,
        m: &Msg,
        rbuf: *mut u8,
        req: &mut Request,
    ) -> Result<(), Error> {
        checked(
            unsafe { mpibench_alltoall_init(cv(sbuf), m.count, m.dt, mv(rbuf), self.raw(), req) },
            call!("Alltoall"),
        )
    }

    /// `MPI_Alltoallv_init` with the same counts and displacements both ways.
    pub fn alltoallv_init(
        &self,
        sbuf: *const u8,
        rbuf: *mut u8,
        counts: &[c_int],
        displs: &[c_int],
        unit: &Msg,
        req: &mut Request,
    ) -> Result<(), Error> {
        checked(
            unsafe {
                mpibench_alltoallv_init(
                    cv(sbuf),
                    mv(rbuf),
                    counts.as_ptr(),
                    displs.as_ptr(),
                    unit.dt,
                    self.raw(),
                    req,
                )
            },
            call!("Alltoallv"),
        )
    }

    /// `MPI_Alltoallw_init` with the same counts, byte displacements and
    /// datatypes (one per peer) both ways.
    pub fn alltoallw_init(
        &self,
        sbuf: *const u8,
        rbuf: *mut u8,
        counts: &[c_int],
        displs: &[c_int],
        types: &[Dt],
        req: &mut Request,
    ) -> Result<(), Error> {
        checked(
            unsafe {
                mpibench_alltoallw_init(
                    cv(sbuf),
                    mv(rbuf),
                    counts.as_ptr(),
                    displs.as_ptr(),
                    types.as_ptr(),
                    self.raw(),
                    req,
                )
            },
            call!("Alltoallw"),
        )
    }

    /// `MPI_Reduce_init` with `MPI_SUM` of `m` (typed elements) to `root`.
    pub fn reduce_init(
        &self,
        sbuf: *const u8,
        rbuf: *mut u8,
        m: &Msg,
        root: usize,
        req: &mut Request,
    ) -> Result<(), Error> {
        checked(
            unsafe {
                mpibench_reduce_init(
                    cv(sbuf),
                    mv(rbuf),
                    m.count,
                    m.dt,
                    op_sum(),
                    root as c_int,
                    self.raw(),
                    req,
                )
            },
            call!("Reduce"),
        )
    }

    /// `MPI_Allreduce_init` with `MPI_SUM` of `m` (typed elements).
    pub fn allreduce_init(
        &self,
        sbuf: *const u8,
        rbuf: *mut u8,
        m: &Msg,
        req: &mut Request,
    ) -> Result<(), Error> {
        checked(
            unsafe {
                mpibench_allreduce_init(
                    cv(sbuf),
                    mv(rbuf),
                    m.count,
                    m.dt,
                    op_sum(),
                    self.raw(),
                    req,
                )
            },
            call!("Allreduce"),
        )
    }

    /// `MPI_Reduce_scatter_init` with `MPI_SUM`; `counts` elements of `m.dt` per rank.
    pub fn reduce_scatter_init(
        &self,
        sbuf: *const u8,
        rbuf: *mut u8,
        counts: &[c_int],
        m: &Msg,
        req: &mut Request,
    ) -> Result<(), Error> {
        checked(
            unsafe {
                mpibench_reduce_scatter_init(
                    cv(sbuf),
                    mv(rbuf),
                    counts.as_ptr(),
                    m.dt,
                    op_sum(),
                    self.raw(),
                    req,
                )
            },
            call!("Reduce_scatter"),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_libraries_here_have_them() {
        // MPICH 4 through MPI_Xxx_init, Open MPI 4.1 through MPIX_Xxx_init.
        let api = available().expect("persistent collectives in this build's library");
        let (major, _) = crate::comm::mpi_version();
        assert_eq!(api, if major >= 4 { Api::Mpi4 } else { Api::Mpix });
    }
}
