//! halo get-get: each image gets its six halo faces from its neighbours' boundaries.

use super::{info, Halo};
use crate::bench::Info;

static INFO: Info = info(
    "halo get-get",
    "3-D halo swap: six MPI_Gets of faces (vector types) from the neighbours' boundaries",
    &["halo get", "get-get"],
);

pub static HALO_GET_GET: Halo = Halo {
    info: &INFO,
    put: false,
};
