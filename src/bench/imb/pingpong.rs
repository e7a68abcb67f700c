//! PMB §4.2.1 PingPong: MPI_Send / MPI_Recv bounced between two processes; time = t/2.

use crate::bench::{patterns, Class, Info, RankRule};
use crate::contract::placement::Placement;

static INFO: Info = Info {
    name: "PingPong",
    suite: super::SUITE,
    class: Class::SingleTransfer,
    ranks: RankRule::PAIR,
    description: "single message bounced between 2 processes (MPI_Send/MPI_Recv); time = t/2",
    placement: Placement::Halves,
    time_scale: 0.5,
    throughput: Some(1.0),
    ..Info::DEFAULT
};

pub static PINGPONG: patterns::PingPong = patterns::PingPong(&INFO);
