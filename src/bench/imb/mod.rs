//! PMB-MPI1 (Pallas MPI Benchmarks v2.2, the ancestor of IMB-MPI1): the
//! twelve primary benchmarks of PMB §4. Each file holds one benchmark's
//! definition; the patterns are shared (`bench::patterns`).

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
        &pingpong::PINGPONG,
        &pingping::PINGPING,
        &sendrecv::SENDRECV,
        &exchange::EXCHANGE,
        &allreduce::ALLREDUCE,
        &reduce::REDUCE,
        &reduce_scatter::REDUCE_SCATTER,
        &allgather::ALLGATHER,
        &allgatherv::ALLGATHERV,
        &alltoall::ALLTOALL,
        &bcast::BCAST,
        &barrier::BARRIER,
    ]
}

/// A benchmark of this suite by exact name.
#[cfg(test)]
pub fn find(name: &str) -> Option<&'static dyn Benchmark> {
    benchmarks().into_iter().find(|b| b.info().name == name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::Class;
    use crate::comm::Elem;
    use crate::engine::axis::Point;
    use crate::engine::placement::Placement;

    fn info(name: &str) -> &'static crate::bench::Info {
        find(name).unwrap().info()
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
        assert_eq!(info("Sendrecv").placement, Placement::Shift(1));
        assert_eq!(info("PingPong").placement, Placement::Halves);
    }

    #[test]
    fn reductions_use_floats_everything_else_bytes() {
        for b in benchmarks() {
            let i = b.info();
            let want = matches!(i.name, "Reduce" | "Reduce_scatter" | "Allreduce");
            assert_eq!(i.reduction, want, "{}", i.name);
            assert_eq!(
                i.elem,
                if want { Elem::Float } else { Elem::Byte },
                "{}",
                i.name
            );
        }
    }

    #[test]
    fn memory_needs_grow_with_q_where_pmb_says() {
        let need = |n: &str, x: usize, q: usize| find(n).unwrap().need(&Point::bytes(x), q);
        assert_eq!(need("Alltoall", 100, 8), 1600);
        assert_eq!(need("Allgather", 100, 8), 900);
        assert_eq!(need("Exchange", 100, 8), 400);
        // 10 floats on 3 ranks: 4, 3, 3; rank 0 receives 4.
        assert_eq!(need("Reduce_scatter", 40, 3), 40 + 16);
        assert_eq!(need("Barrier", 100, 8), 0);
        // Reductions drop the partial trailing float, as PMB's X/4.
        assert_eq!(need("Allreduce", 7, 2), 8);
    }

    #[test]
    fn reductions_beyond_the_count_range_are_refused() {
        let big = Point::bytes(4 * (i32::MAX as usize + 1));
        assert!(find("Allreduce").unwrap().refuse(&big, 2).is_some());
        assert!(find("Bcast").unwrap().refuse(&big, 2).is_none());
    }
}
