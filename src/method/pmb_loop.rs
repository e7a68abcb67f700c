//! PMB §5.2.6: synchronise, then one clock pair around all repetitions.

use super::{each, Ctx, RepBatch, Rules, Samples, Timing};
use crate::contract::Kernel;

/// PMB's timing loop. Each rank's value is (t1 − t0)/n; rows report the
/// minimum, maximum and average of it over ranks.
pub struct PmbLoop;

impl Timing for PmbLoop {
    const RULES: Rules = Rules {
        name: "loop",
        describe: "sync; t0; n x op; t1 -> (t1 - t0)/n per rank (PMB)",
        per_repetition: false,
        ..Rules::PER_CALL
    };

    fn sample<K: Kernel + ?Sized, C: Ctx>(k: &mut K, cx: &mut C, b: &RepBatch) -> Samples {
        if b.check {
            // Validation refills and checks buffers between repetitions: keep
            // PMB's single synchronisation, and time each call alone.
            let first = b.first;
            return each(
                k,
                cx,
                b,
                |cx, i| {
                    if i == first {
                        cx.sync(i)
                    }
                },
                |_| {},
            );
        }
        k.open();
        cx.expect(b.n);
        cx.sync(b.first);
        let t0 = cx.now();
        for i in b.first..b.first + b.n {
            k.run(i);
        }
        k.close();
        let t1 = cx.now();
        let late = cx.late(t0);
        cx.done(b.n);
        Samples {
            dur: vec![t1 - t0],
            start: vec![t0],
            end: vec![t1],
            late: vec![late],
            reps_per_sample: b.n,
            ..Samples::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::method::fake::*;

    #[test]
    fn one_clock_pair_around_the_loop() {
        let clock = Clock::default();
        let mut k = FakeKernel::new(&clock, |i| 1e-6 * (1 + i % 2) as f64);
        let mut cx = FakeCtx::new(&clock);
        cx.read = 1e-8;
        cx.sync = 5.0; // synchronisation is never timed
        let s = PmbLoop::sample(&mut k, &mut cx, &RepBatch::new(10, 4));
        assert_eq!(cx.syncs, vec![10]);
        assert_eq!(k.runs, vec![10, 11, 12, 13]);
        assert_eq!(s.dur.len(), 1);
        assert_eq!(s.reps_per_sample, 4);
        // 2 + 1 + 2 + 1 µs, plus one clock read.
        assert!(close(s.dur[0], 6e-6 + 1e-8), "{}", s.dur[0]);
        // One progress report for the batch, after its clock pair.
        assert_eq!(cx.expected, vec![4]);
        assert_eq!(cx.done.len(), 1);
        assert_eq!(cx.done[0].1, 4);
        assert!(cx.done[0].0 >= s.end[0]);
        assert!(close(s.mean_per_rep(), (6e-6 + 1e-8) / 4.0));
    }

    #[test]
    fn a_batch_closes_inside_its_clock_pair_and_opens_outside() {
        let clock = Clock::default();
        let mut k = FakeKernel::new(&clock, |_| 1e-6);
        k.closing = 5e-6;
        let mut cx = FakeCtx::new(&clock);
        let s = PmbLoop::sample(&mut k, &mut cx, &RepBatch::new(0, 4));
        assert_eq!((k.opened, k.closed), (1, 1));
        // 4 x 1 µs and one close of 5 µs; the open (1 s) is untimed.
        assert!(close(s.dur[0], 9e-6), "{}", s.dur[0]);
    }

    #[test]
    fn checking_syncs_once_and_times_each_call() {
        let clock = Clock::default();
        let mut k = FakeKernel::new(&clock, |_| 3e-6);
        let mut cx = FakeCtx::new(&clock);
        let b = RepBatch {
            check: true,
            ..RepBatch::new(0, 5)
        };
        let s = PmbLoop::sample(&mut k, &mut cx, &b);
        assert_eq!(cx.syncs, vec![0]);
        assert_eq!(s.dur.len(), 5);
        assert!(close(s.mean_per_rep(), 3e-6));
    }

    #[test]
    fn a_late_window_marks_the_loop() {
        let clock = Clock::default();
        let mut k = FakeKernel::new(&clock, |_| 1e-6);
        let mut cx = FakeCtx::new(&clock);
        cx.late_reps = vec![0];
        let s = PmbLoop::sample(&mut k, &mut cx, &RepBatch::new(0, 3));
        assert_eq!(s.late, vec![true]);
    }
}
