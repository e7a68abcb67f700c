//! strided put: one MPI_Put with MPI_Type_vector(count, 1, stride).

use super::{Access, Layout, PingPong};
use crate::bench::caf::SUITE;
use crate::bench::{Class, Info, RankRule};
use crate::comm::Elem;
use crate::contract::placement::Placement;

static INFO: Info = Info {
    name: "strided put",
    suite: SUITE,
    class: Class::ParallelTransfer,
    ranks: RankRule::PAIR,
    description: "one MPI_Put with MPI_Type_vector(count, 1, stride)",
    elem: Elem::Double,
    placement: Placement::Ends,
    time_scale: 0.5,
    throughput: Some(1.0),
    aliases: &["strided subput"],
    ..Info::DEFAULT
};

pub static STRIDED_PUT: PingPong = PingPong {
    info: &INFO,
    access: Access::Put,
    layout: Layout::Strided,
};
