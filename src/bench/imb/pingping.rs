use crate::bench::{Benchmark, Class, Expect, Info, Layout, Op, Segment};
use crate::comm;

/// PMB §4.2.2: both processes issue MPI_Isend at once, then MPI_Recv and MPI_Wait.
pub struct PingPing;

static INFO: Info = Info {
    name: "PingPing",
    suite: super::SUITE,
    class: Class::SingleTransfer,
    min_ranks: 2,
    description: "single message obstructed by an oncoming one (MPI_Isend/MPI_Recv/MPI_Wait)",
    time_scale: 1.0,
    throughput: Some(1.0),
    reduction: false,
    rooted: false,
    sized: true,
};

impl Benchmark for PingPing {
    fn info(&self) -> &'static Info {
        &INFO
    }
    fn layout(&self, x: usize, _q: usize) -> Layout {
        Layout { send: x, recv: x }
    }
    #[inline]
    fn run(&self, op: &mut Op) {
        if op.rank < 2 {
            let other = 1 - op.rank;
            op.reqs[0] = op.comm.isend(op.sbuf.ptr(), op.x, other, 1);
            op.comm.recv(op.rbuf.mut_ptr(), op.x, other, 1);
            comm::wait(&mut op.reqs[0]);
        }
    }
    fn expect(&self, x: usize, _q: usize, rank: usize, _root: usize) -> Expect {
        match rank {
            0 | 1 => Expect::Bytes(vec![Segment {
                offset: 0,
                len: x,
                sender: 1 - rank,
                sender_offset: 0,
            }]),
            _ => Expect::Nothing,
        }
    }
}
