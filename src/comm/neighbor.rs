//! Neighbourhood collectives (MPI-3) and the topology communicators they
//! run on: `MPI_Dist_graph_create_adjacent`, the Cartesian look-ups
//! `MPI_Cart_coords` / `MPI_Cart_rank`, and the blocking and non-blocking
//! `MPI_[I]neighbor_allgather[v]` / `MPI_[I]neighbor_alltoall[v,w]`.
//! Every return code is checked. Counts and displacements are resolved
//! once per point (a [`Neighbourhood`]); the hot calls only read them.

use std::ffi::{c_int, c_void};

use mpi::ffi;

use super::error::check;
use super::{Comm, Msg, Request};

/// A distributed-graph communicator with its adjacency, and everything the
/// neighbourhood collectives of one point read: per-neighbour counts and
/// displacements (in elements of the point's message type, and in bytes
/// for the `w` form), and the per-neighbour datatypes of the `w` form.
pub struct Neighbourhood {
    pub comm: Comm,
    /// Ranks this one receives from, in the order of the receive blocks.
    pub sources: Vec<usize>,
    /// For every source, the block of its send buffer that comes here
    /// (this rank's place among that source's destinations), for validation.
    pub source_block: Vec<usize>,
    /// One block of the message per source / destination.
    pub recvcounts: Vec<c_int>,
    pub rdispls: Vec<c_int>,
    pub sendcounts: Vec<c_int>,
    pub sdispls: Vec<c_int>,
    /// Byte displacements and types of `MPI_Neighbor_alltoallw`.
    pub rdispls_w: Vec<ffi::MPI_Aint>,
    pub sdispls_w: Vec<ffi::MPI_Aint>,
    pub recvtypes: Vec<ffi::MPI_Datatype>,
    pub sendtypes: Vec<ffi::MPI_Datatype>,
    /// Microseconds this rank spent in `MPI_Dist_graph_create_adjacent`
    /// (OMB's "Time took to create topology graph").
    pub created_us: f64,
}

impl Neighbourhood {
    /// Collective over `comm`: the graph communicator of these adjacency
    /// lists (weights 1, no reordering, as OMB), with blocks of `m`
    /// (`bytes` bytes) one after the other in both buffers.
    pub fn new(
        comm: &Comm,
        sources: Vec<usize>,
        destinations: Vec<usize>,
        source_block: Vec<usize>,
        m: &Msg,
        bytes: usize,
    ) -> Result<Neighbourhood, super::Error> {
        let t0 = super::wtime();
        let g = comm.dist_graph_adjacent(&sources, &destinations)?;
        let created_us = (super::wtime() - t0) * 1e6;
        let n = m.count;
        // Every array holds max(indegree, outdegree, 1) entries (the extra
        // ones unused): MPICH 4.0's MPI_Neighbor_alltoallw reads the send
        // arrays with the in-degree and the receive arrays with the
        // out-degree (pmodels/mpich#6233, fixed after 4.0.2), which must
        // give wrong data that --check reports, not a crash.
        let most = sources.len().max(destinations.len()).max(1);
        let k = most;
        let blocks = || -> (Vec<c_int>, Vec<c_int>, Vec<ffi::MPI_Aint>, Vec<ffi::MPI_Datatype>) {
            (
                vec![n; k],
                (0..k).map(|i| i as c_int * n).collect(),
                (0..k).map(|i| (i * bytes) as ffi::MPI_Aint).collect(),
                vec![m.dt; k],
            )
        };
        let (recvcounts, rdispls, rdispls_w, recvtypes) = blocks();
        let (sendcounts, sdispls, sdispls_w, sendtypes) = blocks();
        Ok(Neighbourhood {
            comm: g,
            sources,
            source_block,
            recvcounts,
            rdispls,
            sendcounts,
            sdispls,
            rdispls_w,
            sdispls_w,
            recvtypes,
            sendtypes,
            created_us,
        })
    }
}

fn ints(v: &[usize]) -> Vec<c_int> {
    v.iter().map(|&x| x as c_int).collect()
}

