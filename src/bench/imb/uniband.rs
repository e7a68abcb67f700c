//! IMB-MPI1 Uniband: pairs i <-> i + Q/2; each repetition the lower
//! process sends a window of W MPI_Isend, the upper posts W MPI_Irecv,
//! both MPI_Waitall, then the upper acknowledges with one byte. Reported:
//! Mbytes/sec and messages per second over all pairs. Runs only when named.
//! W: IMB `-window_size` (`--imb-window`), by default 256 under IMB 2021's
//! definitions and 64 under PMB's (`patterns::WINDOW_IMB2021`, `WINDOW_PMB`).

use crate::bench::{patterns, Class, Info, RankRule};
use crate::contract::placement::Placement;

static INFO: Info = Info {
    name: "Uniband",
    suite: super::SUITE,
    class: Class::ParallelTransfer,
    ranks: RankRule { min: 2, even: true },
    description: "windows of W MPI_Isend from i to i+Q/2 (W = 256, -window_size), one-byte acknowledgement; MB/s and msg/s (IMB 2021)",
    placement: Placement::Halves,
    default_in: &[],
    ..Info::DEFAULT
};

pub static UNIBAND: patterns::Window = patterns::Window {
    info: &INFO,
    both_ways: false,
};
