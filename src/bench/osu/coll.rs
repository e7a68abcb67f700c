//! OSU's blocking collectives: each call timed alone, an untimed barrier
//! between calls (the per-call method: barrier; t0; call; t1), the
//! latency of a rank its mean over the iterations; the table shows the
//! average over ranks (with `-f` also the minimum, maximum and iterations).
//! The patterns are the shared ones; only the declarations are OSU's.

use super::{COLL_REPS, INFO};
use crate::bench::{patterns, Benchmark, Class, Info, RankRule};
use crate::comm::Elem;
use crate::method::Method;

/// A blocking OSU collective's declaration.
pub(super) const fn coll(name: &'static str, description: &'static str) -> Info {
    Info {
        name,
        class: Class::Collective,
        description,
        method: Some(Method::PerCall),
        reps: Some(COLL_REPS),
        ranks: RankRule::PAIR,
        ..INFO
    }
}

/// Rooted at rank 0 (OSU -k fixed:R: `--root R`; -k rotate: `--root-shift`).
pub(super) const fn rooted(i: Info) -> Info {
    Info { rooted: true, ..i }
}

/// Sums MPI_CHAR-sized elements (validated as exact small sums).
pub(super) const fn reduction(i: Info) -> Info {
    Info {
        elem: Elem::UChar,
        reduction: true,
        ..i
    }
}

macro_rules! blocking {
    ($($stat:ident, $info:ident, $pattern:ident, $decl:expr;)*) => {
        $(
            static $info: Info = $decl;
            pub static $stat: patterns::$pattern = patterns::$pattern(&$info);
        )*
        /// The blocking collectives, in OMB's order.
        pub fn benchmarks() -> Vec<&'static dyn Benchmark> {
            vec![$(&$stat),*]
        }
    };
}

blocking! {
    ALLGATHER, ALLGATHER_INFO, Allgather, coll("osu_allgather", "OSU MPI_Allgather latency, per call");
    ALLGATHERV, ALLGATHERV_INFO, Allgatherv, coll("osu_allgatherv", "OSU MPI_Allgatherv latency, per call");
    ALLREDUCE, ALLREDUCE_INFO, Allreduce, reduction(coll("osu_allreduce", "OSU MPI_Allreduce (MPI_SUM) latency, per call"));
    ALLTOALL, ALLTOALL_INFO, Alltoall, coll("osu_alltoall", "OSU MPI_Alltoall latency, per call");
    ALLTOALLV, ALLTOALLV_INFO, Alltoallv, coll("osu_alltoallv", "OSU MPI_Alltoallv latency, per call");
    ALLTOALLW, ALLTOALLW_INFO, Alltoallw, coll("osu_alltoallw", "OSU MPI_Alltoallw latency, per call");
    BARRIER, BARRIER_INFO, Barrier, Info { axis: crate::bench::Axis::None, ..coll("osu_barrier", "OSU MPI_Barrier latency, per call") };
    BCAST, BCAST_INFO, Bcast, rooted(coll("osu_bcast", "OSU MPI_Bcast latency from rank 0, per call"));
    GATHER, GATHER_INFO, Gather, rooted(coll("osu_gather", "OSU MPI_Gather latency to rank 0, per call"));
    GATHERV, GATHERV_INFO, Gatherv, rooted(coll("osu_gatherv", "OSU MPI_Gatherv latency to rank 0, per call"));
    REDUCE, REDUCE_INFO, Reduce, rooted(reduction(coll("osu_reduce", "OSU MPI_Reduce (MPI_SUM) latency to rank 0, per call")));
    REDUCE_SCATTER, REDUCE_SCATTER_INFO, ReduceScatter, reduction(coll("osu_reduce_scatter", "OSU MPI_Reduce_scatter (MPI_SUM) latency, per call"));
    REDUCE_SCATTER_BLOCK, REDUCE_SCATTER_BLOCK_INFO, ReduceScatterBlock, reduction(coll("osu_reduce_scatter_block", "OSU MPI_Reduce_scatter_block (MPI_SUM) latency, per call"));
    SCATTER, SCATTER_INFO, Scatter, rooted(coll("osu_scatter", "OSU MPI_Scatter latency from rank 0, per call"));
    SCATTERV, SCATTERV_INFO, Scatterv, rooted(coll("osu_scatterv", "OSU MPI_Scatterv latency from rank 0, per call"));
}
