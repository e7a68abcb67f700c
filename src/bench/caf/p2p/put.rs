//! put: one MPI_Put of ndata doubles.

use super::{Access, Layout, PingPong};
use crate::bench::caf::SUITE;
use crate::bench::{Class, Info, RankRule};
use crate::comm::Elem;
use crate::contract::placement::Placement;

static INFO: Info = Info {
    name: "put",
    suite: SUITE,
    class: Class::ParallelTransfer,
    ranks: RankRule::PAIR,
    description: "one MPI_Put of ndata doubles",
    elem: Elem::Double,
    placement: Placement::Ends,
    time_scale: 0.5,
    throughput: Some(1.0),
    aliases: &["subput", "simple subput", "all put"],
    ..Info::DEFAULT
};

pub static PUT: PingPong = PingPong {
    info: &INFO,
    access: Access::Put,
    layout: Layout::Contiguous,
};
