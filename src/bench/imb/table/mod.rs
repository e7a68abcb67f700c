//! IMB-MPI1's table formats: PMB's (PMB §6) and IMB-MPI1 2021's own
//! (`--definitions imb2021`, the IMB 2021 programs' tables, which the IMB
//! family suites build on).

pub mod imb2021;
mod pmb;

pub use imb2021::Imb2021;
pub use pmb::Pmb;
