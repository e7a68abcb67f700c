//! PMB §4.3.1 Sendrecv: a periodic chain, each process MPI_Sendrecv to the
//! right and from the left; throughput = 2X/1.048576/t.

use crate::bench::{patterns, Class, Info};
use crate::contract::placement::Placement;

static INFO: Info = Info {
    name: "Sendrecv",
    suite: super::SUITE,
    class: Class::ParallelTransfer,
    description: "periodic chain, MPI_Sendrecv to the right and from the left; throughput 2X/t",
    placement: Placement::Shift(1),
    throughput: Some(2.0),
    ..Info::DEFAULT
};

pub static SENDRECV: patterns::Sendrecv = patterns::Sendrecv(&INFO);
