//! Persistent collectives (MPI-4 `MPI_Xxx_init`, Open MPI 4.1's
//! `MPIX_Xxx_init`) over the blocking patterns' buffers: the init call of
//! each blocking pattern ([`Init`]), shared by OSU's `osu_*_persistent`
//! programs and IMB-MPI4; and a blocking pattern made persistent as a
//! [`Phased`] pattern ([`Started`]): its request made once per point in
//! `prepare_point`, `issue` is MPI_Start and `complete` MPI_Wait. The
//! request is bound to the buffers at the point's offsets, so whoever
//! builds the kernel turns `--off-cache` and rotating roots off; the
//! kernel frees it when it is dropped (`BufKernel`).

use anyhow::Result;

use crate::bench::buf::{Layout, Op, Pattern, Phased};
use crate::bench::{patterns, Figure, Info};
use crate::check::Expect;
use crate::comm::{self, pcoll, Request};
use crate::contract::axis::{Point, SweepCx};
use crate::contract::placement::Role;

/// A blocking pattern whose call has a persistent form: `init` makes the
/// request of the same call on the same buffers as the pattern's `run`.
pub trait Init: Pattern {
    fn init(&self, op: &mut Op, req: &mut Request) -> Result<(), comm::Error>;
}

/// Where [`Started`] keeps its request (`op.reqs[0]`, as the non-blocking
/// patterns).
const REQ: usize = 0;

/// A blocking pattern made persistent: its buffers, counts and
/// expectations; its call made once per point as a request (in
/// `op.reqs`), started and completed every repetition.
pub struct Started<P>(pub P);

impl<P: Init> Pattern for Started<P> {
    fn info(&self) -> &'static Info {
        self.0.info()
    }
    fn layout(&self, x: usize, q: usize) -> Layout {
        self.0.layout(x, q)
    }
    fn prepare_point(&self, op: &mut Op, p: &Point) -> Result<()> {
        self.0.prepare_point(op, p)?;
        let mut req = comm::request_null();
        self.0.init(op, &mut req)?;
        op.reqs[REQ] = req;
        Ok(())
    }
    #[inline(always)]
    fn run(&self, op: &mut Op) {
        self.issue(op);
        self.complete(op);
    }
    fn expect(&self, x: usize, q: usize, rank: usize, root: usize, role: &Role) -> Expect {
        self.0.expect(x, q, rank, root, role)
    }
    fn expect_in(&self, op: &Op, root: usize) -> Expect {
        self.0.expect_in(op, root)
    }
    fn points(&self, cx: &SweepCx) -> Vec<Point> {
        self.0.points(cx)
    }
    fn refuse(&self, p: &Point, q: usize) -> Option<String> {
        self.0.refuse(p, q)
    }
    fn derive(&self, r: &mut crate::results::BenchResult) {
        self.0.derive(r)
    }
    fn figures(&self, op: &Op) -> Vec<Figure> {
        self.0.figures(op)
    }
    fn over(&self, info: &'static Info) -> Option<Self> {
        Some(Started(self.0.over(info)?))
    }
}

impl<P: Init> Phased for Started<P> {
    /// MPI_Start.
    #[inline(always)]
    fn issue(&self, op: &mut Op) {
        pcoll::start(&mut op.reqs[REQ]);
    }
    /// MPI_Wait (the request stays, inactive, for the next start).
    #[inline(always)]
    fn complete(&self, op: &mut Op) {
        comm::wait(&mut op.reqs[REQ]);
    }
}

impl Init for patterns::Barrier {
    fn init(&self, op: &mut Op, req: &mut Request) -> Result<(), comm::Error> {
        op.comm.barrier_init(req)
    }
}

impl Init for patterns::Bcast {
    fn init(&self, op: &mut Op, req: &mut Request) -> Result<(), comm::Error> {
        // As the pattern: the root sends from its send buffer.
        let buf = if op.rank == op.root {
            op.sbuf.mut_ptr().wrapping_add(op.soff)
        } else {
            op.rp()
        };
        op.comm.bcast_init(buf, &op.msg, op.root, req)
    }
}

