//! PMB §4.2.2 PingPing: both processes MPI_Isend, MPI_Recv, MPI_Wait at once.

use crate::bench::{patterns, Class, Info, RankRule};
use crate::contract::placement::Placement;

static INFO: Info = Info {
    name: "PingPing",
    suite: super::SUITE,
    class: Class::SingleTransfer,
    ranks: RankRule::PAIR,
    description:
        "messages obstructed by oncoming ones (MPI_Isend/MPI_Recv/MPI_Wait) on 2 processes",
    placement: Placement::Halves,
    throughput: Some(1.0),
    ..Info::DEFAULT
};

pub static PINGPING: patterns::PingPing = patterns::PingPing(&INFO);
