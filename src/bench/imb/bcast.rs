//! PMB §4.4.7 Bcast: MPI_Bcast of X bytes from the root.

use crate::bench::{patterns, Info};

static INFO: Info = Info {
    name: "Bcast",
    suite: super::SUITE,
    description: "MPI_Bcast of X bytes from root 0 (rotating with --root-shift)",
    rooted: true,
    ..Info::DEFAULT
};

pub static BCAST: patterns::Bcast = patterns::Bcast(&INFO);
