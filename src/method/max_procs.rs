//! COMMTEST (ORNL): each process times the whole experiment itself; the
//! reported time is the maximum over processes. Where the clocks are
//! synchronised, the global elapsed time from the first process starting to
//! the last finishing is reported too, and rows where the two differ by more
//! than 10% are marked.

use super::{each, Ctx, RepBatch, Rules, Samples, Timing};
use crate::contract::Kernel;

pub struct MaxOverProcesses;

/// Relative difference beyond which the two times count as discrepant.
pub const DISCREPANCY: f64 = 0.10;

impl Timing for MaxOverProcesses {
    const RULES: Rules = Rules {
        name: "max-over-processes",
        describe: "barrier; t0; op; t1 -> max over processes, plus global elapsed time (COMMTEST)",
        wants_clock: true,
        checks_discrepancy: true,
        ..Rules::PER_CALL
    };

    /// synchronise; t0; experiment; t1, per repetition.
    fn sample<K: Kernel + ?Sized, C: Ctx>(k: &mut K, cx: &mut C, b: &RepBatch) -> Samples {
        each(k, cx, b, |cx, i| cx.sync(i), |_| {})
    }
}

impl MaxOverProcesses {
    /// Whether the global elapsed time and the maximum single-process time differ by more than 10%.
    pub fn discrepant(max_own: f64, global: f64) -> bool {
        max_own > 0.0 && (global - max_own).abs() > DISCREPANCY * max_own
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::method::fake::*;

    #[test]
    fn synchronises_then_times_each_experiment() {
        let clock = Clock::default();
        let mut k = FakeKernel::new(&clock, |_| 7e-6);
        let mut cx = FakeCtx::new(&clock);
        cx.sync = 3.0;
        let s = MaxOverProcesses::sample(&mut k, &mut cx, &RepBatch::new(0, 2));
        assert_eq!(cx.syncs, vec![0, 1]);
        assert!(s.dur.iter().all(|&d| close(d, 7e-6)));
    }

    #[test]
    fn discrepancy_is_ten_percent() {
        assert!(!MaxOverProcesses::discrepant(100.0, 109.0));
        assert!(MaxOverProcesses::discrepant(100.0, 111.0));
        assert!(MaxOverProcesses::discrepant(100.0, 85.0));
        assert!(!MaxOverProcesses::discrepant(0.0, 5.0));
    }
}
