//! OSU's non-blocking collectives (`osu_i*`). Per size, as OMB 7.4:
//!
//! * t_pure, in a loop of its own: the warm-up iterations, then `-i`
//!   iterations (row param `pure_iterations`: `-i`/`--iter`, or OSU's
//!   default for the size) each timed alone (MPI_Ixxx; MPI_Wait) with a
//!   barrier after it; per rank their mean;
//! * then the overlap loop, its warm-up first (as many iterations as the
//!   pure loop's): per timed iteration (the per-call method's clock pair is
//!   t_overall) t_init = MPI_Ixxx, t_cpu = computation for t_pure seconds
//!   with `-t N` MPI_Test calls spread over it (t_test is their time),
//!   t_wait = MPI_Wait;
//! * Overlap = max(0, 100 − 100·(t_overall − (t_cpu − t_test))/t_pure), of
//!   the averages over ranks ([`crate::bench::overlap::osu`], shared with CRESTA).
//!
//! The engine's warm-up runs the pure loop's warm-up; the pure loop's timed
//! part and the overlap loop's warm-up run when it ends ([`Kernel::figures`]).

use anyhow::Result;

use super::{axis, COLL_REPS, INFO};
use crate::bench::buf::{BufKernel, Phased};
use crate::bench::{overlap, patterns, Benchmark, Class, Combine, Figure, Info, Kernel, Setup};
use crate::comm::{self, progress, Elem};
use crate::contract::axis::{Point, SweepCx};
use crate::contract::RepsDefault;
use crate::contract::Split;
use crate::method::Method;
use crate::results::BenchResult;

/// The figures of a row (µs, in `params`).
pub const T_PURE: &str = "t_pure_us";
pub const T_PURE_MIN: &str = "t_pure_min_us";
pub const T_PURE_MAX: &str = "t_pure_max_us";
pub const T_INIT: &str = "t_init_us";
pub const T_CPU: &str = "t_cpu_us";
pub const T_TEST: &str = "t_test_us";
pub const T_WAIT: &str = "t_wait_us";
pub const OVERLAP: &str = "overlap_pct";
/// Iterations of the pure-communication loop (a row param).
pub const PURE_ITERATIONS: &str = "pure_iterations";

/// OSU's iterations at `bytes` (the pure loop's, without `-i`).
fn pure_iterations(reps: Option<RepsDefault>, bytes: usize) -> usize {
    match reps {
        Some(RepsDefault::Split(s)) => s.at(bytes).0,
        _ => 1,
    }
}

/// A non-blocking collective under OSU's overlap measurement.
pub struct Overlapped<P>(pub P);

const fn nbc(name: &'static str, description: &'static str) -> Info {
    Info {
        name,
        class: Class::Collective,
        description,
        method: Some(Method::PerCall),
        reps: Some(COLL_REPS),
        ranks: crate::bench::RankRule::PAIR,
        ..INFO
    }
}

/// OMB 7.4's osu_igatherv and osu_iscatterv warm up with the large-message
/// count (10) at every size: their size loop sets the warm-up to it below
/// 8192 bytes as well. Iterations as the other collectives.
const V_ROOTED_REPS: RepsDefault = match COLL_REPS {
    RepsDefault::Split(s) => RepsDefault::Split(Split {
        warm_small: s.warm_large,
        ..s
    }),
    r => r,
};

macro_rules! nonblocking {
    ($($stat:ident, $info:ident, $pattern:ident, $decl:expr;)*) => {
        $(
            static $info: Info = $decl;
            pub static $stat: Overlapped<patterns::$pattern> = Overlapped(patterns::$pattern(&$info));
        )*
        /// The non-blocking collectives, in OMB's order.
        pub fn benchmarks() -> Vec<&'static dyn Benchmark> {
            vec![$(&$stat),*]
        }
    };
}

