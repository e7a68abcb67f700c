//! OSU's persistent collectives (`osu_*_persistent`, OMB 7.4
//! c/mpi/collective/persistent), timed as OSU times them: per size the
//! request is made once with MPI_Xxx_init, outside the timed loop; every
//! iteration is MPI_Start + MPI_Wait between the clock reads, with an
//! untimed barrier between iterations (the per-call method of the blocking
//! collectives); the latency of a rank is its mean, the table shows the
//! average over ranks (with `-f` also the minimum, maximum and iterations);
//! the request is freed after the last iteration (MPI_Request_free).
//!
//! Buffers, counts and expectations are those of the shared blocking
//! patterns (`bench/patterns.rs`), and their init calls those of
//! `bench/persist.rs` ([`Init`]). With Open MPI 4.1 the calls are its `MPIX_Xxx_init`
//! (pcollreq extension); a library with neither form refuses the programs
//! in one line.
//!
//! Differences: a persistent request is bound to its buffers, so
//! `--off-cache` does not apply (the data of every repetition stays in
//! place); with `--root-shift` (OMB 7.4's persistent programs have no
//! `-k`) one request per root is made before the timed loop and the
//! repetition's root's request is started; with `--root R` one, rooted at R.

use anyhow::Result;

use super::coll::{coll, reduction, rooted};
use crate::bench::buf::{BufKernel, Pattern};
use crate::bench::persist::Init;
use crate::bench::{patterns, Axis, Benchmark, Info, Kernel, Setup};
use crate::comm::pcoll::{self, Api};
use crate::comm::{self, persistent, Request};
use crate::contract::axis::Point;

/// A blocking collective made persistent: the pattern's buffers and
/// expectations, its call made once as a request, started every repetition.
pub struct Persistent<P>(pub P);

/// The one line a program prints when the library has no persistent
/// collectives (`api`: what the library has).
pub fn refusal(name: &str, api: Option<Api>) -> Option<String> {
    api.is_none().then(|| {
        format!(
            "{name}: this MPI library lacks MPI-4 persistent collectives \
             (neither MPI_Xxx_init nor Open MPI's MPIX_Xxx_init)"
        )
    })
}

/// Whether `name` is one of these programs.
pub fn is_persistent_collective(name: &str) -> bool {
    benchmarks().iter().any(|b| b.info().name == name)
}

/// Why `name` cannot run with this library, if it is one of these programs.
pub fn refused(name: &str) -> Option<String> {
    if is_persistent_collective(name) {
        refusal(name, pcoll::available())
    } else {
        None
    }
}

impl<P: Init + 'static> Benchmark for Persistent<P> {
    fn info(&self) -> &'static Info {
        Pattern::info(&self.0)
    }

    fn need(&self, p: &Point, q: usize) -> u64 {
        Benchmark::need(&self.0, p, q)
    }

    fn refuse(&self, p: &Point, q: usize) -> Option<String> {
        refusal(self.info().name, pcoll::available()).or_else(|| Benchmark::refuse(&self.0, p, q))
    }

    fn kernel<'a>(&'a self, s: Setup<'a>, p: &Point) -> Result<Box<dyn Kernel + 'a>> {
        // Every root when rotating (a request per root, indexed by it), else `--root`'s.
        let base = s.root;
        let roots: Vec<usize> = if s.root_shift && self.info().rooted {
            (0..s.comm.size).collect()
        } else {
            vec![base]
        };
        // The request is bound to the buffers: no per-repetition offsets.
        let s = Setup {
            off_cache: None,
            ..s
        };
        let mut inner = BufKernel::new(&self.0, s, p)?;
        let mut reqs = vec![comm::request_null(); roots.len()];
        for (&root, req) in roots.iter().zip(reqs.iter_mut()) {
            inner.op.root = root;
            self.0.init(&mut inner.op, req)?;
        }
        inner.op.root = base;
        Ok(Box::new(PersistentKernel { inner, reqs }))
    }

    fn derive(&self, r: &mut crate::results::BenchResult) {
        Benchmark::derive(&self.0, r)
    }

    fn retyped(&self, info: &'static Info) -> Option<&'static dyn Benchmark> {
        let b: &'static Self = Box::leak(Box::new(Persistent(self.0.over(info)?)));
        Some(b)
    }
}

/// The kernel: the pattern's buffers and validation, and one persistent
/// request per root (one unless roots rotate), freed on drop.
struct PersistentKernel<'a, P> {
    inner: BufKernel<'a, P>,
    reqs: Vec<Request>,
}

impl<P: Init> Kernel for PersistentKernel<'_, P> {
    /// MPI_Start + MPI_Wait of the repetition's root's request.
    #[inline(always)]
    fn run(&mut self, rep: usize) {
        self.inner.begin(rep);
        let i = if self.reqs.len() > 1 {
            self.inner.op.root
        } else {
            0
        };
        let req = &mut self.reqs[i];
        pcoll::start(req);
        comm::wait(req);
    }

    crate::bench::buf::validated_by_inner!();
}

impl<P> Drop for PersistentKernel<'_, P> {
    fn drop(&mut self) {
        persistent::free(&mut self.reqs);
    }
}

