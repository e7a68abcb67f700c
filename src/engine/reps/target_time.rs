//! cafbench's rule: start where the last point ended (at most what the
//! warm-up says fits the target), double while a run takes under 2/3 of the
//! target time, accept otherwise; above 4/3 of it the next point starts at
//! half. Only the accepted run is reported. A run's wall time counts too,
//! so that untimed work between repetitions (validation, per-call
//! synchronisation) cannot stretch a point to minutes.

use super::{Batches, Before, Driven, Pace, Policy};

/// Most repetitions of one run.
const MAX_REPS: usize = 1 << 30;

pub struct TargetTime {
    pub target: f64,
}

impl Policy for TargetTime {
    fn planned(&self, b: &Before) -> usize {
        b.hint.max(1)
    }

    fn expected(&self, _planned: usize, pace: &Pace) -> f64 {
        3.0 * self.target + pace.time_limit_s
    }

    fn drive(&self, planned: usize, pace: &Pace, batches: &mut dyn Batches) -> Driven {
        let target = self.target;
        let fit = (target / pace.per_call.max(1e-9)).floor().max(1.0) as usize;
        let mut n = planned.min(fit).max(1);
        let mut spent = 0.0;
        loop {
            let mut d = Driven::default();
            let wall = batches.run_walled(n, &mut d.s, &mut d.c);
            // Identical on every rank: maxima over the synchronised ranks.
            let t: f64 = d.c.values.iter().map(|v| v.max(0.0)).sum();
            spent += wall.max(t);
            let short = t.max(wall) < target * 2.0 / 3.0;
            let bound = n >= MAX_REPS || spent >= pace.time_limit_s;
            if !short || bound {
                d.hint = Some(if t.max(wall) > target * 4.0 / 3.0 {
                    (n / 2).max(1)
                } else {
                    n
                });
                d.stopped = short.then_some(true);
                return d;
            }
            n *= 2;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::fake::{before, pace, Fake};
    use super::*;

    #[test]
    fn doubles_until_two_thirds_of_the_target() {
        let p = TargetTime { target: 1.0 };
        let mut b = before(8);
        b.hint = 4;
        assert_eq!(p.planned(&b), 4);
        // 0.01 s each: 4, 8, ..., 128 (1.28 s >= 2/3 s) is accepted, and
        // only it is reported; the next point starts there.
        let mut f = Fake::each(0.01);
        let d = p.drive(4, &pace(0.01), &mut f);
        let ns: Vec<usize> = f.calls.iter().map(|c| c.1).collect();
        assert_eq!(ns, [4, 8, 16, 32, 64, 128]);
        assert!(f.calls.iter().all(|c| c.2), "one walled batch per run");
        assert_eq!(d.s.dur.len(), 128);
        assert_eq!((d.stopped, d.hint), (None, Some(128)));
        // Above 4/3 of the target the next point starts at half.
        let mut f = Fake::each(0.5);
        let d = p.drive(4, &pace(0.01), &mut f);
        assert_eq!((d.s.dur.len(), d.hint), (4, Some(2)));
        // The time limit ends the doubling: stopped on a bound.
        let mut short = pace(1e-6);
        short.time_limit_s = 0.1;
        let mut f = Fake::each(1e-3);
        let d = p.drive(1, &short, &mut f);
        assert_eq!(d.stopped, Some(true));
    }
}
