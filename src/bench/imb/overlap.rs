//! IMB-NBC's and IMB-MPI4's measurement of one collective at one length,
//! as their kernels (IMB 2021.11, `IMB_ibcast`, `IMB_bcast_persist` and the
//! like) do it (a non-blocking collective's issue is MPI_Ixxx, a persistent
//! one's MPI_Start, `bench::persist`):
//!
//! 1. the pure loop, after the engine's warm-up and before the timed
//!    repetitions ([`Kernel::planned`]): as many repetitions as the point
//!    plans, each MPI_Ixxx; MPI_Wait timed alone, a barrier after it; t_pure
//!    is their mean on this rank;
//! 2. the timed repetitions (the per-call method's clock pair is t_ovrl):
//!    MPI_Ixxx, computation for t_pure seconds (its own time is t_CPU),
//!    MPI_Wait.
//!
//! The row's t_ovrl is the largest over the ranks (`t_max_us`); t_pure and
//! t_CPU are that rank's ([`Combine::Slowest`]), and the overlap follows
//! IMB-NBC's output ([`overlap::imb_nbc_output`]).

use anyhow::Result;

use crate::bench::buf::{BufKernel, Phased};
use crate::bench::{overlap, Benchmark, Combine, Figure, Info, Kernel, Setup};
use crate::comm;
use crate::contract::axis::{Point, SweepCx};
use crate::results::BenchResult;

/// The figures of a row (µs, and percent, in `params`).
pub const T_PURE: &str = "t_pure_us";
pub const T_CPU: &str = "t_cpu_us";
pub const OVERLAP: &str = "overlap_pct";

/// A non-blocking collective under IMB-NBC's overlap measurement.
pub struct Nbc<P>(pub P);

impl<P: Phased + 'static> Benchmark for Nbc<P> {
    fn info(&self) -> &'static Info {
        self.0.info()
    }

    fn points(&self, cx: &SweepCx) -> Vec<Point> {
        crate::bench::buf::Pattern::points(&self.0, cx)
    }

    fn need(&self, p: &Point, q: usize) -> u64 {
        Benchmark::need(&self.0, p, q)
    }

    fn refuse(&self, p: &Point, q: usize) -> Option<String> {
        Benchmark::refuse(&self.0, p, q)
    }

    fn kernel<'a>(&'a self, s: Setup<'a>, p: &Point) -> Result<Box<dyn Kernel + 'a>> {
        Ok(Box::new(NbcKernel {
            inner: BufKernel::new(&self.0, s, p)?,
            pure: None,
            cpu: 0.0,
            n: 0,
        }))
    }

    /// IMB-NBC's overlap, of the slowest rank's figures.
    fn derive(&self, r: &mut BenchResult) {
        for row in &mut r.rows {
            let f = |k: &str| row.params.get(k).and_then(|v| v.as_f64());
            if let (Some(pure), Some(cpu)) = (f(T_PURE), f(T_CPU)) {
                if let Some(o) = overlap::imb_nbc_output(pure, cpu, row.t_max_us) {
                    row.params.insert(OVERLAP.into(), o.into());
                }
            }
        }
    }
}

struct NbcKernel<'a, P> {
    inner: BufKernel<'a, P>,
    /// This rank's t_pure (seconds), once the pure loop has run.
    pure: Option<f64>,
    /// Seconds of computation over the timed repetitions, and their number.
    cpu: f64,
    n: usize,
}

impl<P: Phased> NbcKernel<'_, P> {
    /// Computation for `target` seconds (IMB_cpu_exploit's part).
    #[inline(always)]
    fn compute(target: f64) {
        let t0 = comm::wtime();
        while comm::wtime() - t0 < target {
            std::hint::spin_loop();
        }
    }
}

impl<P: Phased> Kernel for NbcKernel<'_, P> {
    /// The warm-up runs the collective alone; the timed repetitions run it
    /// overlapped.
    #[inline(always)]
    fn run(&mut self, rep: usize) {
        let Some(target) = self.pure else {
            self.inner.alone(rep);
            return;
        };
        self.inner.begin(rep);
        self.inner.pat.issue(&mut self.inner.op);
        let t1 = comm::wtime();
        Self::compute(target);
        let t2 = comm::wtime();
        self.inner.pat.complete(&mut self.inner.op);
        self.cpu += t2 - t1;
        self.n += 1;
    }

    crate::bench::buf::validated_by_inner!();

    /// The pure loop: `reps` repetitions timed alone, a barrier after each.
    fn planned(&mut self, reps: usize) {
        let reps = reps.max(1);
        let mut sum = 0.0;
        for i in 0..reps {
            sum += self.inner.alone(i);
            self.inner.op.comm.barrier();
            crate::watchdog::progress(1);
        }
        self.pure = Some(sum / reps as f64);
        (self.cpu, self.n) = (0.0, 0);
    }

    fn figures(&mut self) -> Vec<Figure> {
        let mut v = Vec::new();
        if let Some(pure) = self.pure {
            v.push(Figure::new(T_PURE, pure * 1e6, Combine::Slowest));
            if self.n > 0 {
                let cpu = self.cpu / self.n as f64;
                v.push(Figure::new(T_CPU, cpu * 1e6, Combine::Slowest));
            }
        }
        (self.cpu, self.n) = (0.0, 0);
        v.extend(self.inner.figures());
        v
    }
}
