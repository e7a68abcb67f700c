//! CRESTA §4.3: the global time to completion of a scenario,
//! T = max(t_end) − min(t_start) over the participants, on synchronised
//! clocks, every repetition starting at an agreed global time.

use super::{each, Ctx, RepBatch, Rules, Samples, Spread, SyncMode, Timing};
use crate::contract::Kernel;

pub struct GlobalCompletion;

impl Timing for GlobalCompletion {
    const RULES: Rules = Rules {
        name: "global-completion",
        describe:
            "window; t_start; op; t_end -> max(t_end) - min(t_start) on the global clock (CRESTA)",
        spread: Spread::OverReps,
        global_value: true,
        wants_clock: true,
        required_sync: Some(SyncMode::Window),
        ..Rules::PER_CALL
    };

    /// start; scenario; stop, each repetition in its window slot.
    fn sample<K: Kernel + ?Sized, C: Ctx>(k: &mut K, cx: &mut C, b: &RepBatch) -> Samples {
        each(k, cx, b, |cx, i| cx.sync(i), |_| {})
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::method::fake::*;

    #[test]
    fn time_to_completion_spans_first_start_to_last_end() {
        // Three participants, two repetitions (global clock).
        let starts = [[0.0, 10.0], [1.0, 10.5], [0.5, 11.0]];
        let ends = [[5.0, 12.0], [4.0, 13.0], [6.0, 12.5]];
        let min_s: Vec<f64> = (0..2)
            .map(|i| starts.iter().map(|r| r[i]).fold(f64::INFINITY, f64::min))
            .collect();
        let max_s: Vec<f64> = (0..2)
            .map(|i| {
                starts
                    .iter()
                    .map(|r| r[i])
                    .fold(f64::NEG_INFINITY, f64::max)
            })
            .collect();
        let max_e: Vec<f64> = (0..2)
            .map(|i| ends.iter().map(|r| r[i]).fold(f64::NEG_INFINITY, f64::max))
            .collect();
        assert_eq!(crate::method::global_span(&min_s, &max_e), vec![6.0, 3.0]);
        assert_eq!(crate::method::start_skew(&min_s, &max_s), vec![1.0, 1.0]);
        // T is at least every participant's own time.
        for r in 0..3 {
            for i in 0..2 {
                assert!(crate::method::global_span(&min_s, &max_e)[i] >= ends[r][i] - starts[r][i]);
            }
        }
    }

    #[test]
    fn every_repetition_waits_for_its_slot() {
        let clock = Clock::default();
        let mut k = FakeKernel::new(&clock, |_| 2e-6);
        let mut cx = FakeCtx::new(&clock);
        let s = GlobalCompletion::sample(&mut k, &mut cx, &RepBatch::new(0, 4));
        assert_eq!(cx.syncs, vec![0, 1, 2, 3]);
        assert_eq!(s.start.len(), 4);
        assert!(s.dur.iter().all(|&d| close(d, 2e-6)));
    }
}
