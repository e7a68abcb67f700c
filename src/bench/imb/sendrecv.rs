use crate::bench::{Benchmark, Class, Expect, Info, Layout, Op, Segment};

/// PMB §4.3.1: periodic chain, each process sends right and receives from the
/// left with MPI_Sendrecv; throughput = 2X/1.048576/t.
pub struct Sendrecv;

static INFO: Info = Info {
    name: "Sendrecv",
    suite: super::SUITE,
    class: Class::ParallelTransfer,
    min_ranks: 1,
    description: "periodic chain: MPI_Sendrecv to the right, from the left; throughput 2X/t",
    time_scale: 1.0,
    throughput: Some(2.0),
    reduction: false,
    rooted: false,
    sized: true,
};

impl Benchmark for Sendrecv {
    fn info(&self) -> &'static Info {
        &INFO
    }
    fn layout(&self, x: usize, _q: usize) -> Layout {
        Layout { send: x, recv: x }
    }
    #[inline]
    fn run(&self, op: &mut Op) {
        let right = (op.rank + 1) % op.size;
        let left = (op.rank + op.size - 1) % op.size;
        op.comm
            .sendrecv(op.sbuf.ptr(), op.x, right, op.rbuf.mut_ptr(), left, 1);
    }
    fn expect(&self, x: usize, q: usize, rank: usize, _root: usize) -> Expect {
        let left = (rank + q - 1) % q;
        Expect::Bytes(vec![Segment {
            offset: 0,
            len: x,
            sender: left,
            sender_offset: 0,
        }])
    }
}
