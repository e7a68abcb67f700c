//! The benchmarks: one folder per suite, and the code they share (buffer
//! patterns [`buf`], datatypes, clock tools). The contract they implement
//! is `crate::contract`; its names are re-exported here for the suites.

pub use crate::contract::{
    Axis, Benchmark, Class, Combine, Definitions, Figure, Info, Kernel, Pace, RankRule, Setup, Side,
};

pub mod allreduce;
pub mod buf;
pub mod caf;
pub mod clock;
pub mod commtest;
pub mod cresta;
pub mod datatype;
pub mod entry;
pub mod guidelines;
pub mod imb;
pub mod imb_ext;
pub mod imb_io;
pub mod imb_mpi4;
pub mod imb_mt;
pub mod imb_nbc;
pub mod imb_p2p;
pub mod imb_rma;
pub mod mpigraph;
pub mod mpitest;
pub mod osu;
pub mod overlap;
pub mod patterns;
pub mod persist;

/// What a clock tool (`clock::Tool`) reads of the run's plan: its axes
/// and `--iter`.
pub struct ToolCx<'a> {
    pub axes: &'a crate::contract::Axes,
    pub iter: Option<usize>,
}
