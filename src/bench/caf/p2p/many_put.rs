//! many put: count MPI_Puts of blksize doubles.

use super::{Access, Layout, PingPong};
use crate::bench::caf::SUITE;
use crate::bench::{Class, Info, RankRule};
use crate::comm::Elem;
use crate::contract::placement::Placement;

static INFO: Info = Info {
    name: "many put",
    suite: SUITE,
    class: Class::ParallelTransfer,
    ranks: RankRule::PAIR,
    description: "count MPI_Puts of blksize doubles",
    elem: Elem::Double,
    placement: Placement::Ends,
    time_scale: 0.5,
    throughput: Some(1.0),
    aliases: &["sub manyput", "many subput"],
    ..Info::DEFAULT
};

pub static MANY_PUT: PingPong = PingPong {
    info: &INFO,
    access: Access::Put,
    layout: Layout::Many,
};
