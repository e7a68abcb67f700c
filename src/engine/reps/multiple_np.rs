//! IMB's `-iter_policy multiple_np`: repetitions scaled down with the size,
//! a multiple of the process count (see [`crate::plan::multiple_np`]).

use super::{Before, Policy};

pub struct MultipleNp {
    pub msgs: usize,
    pub largest: usize,
}

impl Policy for MultipleNp {
    fn planned(&self, b: &Before) -> usize {
        crate::plan::multiple_np(self.msgs, self.largest, b.q, b.bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::super::fake::before;
    use super::*;

    #[test]
    fn is_the_plan_rule() {
        let p = MultipleNp {
            msgs: 1000,
            largest: 1 << 22,
        };
        for x in [0, 8, 1 << 16, 1 << 22] {
            let b = before(x);
            assert_eq!(
                p.planned(&b),
                crate::plan::multiple_np(1000, 1 << 22, b.q, x)
            );
        }
    }
}
