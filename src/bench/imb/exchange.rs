//! PMB §4.3.2 Exchange: each process exchanges with both neighbours in a
//! periodic chain (2 MPI_Isend + 2 MPI_Recv + MPI_Waitall); throughput = 4X/1.048576/t.

use crate::bench::{patterns, Class, Info};
use crate::contract::placement::Placement;

static INFO: Info = Info {
    name: "Exchange",
    suite: super::SUITE,
    class: Class::ParallelTransfer,
    description: "exchange with both chain neighbours (2 MPI_Isend, 2 MPI_Recv, MPI_Waitall); throughput 4X/t",
    placement: Placement::Shift(1),
    throughput: Some(4.0),
    ..Info::DEFAULT
};

pub static EXCHANGE: patterns::Exchange = patterns::Exchange(&INFO);
