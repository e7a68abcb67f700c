//! many get: count MPI_Gets of blksize doubles.

use super::{Access, Layout, PingPong};
use crate::bench::caf::SUITE;
use crate::bench::{Class, Info, RankRule};
use crate::comm::Elem;
use crate::contract::placement::Placement;

static INFO: Info = Info {
    name: "many get",
    suite: SUITE,
    class: Class::ParallelTransfer,
    ranks: RankRule::PAIR,
    description: "count MPI_Gets of blksize doubles",
    elem: Elem::Double,
    placement: Placement::Ends,
    time_scale: 0.5,
    throughput: Some(1.0),
    aliases: &["sub manyget", "many subget"],
    ..Info::DEFAULT
};

pub static MANY_GET: PingPong = PingPong {
    info: &INFO,
    access: Access::Get,
    layout: Layout::Many,
};
