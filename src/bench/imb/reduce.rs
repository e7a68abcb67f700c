use crate::bench::{Benchmark, Class, Expect, Info, Layout, Op};

/// PMB §4.4.1: MPI_Reduce of X/4 floats with MPI_SUM to the root (rotated with --root-shift).
pub struct Reduce;

static INFO: Info = Info {
    name: "Reduce",
    suite: super::SUITE,
    class: Class::Collective,
    min_ranks: 1,
    description: "MPI_Reduce of X/4 MPI_FLOATs with MPI_SUM to the root",
    time_scale: 1.0,
    throughput: None,
    reduction: true,
    rooted: true,
    sized: true,
};

impl Benchmark for Reduce {
    fn info(&self) -> &'static Info {
        &INFO
    }
    fn layout(&self, x: usize, _q: usize) -> Layout {
        let b = 4 * super::floats(x);
        Layout { send: b, recv: b }
    }
    #[inline]
    fn run(&self, op: &mut Op) {
        op.comm.reduce_f32(
            op.sbuf.fptr(),
            op.rbuf.mut_fptr(),
            super::floats(op.x),
            op.root,
        );
    }
    fn expect(&self, x: usize, _q: usize, rank: usize, root: usize) -> Expect {
        if rank == root {
            Expect::FloatSum {
                first: 0,
                count: super::floats(x),
            }
        } else {
            Expect::Nothing
        }
    }
}
