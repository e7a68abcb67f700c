//! mpiGraph's timing: every rank starts its sends and receives at once and
//! polls them, reading the clock when its sends have completed and when its
//! receives have, so that send and receive bandwidth are timed apart.

use super::{Ctx, RepBatch, Rules, Samples, Timing};
use crate::contract::{Kernel, Side};

/// sync; t0; start; t_send and t_recv as each side completes. The value of
/// a repetition is the later of the two (the statistics see the maximum over
/// ranks, as with per-call timing); both sides are kept per sample.
pub struct SplitCompletion;

impl Timing for SplitCompletion {
    const RULES: Rules = Rules {
        name: "split-completion",
        describe: "sync; t0; start; t_send, t_recv when the sends / receives complete (mpiGraph)",
        repeats_in_blocks: true,
        ..Rules::PER_CALL
    };

    fn sample<K: Kernel + ?Sized, C: Ctx>(k: &mut K, cx: &mut C, b: &RepBatch) -> Samples {
        let mut s = Samples {
            reps_per_sample: 1,
            ..Samples::default()
        };
        super::reserve(&mut s.dur, b.n);
        super::reserve(&mut s.sides, b.n);
        cx.expect(1);
        for i in b.first..b.first + b.n {
            if b.check {
                k.prepare(i);
            }
            cx.sync(i);
            let t0 = cx.now();
            k.start(i);
            let (mut ts, mut tr) = (None, None);
            while ts.is_none() || tr.is_none() {
                if ts.is_none() && k.test(Side::Send) {
                    ts = Some(cx.now());
                }
                if tr.is_none() && k.test(Side::Recv) {
                    tr = Some(cx.now());
                }
            }
            let (ts, tr) = (ts.unwrap_or(t0), tr.unwrap_or(t0));
            let t1 = ts.max(tr);
            let late = cx.late(t0);
            s.dur.push(t1 - t0);
            s.start.push(t0);
            s.end.push(t1);
            s.late.push(late);
            s.sides.push([ts - t0, tr - t0]);
            cx.done(1);
            if b.check {
                if b.corrupt && i == 0 {
                    k.corrupt();
                }
                s.errors += u64::from(k.verify(i) > 0);
            }
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::method::fake::*;

    /// Sends complete after 2 µs, receives after 5 µs (of fake time).
    struct Split {
        clock: Clock,
        t0: f64,
        checks: usize,
    }

    impl Kernel for Split {
        fn run(&mut self, _rep: usize) {
            self.clock.advance(5e-6);
        }
        fn start(&mut self, _rep: usize) {
            self.t0 = self.clock.get();
        }
        fn test(&mut self, side: Side) -> bool {
            self.checks += 1;
            self.clock.advance(1e-6);
            let due = match side {
                Side::Send => 2e-6,
                Side::Recv => 5e-6,
            };
            self.clock.get() - self.t0 >= due
        }
    }

    #[test]
    fn sends_and_receives_are_timed_apart() {
        let clock = Clock::default();
        let mut k = Split {
            clock: clock.clone(),
            t0: 0.0,
            checks: 0,
        };
        let mut cx = FakeCtx::new(&clock);
        cx.sync = 1.0;
        let s = SplitCompletion::sample(&mut k, &mut cx, &RepBatch::new(0, 2));
        assert_eq!(cx.syncs, vec![0, 1]);
        assert_eq!(s.sides.len(), 2);
        for (side, d) in s.sides.iter().zip(&s.dur) {
            assert!(side[0] >= 2e-6 && side[0] < 4e-6, "{side:?}");
            assert!(side[1] >= 5e-6 && side[1] < 7e-6, "{side:?}");
            assert!(close(*d, side[0].max(side[1])));
        }
        assert_eq!(cx.done.len(), 2);
    }

    #[test]
    fn plain_kernels_complete_both_sides_at_once() {
        let clock = Clock::default();
        let mut k = FakeKernel::new(&clock, |_| 3e-6);
        let mut cx = FakeCtx::new(&clock);
        let s = SplitCompletion::sample(&mut k, &mut cx, &RepBatch::new(0, 3));
        assert_eq!(k.runs, vec![0, 1, 2]);
        for side in &s.sides {
            assert!(close(side[0], 3e-6) && close(side[1], 3e-6), "{side:?}");
        }
    }
}
