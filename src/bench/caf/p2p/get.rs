//! get: one MPI_Get of ndata doubles.

use super::{Access, Layout, PingPong};
use crate::bench::caf::SUITE;
use crate::bench::{Class, Info, RankRule};
use crate::comm::Elem;
use crate::contract::placement::Placement;

static INFO: Info = Info {
    name: "get",
    suite: SUITE,
    class: Class::ParallelTransfer,
    ranks: RankRule::PAIR,
    description: "one MPI_Get of ndata doubles",
    elem: Elem::Double,
    placement: Placement::Ends,
    time_scale: 0.5,
    throughput: Some(1.0),
    aliases: &["subget", "simple subget", "all get"],
    ..Info::DEFAULT
};

pub static GET: PingPong = PingPong {
    info: &INFO,
    access: Access::Get,
    layout: Layout::Contiguous,
};
