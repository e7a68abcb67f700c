use crate::bench::{Benchmark, Class, Expect, Info, Layout, Op, Segment};

/// PMB §4.4.6: MPI_Alltoall, every process sends X bytes to every other.
pub struct Alltoall;

static INFO: Info = Info {
    name: "Alltoall",
    suite: super::SUITE,
    class: Class::Collective,
    min_ranks: 1,
    description: "MPI_Alltoall: each process sends X bytes to every process",
    time_scale: 1.0,
    throughput: None,
    reduction: false,
    rooted: false,
    sized: true,
};

impl Benchmark for Alltoall {
    fn info(&self) -> &'static Info {
        &INFO
    }
    fn layout(&self, x: usize, q: usize) -> Layout {
        Layout {
            send: q * x,
            recv: q * x,
        }
    }
    #[inline]
    fn run(&self, op: &mut Op) {
        op.comm.alltoall(op.sbuf.ptr(), op.x, op.rbuf.mut_ptr());
    }
    fn expect(&self, x: usize, q: usize, rank: usize, _root: usize) -> Expect {
        Expect::Bytes(
            (0..q)
                .map(|s| Segment {
                    offset: s * x,
                    len: x,
                    sender: s,
                    sender_offset: rank * x,
                })
                .collect(),
        )
    }
}
