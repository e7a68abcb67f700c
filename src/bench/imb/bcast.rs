use crate::bench::{Benchmark, Class, Expect, Info, Layout, Op, Segment};

/// PMB §4.4.7: MPI_Bcast of X bytes from the root (rotated with --root-shift, PMB §5.2.7).
pub struct Bcast;

static INFO: Info = Info {
    name: "Bcast",
    suite: super::SUITE,
    class: Class::Collective,
    min_ranks: 1,
    description: "MPI_Bcast from the root to all processes",
    time_scale: 1.0,
    throughput: None,
    reduction: false,
    rooted: true,
    sized: true,
};

impl Benchmark for Bcast {
    fn info(&self) -> &'static Info {
        &INFO
    }
    fn layout(&self, x: usize, _q: usize) -> Layout {
        Layout { send: x, recv: x }
    }
    #[inline]
    fn run(&self, op: &mut Op) {
        let buf = if op.rank == op.root {
            op.sbuf.mut_ptr()
        } else {
            op.rbuf.mut_ptr()
        };
        op.comm.bcast(buf, op.x, op.root);
    }
    fn expect(&self, x: usize, _q: usize, rank: usize, root: usize) -> Expect {
        if rank == root {
            Expect::Nothing
        } else {
            Expect::Bytes(vec![Segment {
                offset: 0,
                len: x,
                sender: root,
                sender_offset: 0,
            }])
        }
    }
}
