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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::Class;

    fn info(name: &str) -> &'static crate::bench::Info {
        benchmarks()
            .into_iter()
            .find(|b| b.info().name == name)
            .unwrap()
            .info()
    }

    #[test]
    fn timing_and_throughput_definitions_follow_pmb_4() {
        // PingPong: time = t/2, throughput X/1.048576/time.
        assert_eq!(info("PingPong").time_scale, 0.5);
        assert_eq!(info("PingPong").throughput, Some(1.0));
        assert_eq!(info("PingPing").time_scale, 1.0);
        assert_eq!(info("PingPing").throughput, Some(1.0));
        assert_eq!(info("Sendrecv").throughput, Some(2.0));
        assert_eq!(info("Exchange").throughput, Some(4.0));
        for c in [
            "Bcast",
            "Allgather",
            "Allgatherv",
            "Alltoall",
            "Reduce",
            "Reduce_scatter",
            "Allreduce",
            "Barrier",
        ] {
            assert_eq!(info(c).throughput, None, "{c}");
            assert_eq!(info(c).class, Class::Collective, "{c}");
        }
        assert_eq!(info("PingPong").class, Class::SingleTransfer);
        assert_eq!(info("Exchange").class, Class::ParallelTransfer);
    }

    #[test]
    fn reductions_use_floats_everything_else_bytes() {
        for b in benchmarks() {
            let i = b.info();
            let want = matches!(i.name, "Reduce" | "Reduce_scatter" | "Allreduce");
            assert_eq!(i.reduction, want, "{}", i.name);
        }
        assert_eq!(floats(1024), 256);
        assert_eq!(floats(3), 0);
    }

    #[test]
    fn layouts_grow_with_q_where_pmb_says() {
        let q = 8;
        assert_eq!(info("Alltoall").name, "Alltoall");
        let find = |n: &str| {
            benchmarks()
                .into_iter()
                .find(|b| b.info().name == n)
                .unwrap()
        };
        assert_eq!(find("Alltoall").layout(100, q).recv, 800);
        assert_eq!(find("Allgather").layout(100, q).recv, 800);
        assert_eq!(find("Exchange").layout(100, q).send, 200);
        assert_eq!(find("Reduce_scatter").layout(40, 3).recv, 16); // 10 floats: 4, 3, 3
    }
}
