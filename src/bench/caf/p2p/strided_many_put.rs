//! strided many put: count MPI_Puts of blksize doubles, gaps of blksize.

use super::{Access, Layout, PingPong};
use crate::bench::caf::SUITE;
use crate::bench::{Class, Info, RankRule};
use crate::comm::Elem;
use crate::contract::placement::Placement;

static INFO: Info = Info {
    name: "strided many put",
    suite: SUITE,
    class: Class::ParallelTransfer,
    ranks: RankRule::PAIR,
    description: "count MPI_Puts of blksize doubles, gaps of blksize",
    elem: Elem::Double,
    placement: Placement::Ends,
    time_scale: 0.5,
    throughput: Some(1.0),
    ..Info::DEFAULT
};

pub static STRIDED_MANY_PUT: PingPong = PingPong {
    info: &INFO,
    access: Access::Put,
    layout: Layout::StridedMany,
};
