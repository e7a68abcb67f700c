//! halo put-put: each image puts its six boundary faces into its neighbours' halos.

use super::{info, Halo};
use crate::bench::Info;

static INFO: Info = info(
    "halo put-put",
    "3-D halo swap: six MPI_Puts of faces (vector types) into the neighbours' halos",
    &["halo put", "put-put"],
);

pub static HALO_PUT_PUT: Halo = Halo {
    info: &INFO,
    put: true,
};
