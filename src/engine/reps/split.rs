//! OSU's iterations and skip: one count and warm-up up to a size, others
//! above it.

use super::{Before, Policy};
use crate::contract::Split;

pub struct SplitReps(pub Split);

impl Policy for SplitReps {
    fn planned(&self, b: &Before) -> usize {
        self.0.at(b.bytes).0
    }

    fn warmup(&self, _planned: usize, bytes: usize) -> usize {
        self.0.at(bytes).1
    }
}

#[cfg(test)]
mod tests {
    use super::super::fake::before;
    use super::*;

    #[test]
    fn counts_and_warm_up_change_above_the_limit() {
        let p = SplitReps(Split {
            small: 10000,
            large: 1000,
            warm_small: 100,
            warm_large: 10,
            limit: 8192,
        });
        assert_eq!(p.planned(&before(8192)), 10000);
        assert_eq!(p.warmup(10000, 8192), 100);
        assert_eq!(p.planned(&before(8193)), 1000);
        assert_eq!(p.warmup(1000, 8193), 10);
    }
}
