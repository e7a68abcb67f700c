//! TIMING: the time of one clock read. Under MPITEST's method the construct
//! is one MPI_Wtime, so t comes out as DT.

use crate::bench::buf::{Layout, Op, Pattern};
use crate::bench::{Axis, Info, Pace};
use crate::check::Expect;
use crate::comm;
use crate::contract::placement::Role;

static INFO: Info = Info {
    name: "TIMING",
    suite: super::SUITE,
    description: "time of one clock read (one MPI_Wtime)",
    axis: Axis::None,
    pace: Pace::Fast,
    ..Info::DEFAULT
};

pub struct Timing;
pub static TIMING: Timing = Timing;

impl Pattern for Timing {
    fn info(&self) -> &'static Info {
        &INFO
    }
    fn layout(&self, _x: usize, _q: usize) -> Layout {
        Layout { send: 0, recv: 0 }
    }
    #[inline(always)]
    fn run(&self, _op: &mut Op) {
        std::hint::black_box(comm::wtime());
    }
    fn expect(&self, _x: usize, _q: usize, _rank: usize, _root: usize, _role: &Role) -> Expect {
        Expect::Nothing
    }
}