nonblocking! {
    IALLGATHER, IALLGATHER_INFO, Iallgather, nbc("osu_iallgather", "OSU MPI_Iallgather: overall, compute, pure, overlap");
    IALLREDUCE, IALLREDUCE_INFO, Iallreduce, Info { elem: Elem::UChar, reduction: true, ..nbc("osu_iallreduce", "OSU MPI_Iallreduce (MPI_SUM): overall, compute, pure, overlap") };
    IALLTOALL, IALLTOALL_INFO, Ialltoall, nbc("osu_ialltoall", "OSU MPI_Ialltoall: overall, compute, pure, overlap");
    IBARRIER, IBARRIER_INFO, Ibarrier, Info { axis: crate::bench::Axis::None, ..nbc("osu_ibarrier", "OSU MPI_Ibarrier: overall, compute, pure, overlap") };
    IBCAST, IBCAST_INFO, Ibcast, Info { rooted: true, ..nbc("osu_ibcast", "OSU MPI_Ibcast from rank 0: overall, compute, pure, overlap") };
    IGATHER, IGATHER_INFO, Igather, Info { rooted: true, ..nbc("osu_igather", "OSU MPI_Igather to rank 0: overall, compute, pure, overlap") };
    IREDUCE, IREDUCE_INFO, Ireduce, Info { elem: Elem::UChar, reduction: true, rooted: true, ..nbc("osu_ireduce", "OSU MPI_Ireduce (MPI_SUM) to rank 0: overall, compute, pure, overlap") };
    IREDUCE_SCATTER_BLOCK, IREDUCE_SCATTER_BLOCK_INFO, IreduceScatterBlock, Info { elem: Elem::UChar, reduction: true, ..nbc("osu_ireduce_scatter_block", "OSU MPI_Ireduce_scatter_block (MPI_SUM): overall, compute, pure, overlap") };
    ISCATTER, ISCATTER_INFO, Iscatter, Info { rooted: true, ..nbc("osu_iscatter", "OSU MPI_Iscatter from rank 0: overall, compute, pure, overlap") };
    IALLGATHERV, IALLGATHERV_INFO, Iallgatherv, nbc("osu_iallgatherv", "OSU MPI_Iallgatherv: overall, compute, pure, overlap");
    IALLTOALLV, IALLTOALLV_INFO, Ialltoallv, nbc("osu_ialltoallv", "OSU MPI_Ialltoallv: overall, compute, pure, overlap");
    IALLTOALLW, IALLTOALLW_INFO, Ialltoallw, nbc("osu_ialltoallw", "OSU MPI_Ialltoallw: overall, compute, pure, overlap");
    IGATHERV, IGATHERV_INFO, Igatherv, Info { rooted: true, reps: Some(V_ROOTED_REPS), ..nbc("osu_igatherv", "OSU MPI_Igatherv to rank 0: overall, compute, pure, overlap") };
    IREDUCE_SCATTER, IREDUCE_SCATTER_INFO, IreduceScatter, Info { elem: Elem::UChar, reduction: true, ..nbc("osu_ireduce_scatter", "OSU MPI_Ireduce_scatter (MPI_SUM): overall, compute, pure, overlap") };
    ISCATTERV, ISCATTERV_INFO, Iscatterv, Info { rooted: true, reps: Some(V_ROOTED_REPS), ..nbc("osu_iscatterv", "OSU MPI_Iscatterv from rank 0: overall, compute, pure, overlap") };
}

impl<P: Phased + 'static> Benchmark for Overlapped<P> {
    fn info(&self) -> &'static Info {
        self.0.info()
    }

    fn points(&self, cx: &SweepCx) -> Vec<Point> {
        let tests = super::one(cx.axes, axis::TESTS).unwrap_or(0.0) as u64;
        let given = super::one(cx.axes, axis::ITER).map(|n| n as usize);
        let reps = self.info().reps;
        crate::bench::buf::Pattern::points(&self.0, cx)
            .into_iter()
            .map(|p| {
                let pure = given.unwrap_or_else(|| pure_iterations(reps, p.bytes));
                p.with("tests", tests).with(PURE_ITERATIONS, pure as u64)
            })
            .collect()
    }

    fn need(&self, p: &Point, q: usize) -> u64 {
        Benchmark::need(&self.0, p, q)
    }

    fn refuse(&self, p: &Point, q: usize) -> Option<String> {
        Benchmark::refuse(&self.0, p, q)
    }

    fn retyped(&self, info: &'static Info) -> Option<&'static dyn Benchmark> {
        let b: &'static Self = Box::leak(Box::new(Overlapped(self.0.over(info)?)));
        Some(b)
    }

    fn kernel<'a>(&'a self, s: Setup<'a>, p: &Point) -> Result<Box<dyn Kernel + 'a>> {
        Ok(Box::new(OverlapKernel {
            inner: BufKernel::new(&self.0, s, p)?,
            tests: p.u64("tests").unwrap_or(0) as usize,
            pure_iterations: p.u64(PURE_ITERATIONS).unwrap_or(1).max(1) as usize,
            pure: None,
            warm: 0,
            sums: [0.0; 4],
            n: 0,
        }))
    }

    /// OSU's overlap, from the averages over ranks.
    fn derive(&self, r: &mut BenchResult) {
        for row in &mut r.rows {
            let f = |k: &str| row.params.get(k).and_then(|v| v.as_f64());
            if let (Some(pure), Some(cpu), Some(test)) = (f(T_PURE), f(T_CPU), f(T_TEST)) {
                if let Some(o) = overlap::osu(pure, cpu, test, row.t_avg_us) {
                    row.params.insert(OVERLAP.into(), o.into());
                }
            }
        }
    }
}

struct OverlapKernel<'a, P> {
    inner: BufKernel<'a, P>,
    /// MPI_Test calls during the computation.
    tests: usize,
    /// Timed iterations of the pure loop.
    pure_iterations: usize,
    /// t_pure of this rank (seconds), once the pure loop is over.
    pure: Option<f64>,
    /// Warm-up iterations the engine ran (the pure loop's).
    warm: usize,
    /// Sums of t_init, t_cpu, t_test, t_wait over the timed iterations.
    sums: [f64; 4],
    n: usize,
}