impl Comm {
    /// `MPI_Dist_graph_create_adjacent` with weights 1, `MPI_INFO_NULL` and
    /// no reordering; the new communicator returns errors to [`check`].
    pub fn dist_graph_adjacent(
        &self,
        sources: &[usize],
        destinations: &[usize],
    ) -> Result<Comm, super::Error> {
        let (s, d) = (ints(sources), ints(destinations));
        let (sw, dw) = (vec![1 as c_int; s.len()], vec![1 as c_int; d.len()]);
        let mut out = unsafe { ffi::RSMPI_COMM_NULL };
        super::checked(
            unsafe {
                ffi::MPI_Dist_graph_create_adjacent(
                    self.raw,
                    s.len() as c_int,
                    s.as_ptr(),
                    sw.as_ptr(),
                    d.len() as c_int,
                    d.as_ptr(),
                    dw.as_ptr(),
                    ffi::RSMPI_INFO_NULL,
                    0,
                    &mut out,
                )
            },
            "MPI_Dist_graph_create_adjacent",
        )?;
        super::checked(
            unsafe { ffi::MPI_Comm_set_errhandler(out, ffi::RSMPI_ERRORS_RETURN) },
            "MPI_Comm_set_errhandler",
        )?;
        Ok(Comm::wrap(out, true))
    }

    /// `MPI_Cart_coords` of `rank` in this Cartesian communicator of `nd` dimensions.
    pub fn cart_coords(&self, rank: usize, nd: usize) -> Vec<i64> {
        let mut c = vec![0 as c_int; nd];
        check(
            unsafe { ffi::MPI_Cart_coords(self.raw, rank as c_int, nd as c_int, c.as_mut_ptr()) },
            "MPI_Cart_coords",
        );
        c.into_iter().map(i64::from).collect()
    }

    /// `MPI_Cart_rank` of coordinates (periodic dimensions wrap them).
    pub fn cart_rank(&self, coords: &[i64]) -> usize {
        let c: Vec<c_int> = coords.iter().map(|&x| x as c_int).collect();
        let mut r = 0;
        check(
            unsafe { ffi::MPI_Cart_rank(self.raw, c.as_ptr(), &mut r) },
            "MPI_Cart_rank",
        );
        r as usize
    }
}

/// The neighbourhood collectives: `m` per block, on `n`'s communicator.
impl Neighbourhood {
    /// `MPI_Neighbor_allgather`: `m` to every destination, one block from every source.
    #[inline]
    pub fn allgather(&self, sbuf: *const u8, m: &Msg, rbuf: *mut u8) {
        check(
            unsafe {
                ffi::MPI_Neighbor_allgather(
                    sbuf as *const c_void,
                    m.count,
                    m.dt,
                    rbuf as *mut c_void,
                    m.count,
                    m.dt,
                    self.comm.raw,
                )
            },
            "MPI_Neighbor_allgather",
        );
    }

    /// `MPI_Ineighbor_allgather`.
    #[inline]
    pub fn iallgather(&self, sbuf: *const u8, m: &Msg, rbuf: *mut u8, req: &mut Request) {
        check(
            unsafe {
                ffi::MPI_Ineighbor_allgather(
                    sbuf as *const c_void,
                    m.count,
                    m.dt,
                    rbuf as *mut c_void,
                    m.count,
                    m.dt,
                    self.comm.raw,
                    req,
                )
            },
            "MPI_Ineighbor_allgather",
        );
    }

    /// `MPI_Neighbor_allgatherv` with the per-source counts and displacements.
    #[inline]
    pub fn allgatherv(&self, sbuf: *const u8, m: &Msg, rbuf: *mut u8) {
        check(
            unsafe {
                ffi::MPI_Neighbor_allgatherv(
                    sbuf as *const c_void,
                    m.count,
                    m.dt,
                    rbuf as *mut c_void,
                    self.recvcounts.as_ptr(),
                    self.rdispls.as_ptr(),
                    m.dt,
                    self.comm.raw,
                )
            },
            "MPI_Neighbor_allgatherv",
        );
    }

    /// `MPI_Ineighbor_allgatherv`.
    #[inline]
    pub fn iallgatherv(&self, sbuf: *const u8, m: &Msg, rbuf: *mut u8, req: &mut Request) {
        check(
            unsafe {
                ffi::MPI_Ineighbor_allgatherv(
                    sbuf as *const c_void,
                    m.count,
                    m.dt,
                    rbuf as *mut c_void,
                    self.recvcounts.as_ptr(),
                    self.rdispls.as_ptr(),
                    m.dt,
                    self.comm.raw,
                    req,
                )
            },
            "MPI_Ineighbor_allgatherv",
        );
    }

