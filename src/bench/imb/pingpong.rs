use crate::bench::{Benchmark, Class, Expect, Info, Layout, Op, Segment};

/// PMB §4.2.1: MPI_Send / MPI_Recv between two processes; time = t/2.
pub struct PingPong;

static INFO: Info = Info {
    name: "PingPong",
    suite: super::SUITE,
    class: Class::SingleTransfer,
    min_ranks: 2,
    description: "single message bounced between 2 processes (MPI_Send/MPI_Recv); time = t/2",
    time_scale: 0.5,
    throughput: Some(1.0),
    reduction: false,
    rooted: false,
    sized: true,
};

impl Benchmark for PingPong {
    fn info(&self) -> &'static Info {
        &INFO
    }
    fn layout(&self, x: usize, _q: usize) -> Layout {
        Layout { send: x, recv: x }
    }
    #[inline]
    fn run(&self, op: &mut Op) {
        match op.rank {
            0 => {
                op.comm.send(op.sbuf.ptr(), op.x, 1, 1);
                op.comm.recv(op.rbuf.mut_ptr(), op.x, 1, 1);
            }
            1 => {
                op.comm.recv(op.rbuf.mut_ptr(), op.x, 0, 1);
                op.comm.send(op.sbuf.ptr(), op.x, 0, 1);
            }
            _ => {}
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
