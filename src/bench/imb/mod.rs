//! PMB-MPI1 (Pallas MPI Benchmarks v2.2, the ancestor of IMB-MPI1): the
//! twelve primary benchmarks of PMB §4. Each file holds one benchmark.

mod allgather;
mod allgatherv;
mod allreduce;
mod alltoall;
mod barrier;
mod bcast;
mod exchange;
mod pingping;
mod pingpong;
mod reduce;
mod reduce_scatter;
mod sendrecv;

use super::Benchmark;

pub const SUITE: &str = "imb";

/// The PMB-MPI1 benchmarks in PMB's own order.
pub fn benchmarks() -> Vec<&'static dyn Benchmark> {
    vec![
        &pingpong::PingPong,
        &pingping::PingPing,
        &sendrecv::Sendrecv,
        &exchange::Exchange,
        &allreduce::Allreduce,
        &reduce::Reduce,
        &reduce_scatter::ReduceScatter,
        &allgather::Allgather,
        &allgatherv::Allgatherv,
        &alltoall::Alltoall,
        &bcast::Bcast,
        &barrier::Barrier,
    ]
}

/// Number of floats (MPI_FLOAT) in a reduction of X bytes: L = X / 4.
pub(crate) fn floats(x: usize) -> usize {
    x / std::mem::size_of::<f32>()
}