impl Init for patterns::Gather {
    fn init(&self, op: &mut Op, req: &mut Request) -> Result<(), comm::Error> {
        let r = op.rp();
        op.comm.gather_init(op.sp(), &op.msg, r, op.root, req)
    }
}

impl Init for patterns::Gatherv {
    fn init(&self, op: &mut Op, req: &mut Request) -> Result<(), comm::Error> {
        let r = op.rp();
        let unit = op.unit.as_ref().unwrap_or(&op.msg);
        op.comm.gatherv_init(
            op.sp(),
            &op.msg,
            r,
            &op.counts,
            &op.displs,
            unit,
            op.root,
            req,
        )
    }
}

impl Init for patterns::Scatter {
    fn init(&self, op: &mut Op, req: &mut Request) -> Result<(), comm::Error> {
        let r = op.rp();
        op.comm.scatter_init(op.sp(), &op.msg, r, op.root, req)
    }
}

impl Init for patterns::Scatterv {
    fn init(&self, op: &mut Op, req: &mut Request) -> Result<(), comm::Error> {
        let r = op.rp();
        let unit = op.unit.as_ref().unwrap_or(&op.msg);
        op.comm.scatterv_init(
            op.sp(),
            &op.counts,
            &op.displs,
            unit,
            r,
            &op.msg,
            op.root,
            req,
        )
    }
}

impl Init for patterns::Allgather {
    fn init(&self, op: &mut Op, req: &mut Request) -> Result<(), comm::Error> {
        let r = op.rp();
        op.comm.allgather_init(op.sp(), &op.msg, r, req)
    }
}

impl Init for patterns::Allgatherv {
    fn init(&self, op: &mut Op, req: &mut Request) -> Result<(), comm::Error> {
        let r = op.rp();
        let unit = op.unit.as_ref().unwrap_or(&op.msg);
        op.comm
            .allgatherv_init(op.sp(), &op.msg, r, &op.counts, &op.displs, unit, req)
    }
}

impl Init for patterns::Alltoall {
    fn init(&self, op: &mut Op, req: &mut Request) -> Result<(), comm::Error> {
        let r = op.rp();
        op.comm.alltoall_init(op.sp(), &op.msg, r, req)
    }
}

impl Init for patterns::Alltoallv {
    fn init(&self, op: &mut Op, req: &mut Request) -> Result<(), comm::Error> {
        let r = op.rp();
        let unit = op.unit.as_ref().unwrap_or(&op.msg);
        op.comm
            .alltoallv_init(op.sp(), r, &op.counts, &op.displs, unit, req)
    }
}

impl Init for patterns::Alltoallw {
    fn init(&self, op: &mut Op, req: &mut Request) -> Result<(), comm::Error> {
        let r = op.rp();
        op.comm
            .alltoallw_init(op.sp(), r, &op.counts, &op.displs, &op.types, req)
    }
}

impl Init for patterns::Reduce {
    fn init(&self, op: &mut Op, req: &mut Request) -> Result<(), comm::Error> {
        let r = op.rp();
        op.comm.reduce_init(op.sp(), r, &op.msg, op.root, req)
    }
}

impl Init for patterns::Allreduce {
    fn init(&self, op: &mut Op, req: &mut Request) -> Result<(), comm::Error> {
        let r = op.rp();
        op.comm.allreduce_init(op.sp(), r, &op.msg, req)
    }
}

impl Init for patterns::ReduceScatterEach {
    fn init(&self, op: &mut Op, req: &mut Request) -> Result<(), comm::Error> {
        let r = op.rp();
        op.comm
            .reduce_scatter_init(op.sp(), r, &op.counts, &op.msg, req)
    }
}

impl Init for patterns::ReduceScatter {
    fn init(&self, op: &mut Op, req: &mut Request) -> Result<(), comm::Error> {
        let r = op.rp();
        op.comm
            .reduce_scatter_init(op.sp(), r, &op.counts, &op.msg, req)
    }
}
