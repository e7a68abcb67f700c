//! A clock pair around each repetition, synchronised before each (`--sync`).

use super::{each, Ctx, RepBatch, Rules, Samples, Timing};
use crate::contract::Kernel;

/// mpibench's per-call timing: one sample per repetition and rank; the
/// statistics see the maximum over ranks of each repetition (for single
/// transfers, the initiator's round trip).
pub struct PerCall;

impl Timing for PerCall {
    const RULES: Rules = Rules {
        name: "per-call",
        describe: "sync; t0; op; t1 per repetition -> max over ranks",
        ..Rules::PER_CALL
    };

    fn sample<K: Kernel + ?Sized, C: Ctx>(k: &mut K, cx: &mut C, b: &RepBatch) -> Samples {
        each(k, cx, b, |cx, i| cx.sync(i), |_| {})
    }
}

/// A clock pair around each repetition, synchronised once before the first
/// and then back to back (IMB 2019+ collectives with `-sync 0`).
pub struct PerCallOnce;

impl Timing for PerCallOnce {
    const RULES: Rules = Rules {
        name: "per-call-once",
        describe: "sync once; then t0; op; t1 per repetition, back to back -> max over ranks (IMB -sync 0)",
        ..Rules::PER_CALL
    };

    fn sample<K: Kernel + ?Sized, C: Ctx>(k: &mut K, cx: &mut C, b: &RepBatch) -> Samples {
        let first = b.first;
        each(
            k,
            cx,
            b,
            |cx, i| {
                if i == first {
                    cx.sync(i)
                }
            },
            |_| {},
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::method::fake::*;

    #[test]
    fn syncs_before_every_call_and_never_times_it() {
        let clock = Clock::default();
        let mut k = FakeKernel::new(&clock, |i| (i + 1) as f64 * 1e-6);
        let mut cx = FakeCtx::new(&clock);
        cx.sync = 1.0;
        cx.late_reps = vec![2];
        let s = PerCall::sample(&mut k, &mut cx, &RepBatch::new(1, 3));
        assert_eq!(cx.syncs, vec![1, 2, 3]);
        assert!(
            close(s.dur[0], 2e-6) && close(s.dur[2], 4e-6),
            "{:?}",
            s.dur
        );
        assert_eq!(s.late, vec![false, true, false]);
        assert_eq!(s.reps_per_sample, 1);
        assert!(s.end[0] < s.start[1]);
    }

    #[test]
    fn once_syncs_only_before_the_first_call() {
        let clock = Clock::default();
        let mut k = FakeKernel::new(&clock, |_| 2e-6);
        let mut cx = FakeCtx::new(&clock);
        cx.sync = 1.0;
        let s = PerCallOnce::sample(&mut k, &mut cx, &RepBatch::new(4, 3));
        assert_eq!(cx.syncs, vec![4]);
        assert_eq!(s.dur.len(), 3);
        assert!(s.dur.iter().all(|&d| close(d, 2e-6)), "{:?}", s.dur);
        assert_eq!(s.reps_per_sample, 1);
    }
}