macro_rules! persistent {
    ($($stat:ident, $info:ident, $pattern:ident, $decl:expr;)*) => {
        $(
            static $info: Info = $decl;
            pub static $stat: Persistent<patterns::$pattern> = Persistent(patterns::$pattern(&$info));
        )*
        /// The persistent collectives, in OMB's order.
        pub fn benchmarks() -> Vec<&'static dyn Benchmark> {
            vec![$(&$stat),*]
        }
    };
}

persistent! {
    ALLGATHER, ALLGATHER_INFO, Allgather, coll("osu_allgather_persistent", "OSU MPI_Allgather_init: MPI_Start + MPI_Wait latency, per call");
    ALLGATHERV, ALLGATHERV_INFO, Allgatherv, coll("osu_allgatherv_persistent", "OSU MPI_Allgatherv_init: MPI_Start + MPI_Wait latency, per call");
    ALLREDUCE, ALLREDUCE_INFO, Allreduce, reduction(coll("osu_allreduce_persistent", "OSU MPI_Allreduce_init (MPI_SUM): MPI_Start + MPI_Wait latency, per call"));
    ALLTOALL, ALLTOALL_INFO, Alltoall, coll("osu_alltoall_persistent", "OSU MPI_Alltoall_init: MPI_Start + MPI_Wait latency, per call");
    ALLTOALLV, ALLTOALLV_INFO, Alltoallv, coll("osu_alltoallv_persistent", "OSU MPI_Alltoallv_init: MPI_Start + MPI_Wait latency, per call");
    ALLTOALLW, ALLTOALLW_INFO, Alltoallw, coll("osu_alltoallw_persistent", "OSU MPI_Alltoallw_init: MPI_Start + MPI_Wait latency, per call");
    BARRIER, BARRIER_INFO, Barrier, Info { axis: Axis::None, ..coll("osu_barrier_persistent", "OSU MPI_Barrier_init: MPI_Start + MPI_Wait latency, per call") };
    BCAST, BCAST_INFO, Bcast, rooted(coll("osu_bcast_persistent", "OSU MPI_Bcast_init from rank 0: MPI_Start + MPI_Wait latency, per call"));
    GATHER, GATHER_INFO, Gather, rooted(coll("osu_gather_persistent", "OSU MPI_Gather_init to rank 0: MPI_Start + MPI_Wait latency, per call"));
    GATHERV, GATHERV_INFO, Gatherv, rooted(coll("osu_gatherv_persistent", "OSU MPI_Gatherv_init to rank 0: MPI_Start + MPI_Wait latency, per call"));
    REDUCE, REDUCE_INFO, Reduce, rooted(reduction(coll("osu_reduce_persistent", "OSU MPI_Reduce_init (MPI_SUM) to rank 0: MPI_Start + MPI_Wait latency, per call")));
    REDUCE_SCATTER, REDUCE_SCATTER_INFO, ReduceScatter, reduction(coll("osu_reduce_scatter_persistent", "OSU MPI_Reduce_scatter_init (MPI_SUM): MPI_Start + MPI_Wait latency, per call"));
    SCATTER, SCATTER_INFO, Scatter, rooted(coll("osu_scatter_persistent", "OSU MPI_Scatter_init from rank 0: MPI_Start + MPI_Wait latency, per call"));
    SCATTERV, SCATTERV_INFO, Scatterv, rooted(coll("osu_scatterv_persistent", "OSU MPI_Scatterv_init from rank 0: MPI_Start + MPI_Wait latency, per call"));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::method::Method;

    #[test]
    fn a_library_without_them_gets_one_line() {
        let e = refusal("osu_allreduce_persistent", None).expect("refused");
        assert!(e.starts_with("osu_allreduce_persistent: "), "{e}");
        assert!(e.contains("lacks MPI-4 persistent collectives"), "{e}");
        assert!(!e.contains('\n'));
        assert_eq!(refusal("osu_bcast_persistent", Some(Api::Mpix)), None);
        assert_eq!(refusal("osu_bcast_persistent", Some(Api::Mpi4)), None);
        // Only these programs are refused.
        assert!(is_persistent_collective("osu_barrier_persistent"));
        assert!(!is_persistent_collective("osu_latency_persistent"));
        assert!(!is_persistent_collective("osu_allreduce"));
        assert_eq!(refused("osu_allreduce"), None);
    }

    #[test]
    fn declared_as_the_blocking_collectives() {
        let all = benchmarks();
        assert_eq!(all.len(), 14);
        for b in all {
            let i = b.info();
            assert!(i.name.starts_with("osu_") && i.name.ends_with("_persistent"));
            assert_eq!(i.method, Some(Method::PerCall), "{}", i.name);
            // Every program has its OSU title.
            assert!(super::super::program(i.name).is_some(), "{}", i.name);
            let blocking = i.name.trim_end_matches("_persistent");
            let twin = super::super::coll::benchmarks()
                .into_iter()
                .find(|c| c.info().name == blocking)
                .expect("a blocking twin");
            let t = twin.info();
            assert_eq!(
                (i.rooted, i.reduction, i.elem, i.axis),
                (t.rooted, t.reduction, t.elem, t.axis),
                "{}",
                i.name
            );
            // Same buffers as the blocking pattern.
            let p = Point::bytes(64);
            assert_eq!(b.need(&p, 4), twin.need(&p, 4), "{}", i.name);
        }
    }
}
