//! Exactly n repetitions.

use super::{Before, Policy};

pub struct Fixed(pub usize);

impl Policy for Fixed {
    fn planned(&self, _: &Before) -> usize {
        self.0
    }
}

#[cfg(test)]
mod tests {
    use super::super::fake::{before, pace, Fake};
    use super::*;

    #[test]
    fn runs_exactly_n_in_one_call() {
        let p = Fixed(50);
        assert_eq!(p.planned(&before(8)), 50);
        assert_eq!(p.warmup(50, 8), 5);
        assert_eq!(p.warmup(5, 8), 2);
        assert!((p.expected(50, &pace(1e-3)) - 50.0 * (1e-3 + 1e-5)).abs() < 1e-12);
        let mut f = Fake::each(1e-6);
        let d = p.drive(50, &pace(1e-6), &mut f);
        assert_eq!(f.calls, [(0, 50, false)]);
        assert_eq!((d.s.dur.len(), d.stopped, d.hint), (50, None, None));
    }
}
