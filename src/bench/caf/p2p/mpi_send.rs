//! MPI Send: MPI_Send/MPI_Recv ping-pong of ndata doubles, no coarray sync.

use super::{Access, Layout, PingPong};
use crate::bench::caf::SUITE;
use crate::bench::{Class, Info, RankRule};
use crate::comm::Elem;
use crate::contract::placement::Placement;

static INFO: Info = Info {
    name: "MPI Send",
    suite: SUITE,
    class: Class::ParallelTransfer,
    ranks: RankRule::PAIR,
    description: "MPI_Send/MPI_Recv ping-pong of ndata doubles, no coarray sync",
    elem: Elem::Double,
    placement: Placement::Ends,
    time_scale: 0.5,
    throughput: Some(1.0),
    ..Info::DEFAULT
};

pub static MPI_SEND: PingPong = PingPong {
    info: &INFO,
    access: Access::Send,
    layout: Layout::Contiguous,
};
