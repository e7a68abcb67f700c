use crate::bench::{Benchmark, Class, Expect, Info, Layout, Op, Segment};

/// PMB §4.4.4: MPI_Allgather, every process contributes X bytes and receives Q·X.
pub struct Allgather;

static INFO: Info = Info {
    name: "Allgather",
    suite: super::SUITE,
    class: Class::Collective,
    min_ranks: 1,
    description: "MPI_Allgather: each process contributes X bytes, all receive Q*X",
    time_scale: 1.0,
    throughput: None,
    reduction: false,
    rooted: false,
    sized: true,
};

impl Benchmark for Allgather {
    fn info(&self) -> &'static Info {
        &INFO
    }
    fn layout(&self, x: usize, q: usize) -> Layout {
        Layout {
            send: x,
            recv: q * x,
        }
    }
    #[inline]
    fn run(&self, op: &mut Op) {
        op.comm.allgather(op.sbuf.ptr(), op.x, op.rbuf.mut_ptr());
    }
    fn expect(&self, x: usize, q: usize, _rank: usize, _root: usize) -> Expect {
        Expect::Bytes(
            (0..q)
                .map(|k| Segment {
                    offset: k * x,
                    len: x,
                    sender: k,
                    sender_offset: 0,
                })
                .collect(),
        )
    }
}
