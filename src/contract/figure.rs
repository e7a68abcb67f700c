//! Figures a kernel measures besides the method's times, how the ranks'
//! values combine, and throughput.

use serde::{Deserialize, Serialize};

/// How the ranks' values of a [`Figure`] become the row's value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Combine {
    Mean,
    Min,
    Max,
    /// The value of the slowest rank: the one whose own mean time per
    /// repetition is the largest (IMB-NBC reports t_pure and t_CPU of the
    /// rank with the largest t_ovrl).
    Slowest,
}

/// A named value one rank measured at a point (see [`Kernel::figures`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Figure {
    pub name: String,
    pub value: f64,
    pub combine: Combine,
}

impl Figure {
    pub fn new(name: &str, value: f64, combine: Combine) -> Figure {
        Figure {
            name: name.to_string(),
            value,
            combine,
        }
    }
}

/// Throughput in MB/s (MB = 2^20 bytes) for `factor` × `x` bytes moved in
/// `t_us` microseconds; none (null) where the time is not a positive figure
/// (no valid sample, or a difference of times at or below zero).
pub fn mbytes_per_sec(factor: f64, x: usize, t_us: f64) -> Option<f64> {
    (t_us.is_finite() && t_us > 0.0).then(|| factor * x as f64 / 1.048576 / t_us)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn throughput_uses_mebibytes() {
        // 1 MiB in 1 second is exactly 1 MB/s.
        let mb = |f, x, t| mbytes_per_sec(f, x, t).unwrap();
        assert!((mb(1.0, 1 << 20, 1e6) - 1.0).abs() < 1e-12);
        // Sendrecv: 2X/1.048576/t; Exchange: 4X/1.048576/t.
        assert!((mb(2.0, 1_048_576, 1.0) - 2_000_000.0).abs() < 1e-6);
        assert!((mb(4.0, 1000, 2.0) - 4000.0 / 1.048576 / 2.0).abs() < 1e-9);
        assert_eq!(mb(1.0, 0, 3.0), 0.0);
        // No positive time, no throughput: neither 0 nor a huge figure.
        for t in [0.0, -0.5, -1e-9, f64::NAN, f64::INFINITY] {
            assert_eq!(mbytes_per_sec(1.0, 100, t), None, "{t}");
        }
    }
}
