//! Adaptive repetitions (`--precision R`): batches doubling the samples
//! until the 95% CI of the median is within ±R of it, between `min` and
//! `max` repetitions and within `--time`.

use super::{Batches, Before, Driven, Pace, Policy};
use crate::stats;

pub struct Precision {
    pub target: f64,
    pub min: usize,
    pub max: usize,
}

impl Policy for Precision {
    fn planned(&self, _: &Before) -> usize {
        self.min
    }

    fn expected(&self, _planned: usize, pace: &Pace) -> f64 {
        (self.max as f64 * (pace.each() + 1e-5)).min(2.0 * pace.time_limit_s)
    }

    fn drive(&self, _planned: usize, pace: &Pace, batches: &mut dyn Batches) -> Driven {
        let mut d = Driven::default();
        let mut n = self.min;
        let mut spent = 0.0;
        loop {
            let from = d.c.values.len();
            let first = d.s.reps();
            batches.run(first, n, &mut d.s, &mut d.c);
            spent += d.c.values[from..].iter().map(|v| v.max(0.0)).sum::<f64>();
            let per = d.s.reps_per_sample.max(1) as f64;
            let sm = stats::summarize(&d.c.valid(&d.c.values, per, 1.0));
            let done = d.s.dur.len();
            if stats::relative_ci_halfwidth(&sm) <= self.target && done >= self.min {
                d.stopped = Some(false);
                return d;
            }
            if done >= self.max || spent >= pace.time_limit_s {
                d.stopped = Some(true);
                return d;
            }
            n = done.min(self.max - done).max(1);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::fake::{pace, Fake};
    use super::*;

    #[test]
    fn stops_on_its_target_or_on_a_bound() {
        let p = Precision {
            target: 0.02,
            min: 10,
            max: 1000,
        };
        // Identical samples: the target holds after the first batch.
        let mut f = Fake::each(1e-6);
        let d = p.drive(10, &pace(1e-6), &mut f);
        assert_eq!((f.calls.len(), d.stopped), (1, Some(false)));
        // Wild samples: doubling up to max, then stopped on the bound.
        let mut f = Fake {
            time: Box::new(|i| if i % 2 == 0 { 1e-6 } else { 1e-3 }),
            calls: Vec::new(),
        };
        let d = p.drive(10, &pace(1e-6), &mut f);
        assert_eq!(d.stopped, Some(true));
        assert_eq!(d.s.dur.len(), 1000);
        assert_eq!(
            &f.calls[..3],
            [(0, 10, false), (10, 10, false), (20, 20, false)]
        );
        // The time limit ends it as well.
        let mut short = pace(1.0);
        short.time_limit_s = 0.5;
        let mut f = Fake {
            time: Box::new(|i| if i % 2 == 0 { 0.01 } else { 0.1 }),
            calls: Vec::new(),
        };
        let d = p.drive(10, &short, &mut f);
        assert_eq!(d.stopped, Some(true));
        assert!(d.s.dur.len() < 1000);
    }
}
