//! The coarray suite's synchronisation overhead: the time of a calibrated
//! delay plus the operation, minus the time of the delay alone, over
//! outer × inner repetitions. The reference and the measured rounds are
//! interleaved (their order alternates), so that a slow phase of the machine
//! hits both alike; each outer repetition gives one sample.

use super::{Ctx, RepBatch, Rules, Samples, Timing};
use crate::contract::Kernel;

pub struct DelaySubtraction;

impl Timing for DelaySubtraction {
    const RULES: Rules = Rules {
        name: "delay-subtraction",
        describe:
            "inner x (delay + op) - inner x delay, interleaved, per outer repetition (coarrays)",
        subtracts: true,
        nested: true,
        ..Rules::PER_CALL
    };

    fn sample<K: Kernel + ?Sized, C: Ctx>(k: &mut K, cx: &mut C, b: &RepBatch) -> Samples {
        let inner = b.inner.max(1);
        let mut s = Samples {
            reps_per_sample: inner,
            ..Samples::default()
        };
        cx.expect(inner);
        for o in b.first..b.first + b.n {
            let mut reference = 0.0;
            let mut measured = 0.0;
            let (mut start, mut end, mut late) = (f64::INFINITY, 0.0f64, false);
            for round in 0..2 {
                let with_op = (o + round) % 2 == 1;
                if with_op && b.check {
                    k.prepare(o);
                }
                cx.sync(o);
                let t0 = cx.now();
                if with_op {
                    for j in 0..inner {
                        k.run(o * inner + j);
                    }
                } else {
                    for j in 0..inner {
                        k.reference(o * inner + j);
                    }
                }
                let t1 = cx.now();
                late |= cx.late(t0);
                start = start.min(t0);
                end = end.max(t1);
                if with_op {
                    measured = t1 - t0;
                    if b.check {
                        if b.corrupt && o == 0 {
                            k.corrupt();
                        }
                        s.errors += u64::from(k.verify(o) > 0);
                    }
                } else {
                    reference = t1 - t0;
                }
            }
            // One sample: the overhead of one operation, summed over the inner loop.
            s.push(measured - reference, start, end, late);
            cx.done(inner);
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::method::fake::*;

    #[test]
    fn the_delay_cancels_and_the_operation_remains() {
        let clock = Clock::default();
        let mut k = FakeKernel::new(&clock, |_| 4e-6);
        k.delay = 100e-6;
        let mut cx = FakeCtx::new(&clock);
        let b = RepBatch {
            inner: 20,
            ..RepBatch::new(0, 6)
        };
        let s = DelaySubtraction::sample(&mut k, &mut cx, &b);
        assert_eq!(s.dur.len(), 6);
        assert_eq!(k.refs, 6 * 20);
        assert_eq!(k.runs.len(), 6 * 20);
        // Per outer repetition: inner × op; per operation: 4 µs.
        assert!(s.dur.iter().all(|&d| close(d, 20.0 * 4e-6)), "{:?}", s.dur);
        assert!(close(s.mean_per_rep(), 4e-6));
        // Reference and measured rounds alternate in order.
        assert_eq!(cx.syncs.len(), 12);
    }

    #[test]
    fn checked_rounds_validate_and_corrupt_the_first() {
        let clock = Clock::default();
        let mut k = FakeKernel::new(&clock, |_| 1e-6);
        k.bad_reps = vec![2];
        let mut cx = FakeCtx::new(&clock);
        let b = RepBatch {
            inner: 3,
            check: true,
            corrupt: true,
            ..RepBatch::new(0, 4)
        };
        let s = DelaySubtraction::sample(&mut k, &mut cx, &b);
        // One prepare per measured round; --corrupt once, in the first.
        assert_eq!((k.prepared, k.corrupted, s.errors), (4, 1, 1));
        // Validation stays outside the clock pairs.
        assert!(s.dur.iter().all(|&d| close(d, 3e-6)), "{:?}", s.dur);
    }

    #[test]
    fn no_overhead_gives_zero_not_a_positive_figure() {
        let clock = Clock::default();
        let mut k = FakeKernel::new(&clock, |_| 0.0);
        k.delay = 50e-6;
        let mut cx = FakeCtx::new(&clock);
        let s = DelaySubtraction::sample(
            &mut k,
            &mut cx,
            &RepBatch {
                inner: 10,
                ..RepBatch::new(0, 4)
            },
        );
        assert!(s.dur.iter().all(|&d| d.abs() < 1e-12), "{:?}", s.dur);
    }
}