impl<P: Phased> OverlapKernel<'_, P> {
    /// Computation for `target` seconds, with `tests` MPI_Test calls
    /// spread over it on top (their time does not count towards the
    /// target); returns the time spent in them.
    #[inline(always)]
    fn compute(&mut self, target: f64) -> f64 {
        let t0 = comm::wtime();
        let step = target / (self.tests + 1) as f64;
        let (mut done, mut in_test) = (0, 0.0);
        loop {
            let busy = comm::wtime() - t0 - in_test;
            if done < self.tests && busy >= step * (done + 1) as f64 {
                let a = comm::wtime();
                progress::test(&mut self.inner.op.reqs[0]);
                in_test += comm::wtime() - a;
                done += 1;
            } else if busy >= target && done >= self.tests {
                return in_test;
            }
        }
    }
}

impl<P: Phased> OverlapKernel<'_, P> {
    /// OSU's pure loop after its warm-up (each iteration timed alone, a
    /// barrier after it), then the overlap loop's warm-up: untimed by the
    /// engine, at the end of its warm-up on every rank of the group.
    fn pure_loop(&mut self) {
        let mut sum = 0.0;
        for i in 0..self.pure_iterations {
            sum += self.inner.alone(i);
            self.inner.op.comm.barrier();
            crate::watchdog::progress(1);
        }
        let pure = sum / self.pure_iterations as f64;
        self.pure = Some(pure);
        for i in 0..self.warm {
            self.overlapped(i, pure);
            self.inner.op.comm.barrier();
            crate::watchdog::progress(1);
        }
        self.sums = [0.0; 4];
        self.n = 0;
    }

    /// One iteration of the overlap loop (computation for `target` seconds).
    #[inline(always)]
    fn overlapped(&mut self, rep: usize, target: f64) {
        self.inner.begin(rep);
        let t0 = comm::wtime();
        self.inner.pat.issue(&mut self.inner.op);
        let t1 = comm::wtime();
        let test = self.compute(target);
        let t2 = comm::wtime();
        self.inner.pat.complete(&mut self.inner.op);
        let t3 = comm::wtime();
        self.sums[0] += t1 - t0;
        self.sums[1] += t2 - t1;
        self.sums[2] += test;
        self.sums[3] += t3 - t2;
        self.n += 1;
    }
}

impl<P: Phased> Kernel for OverlapKernel<'_, P> {
    /// The pure loop's warm-up until it has run (the engine's warm-up),
    /// the overlap loop's iterations after.
    #[inline(always)]
    fn run(&mut self, rep: usize) {
        match self.pure {
            Some(target) => self.overlapped(rep, target),
            None => {
                self.inner.alone(rep);
                self.warm += 1;
            }
        }
    }

    crate::bench::buf::validated_by_inner!();

    /// The first call ends the warm-up: the pure loop and the overlap
    /// loop's warm-up run (t_pure is known from then on); the others report
    /// this rank's t_pure and the means of the parts.
    fn figures(&mut self) -> Vec<Figure> {
        let Some(pure) = self.pure else {
            self.pure_loop();
            return Vec::new();
        };
        let mut v = vec![
            Figure::new(T_PURE, pure * 1e6, Combine::Mean),
            Figure::new(T_PURE_MIN, pure * 1e6, Combine::Min),
            Figure::new(T_PURE_MAX, pure * 1e6, Combine::Max),
        ];
        if self.n > 0 {
            let n = self.n as f64;
            for (name, s) in [T_INIT, T_CPU, T_TEST, T_WAIT].iter().zip(self.sums) {
                v.push(Figure::new(name, s / n * 1e6, Combine::Mean));
            }
        }
        self.sums = [0.0; 4];
        self.n = 0;
        v.extend(self.inner.figures());
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn igatherv_and_iscatterv_warm_up_as_omb() {
        let RepsDefault::Split(s) = V_ROOTED_REPS else {
            panic!("{V_ROOTED_REPS:?}")
        };
        // 1000 iterations after 10 warm-ups up to 8192 bytes, 100 after 10 above.
        assert_eq!((s.at(8), s.at(16384)), ((1000, 10), (100, 10)));
        for b in [&IGATHERV as &dyn Benchmark, &ISCATTERV] {
            assert_eq!(b.info().reps, Some(V_ROOTED_REPS), "{}", b.info().name);
        }
        assert_eq!(IALLGATHERV.info().reps, Some(COLL_REPS));
    }

    #[test]
    fn every_program_has_its_benchmark() {
        let all = super::super::benchmarks();
        for p in super::super::PROGRAMS {
            let b = all.iter().filter(|b| b.info().name == p.name).count();
            assert_eq!(b, 1, "{}", p.name);
        }
        for b in &all {
            assert!(
                super::super::program(b.info().name).is_some(),
                "{}",
                b.info().name
            );
        }
    }
}
