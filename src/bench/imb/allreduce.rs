use crate::bench::{Benchmark, Class, Expect, Info, Layout, Op};

/// PMB §4.4.3: MPI_Allreduce of X/4 floats with MPI_SUM.
pub struct Allreduce;

static INFO: Info = Info {
    name: "Allreduce",
    suite: super::SUITE,
    class: Class::Collective,
    min_ranks: 1,
    description: "MPI_Allreduce of X/4 MPI_FLOATs with MPI_SUM",
    time_scale: 1.0,
    throughput: None,
    reduction: true,
    rooted: false,
    sized: true,
};

impl Benchmark for Allreduce {
    fn info(&self) -> &'static Info {
        &INFO
    }
    fn layout(&self, x: usize, _q: usize) -> Layout {
        let b = 4 * super::floats(x);
        Layout { send: b, recv: b }
    }
    #[inline]
    fn run(&self, op: &mut Op) {
        op.comm
            .allreduce_f32(op.sbuf.fptr(), op.rbuf.mut_fptr(), super::floats(op.x));
    }
    fn expect(&self, x: usize, _q: usize, _rank: usize, _root: usize) -> Expect {
        Expect::FloatSum {
            first: 0,
            count: super::floats(x),
        }
    }
}
