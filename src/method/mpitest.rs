//! MPITEST (parallel.ru): DT = t2 − t1 around nothing, DB = t2 − t1 − DT
//! around one barrier, and each construct timed as
//! barrier; t1; op; barrier; t2 with t = t2 − t1 − DT − DB.

use super::{each, Consts, Ctx, RepBatch, Rules, Samples, SyncMode, Timing};
use crate::contract::Kernel;

pub struct Mpitest;

impl Timing for Mpitest {
    const RULES: Rules = Rules {
        name: "mpitest",
        describe: "barrier; t1; op; barrier; t2 -> t2 - t1 - DT - DB (MPITEST)",
        subtracts: true,
        figure_is_mean: true,
        required_sync: Some(SyncMode::Barrier),
        calibrates: true,
        ..Rules::PER_CALL
    };

    /// DT and DB, each the mean of `n` measurements (MPITEST takes one of
    /// each; the mean of many is the same quantity with less noise).
    fn calibrate<C: Ctx>(cx: &mut C, n: usize) -> Consts {
        let n = n.max(1);
        let mut dt = 0.0;
        for _ in 0..n {
            let t1 = cx.now();
            let t2 = cx.now();
            dt += t2 - t1;
        }
        dt /= n as f64;
        let mut db = 0.0;
        for _ in 0..n {
            cx.barrier();
            let t1 = cx.now();
            cx.barrier();
            let t2 = cx.now();
            db += t2 - t1 - dt;
        }
        Consts {
            dt,
            db: db / n as f64,
        }
    }

    fn sample<K: Kernel + ?Sized, C: Ctx>(k: &mut K, cx: &mut C, b: &RepBatch) -> Samples {
        let c = cx.consts();
        let mut s = each(k, cx, b, |cx, _| cx.barrier(), |cx| cx.barrier());
        for d in &mut s.dur {
            *d -= c.dt + c.db;
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::method::fake::*;

    #[test]
    fn subtracts_the_clock_read_and_the_barrier() {
        let clock = Clock::default();
        let mut cx = FakeCtx::new(&clock);
        cx.read = 3e-8;
        cx.barrier = 2e-6;
        let c = Mpitest::calibrate(&mut cx, 100);
        assert!(close(c.dt, 3e-8), "{c:?}");
        assert!(close(c.db, 2e-6), "{c:?}");
        cx.consts = c;
        let mut k = FakeKernel::new(&clock, |_| 5e-6);
        let s = Mpitest::sample(&mut k, &mut cx, &RepBatch::new(0, 10));
        assert!(s.dur.iter().all(|&d| close(d, 5e-6)), "{:?}", s.dur);
        // Two barriers per repetition, around the operation.
        assert_eq!(cx.barriers, 200 + 20);
    }

    #[test]
    fn an_operation_cheaper_than_the_noise_can_come_out_negative() {
        let clock = Clock::default();
        let mut cx = FakeCtx::new(&clock);
        cx.consts = Consts { dt: 1e-6, db: 1e-6 };
        let mut k = FakeKernel::new(&clock, |_| 0.5e-6);
        let s = Mpitest::sample(&mut k, &mut cx, &RepBatch::new(0, 3));
        assert!(s.dur.iter().all(|&d| d < 0.0));
    }
}
