//! IMB-MPI1 Biband: as Uniband, with both processes of each pair sending a
//! window of W messages at once (W MPI_Irecv, W MPI_Isend, MPI_Waitall).
//! Runs only when named. W as Uniband's.

use crate::bench::{patterns, Class, Info, RankRule};
use crate::contract::placement::Placement;

static INFO: Info = Info {
    name: "Biband",
    suite: super::SUITE,
    class: Class::ParallelTransfer,
    ranks: RankRule { min: 2, even: true },
    description: "windows of W messages both ways between i and i+Q/2 (W = 256, -window_size); MB/s and msg/s (IMB 2021)",
    placement: Placement::Halves,
    default_in: &[],
    ..Info::DEFAULT
};

pub static BIBAND: patterns::Window = patterns::Window {
    info: &INFO,
    both_ways: true,
};