    /// `MPI_Neighbor_alltoall`: block i of the send buffer to destination i.
    #[inline]
    pub fn alltoall(&self, sbuf: *const u8, m: &Msg, rbuf: *mut u8) {
        check(
            unsafe {
                ffi::MPI_Neighbor_alltoall(
                    sbuf as *const c_void,
                    m.count,
                    m.dt,
                    rbuf as *mut c_void,
                    m.count,
                    m.dt,
                    self.comm.raw,
                )
            },
            "MPI_Neighbor_alltoall",
        );
    }

    /// `MPI_Ineighbor_alltoall`.
    #[inline]
    pub fn ialltoall(&self, sbuf: *const u8, m: &Msg, rbuf: *mut u8, req: &mut Request) {
        check(
            unsafe {
                ffi::MPI_Ineighbor_alltoall(
                    sbuf as *const c_void,
                    m.count,
                    m.dt,
                    rbuf as *mut c_void,
                    m.count,
                    m.dt,
                    self.comm.raw,
                    req,
                )
            },
            "MPI_Ineighbor_alltoall",
        );
    }

    /// `MPI_Neighbor_alltoallv` with the per-neighbour counts and displacements.
    #[inline]
    pub fn alltoallv(&self, sbuf: *const u8, m: &Msg, rbuf: *mut u8) {
        check(
            unsafe {
                ffi::MPI_Neighbor_alltoallv(
                    sbuf as *const c_void,
                    self.sendcounts.as_ptr(),
                    self.sdispls.as_ptr(),
                    m.dt,
                    rbuf as *mut c_void,
                    self.recvcounts.as_ptr(),
                    self.rdispls.as_ptr(),
                    m.dt,
                    self.comm.raw,
                )
            },
            "MPI_Neighbor_alltoallv",
        );
    }

    /// `MPI_Ineighbor_alltoallv`.
    #[inline]
    pub fn ialltoallv(&self, sbuf: *const u8, m: &Msg, rbuf: *mut u8, req: &mut Request) {
        check(
            unsafe {
                ffi::MPI_Ineighbor_alltoallv(
                    sbuf as *const c_void,
                    self.sendcounts.as_ptr(),
                    self.sdispls.as_ptr(),
                    m.dt,
                    rbuf as *mut c_void,
                    self.recvcounts.as_ptr(),
                    self.rdispls.as_ptr(),
                    m.dt,
                    self.comm.raw,
                    req,
                )
            },
            "MPI_Ineighbor_alltoallv",
        );
    }

    /// `MPI_Neighbor_alltoallw` with byte displacements and per-neighbour types.
    #[inline]
    pub fn alltoallw(&self, sbuf: *const u8, rbuf: *mut u8) {
        check(
            unsafe {
                ffi::MPI_Neighbor_alltoallw(
                    sbuf as *const c_void,
                    self.sendcounts.as_ptr(),
                    self.sdispls_w.as_ptr(),
                    self.sendtypes.as_ptr(),
                    rbuf as *mut c_void,
                    self.recvcounts.as_ptr(),
                    self.rdispls_w.as_ptr(),
                    self.recvtypes.as_ptr(),
                    self.comm.raw,
                )
            },
            "MPI_Neighbor_alltoallw",
        );
    }

    /// `MPI_Ineighbor_alltoallw`.
    #[inline]
    pub fn ialltoallw(&self, sbuf: *const u8, rbuf: *mut u8, req: &mut Request) {
        check(
            unsafe {
                ffi::MPI_Ineighbor_alltoallw(
                    sbuf as *const c_void,
                    self.sendcounts.as_ptr(),
                    self.sdispls_w.as_ptr(),
                    self.sendtypes.as_ptr(),
                    rbuf as *mut c_void,
                    self.recvcounts.as_ptr(),
                    self.rdispls_w.as_ptr(),
                    self.recvtypes.as_ptr(),
                    self.comm.raw,
                    req,
                )
            },
            "MPI_Ineighbor_alltoallw",
        );
    }
}
