//! IMB's `-iter_policy multiple_np`: repetitions scaled down with the size,
//! a multiple of the process count (see [`super::multiple_np`]).

use super::{Before, Policy};

pub struct MultipleNp {
    pub msgs: usize,
    pub largest: usize,
}

impl Policy for MultipleNp {
    fn planned(&self, b: &Before) -> usize {
        super::multiple_np(self.msgs, self.largest, b.q, b.bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::super::fake::before;
    use super::super::multiple_np;
    use super::*;

    #[test]
    fn is_the_plan_rule() {
        let p = MultipleNp {
            msgs: 1000,
            largest: 1 << 22,
        };
        for x in [0, 8, 1 << 16, 1 << 22] {
            let b = before(x);
            assert_eq!(p.planned(&b), multiple_np(1000, 1 << 22, b.q, x));
        }
    }

    #[test]
    fn multiple_np_is_imbs_hyperbola() {
        // At the largest size on Q: round(1000 · L / (Q·L + L)) = 1000 / (Q + 1), a multiple of Q.
        let l = 1 << 22;
        assert_eq!(multiple_np(1000, l, 2, l), 332);
        assert_eq!(multiple_np(1000, l, 4, l), 200);
        // Small messages: about msgs, a multiple of Q.
        assert_eq!(multiple_np(1000, l, 4, 0), 1000);
        assert_eq!(multiple_np(1000, l, 3, 8), 999);
        // Never below Q.
        assert_eq!(multiple_np(1, l, 8, l), 8);
    }
}
