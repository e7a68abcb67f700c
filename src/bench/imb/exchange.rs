use crate::bench::{Benchmark, Class, Expect, Info, Layout, Op, Segment};
use crate::comm;

/// PMB §4.3.2: each process exchanges with both neighbours in a periodic
/// chain: 2 MPI_Isend + 2 MPI_Recv + MPI_Waitall; throughput = 4X/1.048576/t.
pub struct Exchange;

static INFO: Info = Info {
    name: "Exchange",
    suite: super::SUITE,
    class: Class::ParallelTransfer,
    min_ranks: 1,
    description: "exchange with both chain neighbours (2 MPI_Isend, 2 MPI_Recv, MPI_Waitall); throughput 4X/t",
    time_scale: 1.0,
    throughput: Some(4.0),
    reduction: false,
    rooted: false,
    sized: true,
};

impl Benchmark for Exchange {
    fn info(&self) -> &'static Info {
        &INFO
    }
    fn layout(&self, x: usize, _q: usize) -> Layout {
        Layout {
            send: 2 * x,
            recv: 2 * x,
        }
    }
    #[inline]
    fn run(&self, op: &mut Op) {
        let right = (op.rank + 1) % op.size;
        let left = (op.rank + op.size - 1) % op.size;
        let x = op.x;
        // SAFETY of the offsets: both buffers hold 2X bytes (layout above).
        op.reqs[0] = op.comm.isend(op.sbuf.ptr(), x, right, 1);
        op.reqs[1] = op.comm.isend(op.sbuf.ptr().wrapping_add(x), x, left, 1);
        op.comm.recv(op.rbuf.mut_ptr(), x, left, 1);
        op.comm.recv(op.rbuf.mut_ptr().wrapping_add(x), x, right, 1);
        comm::waitall(&mut op.reqs[..2]);
    }
    fn expect(&self, x: usize, q: usize, rank: usize, _root: usize) -> Expect {
        let right = (rank + 1) % q;
        let left = (rank + q - 1) % q;
        Expect::Bytes(vec![
            Segment {
                offset: 0,
                len: x,
                sender: left,
                sender_offset: 0,
            },
            Segment {
                offset: x,
                len: x,
                sender: right,
                sender_offset: x,
            },
        ])
    }
}
