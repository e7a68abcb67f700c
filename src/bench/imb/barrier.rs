use crate::bench::{Benchmark, Class, Expect, Info, Layout, Op};

/// PMB §4.4.8: MPI_Barrier.
pub struct Barrier;

static INFO: Info = Info {
    name: "Barrier",
    suite: super::SUITE,
    class: Class::Collective,
    min_ranks: 1,
    description: "MPI_Barrier",
    time_scale: 1.0,
    throughput: None,
    reduction: false,
    rooted: false,
    sized: false,
};

impl Benchmark for Barrier {
    fn info(&self) -> &'static Info {
        &INFO
    }
    fn layout(&self, _x: usize, _q: usize) -> Layout {
        Layout { send: 0, recv: 0 }
    }
    #[inline]
    fn run(&self, op: &mut Op) {
        op.comm.barrier();
    }
    fn expect(&self, _x: usize, _q: usize, _rank: usize, _root: usize) -> Expect {
        Expect::Nothing
    }
}
