//! IMB: at most `max` repetitions and `--volume` bytes per message length,
//! at least `min`, within `--time` (from the warm-up's pace).

use super::{Batches, Before, Driven, Pace, Policy};

pub struct Imb {
    pub max: usize,
    pub min: usize,
}

impl Imb {
    /// The repetitions that fit `--time` at the warm-up's pace.
    fn fitting(&self, planned: usize, each: f64, limit_s: f64) -> usize {
        planned
            .min((limit_s / each.max(1e-9)).floor() as usize)
            .max(self.min)
    }
}

impl Policy for Imb {
    /// IMB_init_buffers_iter: min(OVERALL_VOL / X, x_sample), where
    /// x_sample is MSGSPERSAMPLE, or the kernel's most in a non-aggregate
    /// mode (MSGS_NONAGGR, whatever -iter's first value says).
    fn planned(&self, b: &Before) -> usize {
        let max = b.most.map_or(self.max, |m| m.max(1));
        b.max_volume
            .checked_div(b.bytes)
            .map_or(max, |n| max.min(n.max(1)))
            .max(self.min)
    }

    fn expected(&self, planned: usize, pace: &Pace) -> f64 {
        let each = pace.each() + 1e-5;
        self.fitting(planned, each, pace.time_limit_s) as f64 * each
    }

    fn drive(&self, planned: usize, pace: &Pace, batches: &mut dyn Batches) -> Driven {
        let mut d = Driven::default();
        let n = self.fitting(planned, pace.each(), pace.time_limit_s);
        batches.run(0, n, &mut d.s, &mut d.c);
        d
    }
}

#[cfg(test)]
mod tests {
    use super::super::fake::{before, pace, Fake};
    use super::*;

    #[test]
    fn volume_and_time_cap_the_repetitions() {
        let p = Imb { max: 1000, min: 2 };
        assert_eq!(p.planned(&before(0)), 1000);
        assert_eq!(p.planned(&before(1 << 20)), 40);
        assert_eq!(p.planned(&before(1 << 30)), 2);
        // A non-aggregate kernel's most replaces -iter's first value
        // (IMB-IO -iter 50: 100 repetitions at 64 KiB, non-aggregate).
        let q = Imb { max: 50, min: 1 };
        let most = |bytes, m| Before {
            most: Some(m),
            ..before(bytes)
        };
        assert_eq!(q.planned(&before(1 << 16)), 50);
        assert_eq!(q.planned(&most(1 << 16, 100)), 100);
        assert_eq!(q.planned(&most(1 << 20, 100)), 40);
        // 10 s at 0.1 s each: 100 of the 1000.
        let mut f = Fake::each(0.1);
        let d = p.drive(1000, &pace(0.1), &mut f);
        assert_eq!(f.calls, [(0, 100, false)]);
        assert_eq!(d.s.dur.len(), 100);
        // Never below min.
        let mut f = Fake::each(100.0);
        p.drive(1000, &pace(100.0), &mut f);
        assert_eq!(f.calls, [(0, 2, false)]);
        // A window floor slows each repetition.
        let mut w = pace(1e-3);
        w.floor = 0.5;
        let mut f = Fake::each(1e-3);
        p.drive(1000, &w, &mut f);
        assert_eq!(f.calls, [(0, 20, false)]);
    }
}
