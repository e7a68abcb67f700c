//! Points and axes of a sweep.
//!
//! A [`Point`] is one combination of a benchmark's axis values: the message
//! size in bytes, and `params` for everything beyond bytes (N integers,
//! count / blksize / stride, cube edge n, t_delay, t_calc, packets ...).
//! `params` goes into the JSON rows unchanged.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::info::Info;
pub use crate::results::Params;

/// One point of a sweep.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct Point {
    /// Message size in bytes (0 where the benchmark has none).
    pub bytes: usize,
    #[serde(default)]
    pub params: Params,
}

impl Point {
    pub fn bytes(x: usize) -> Point {
        Point {
            bytes: x,
            params: Params::new(),
        }
    }

    /// Adds one axis value.
    pub fn with(mut self, name: &str, v: impl Into<Value>) -> Point {
        self.params.insert(name.to_string(), v.into());
        self
    }

    pub fn u64(&self, name: &str) -> Option<u64> {
        self.params.get(name).and_then(Value::as_u64)
    }

    pub fn f64(&self, name: &str) -> Option<f64> {
        self.params.get(name).and_then(Value::as_f64)
    }

    pub fn str(&self, name: &str) -> Option<&str> {
        self.params.get(name).and_then(Value::as_str)
    }

    /// "1024 bytes", or "1024 bytes, t_delay_us = 16" (error messages, progress).
    pub fn label(&self) -> String {
        let mut s = format!("{} bytes", self.bytes);
        for (k, v) in &self.params {
            s.push_str(&format!(", {k} = {v}"));
        }
        s
    }
}

/// How the points of a benchmark's sweep are made, unless it builds them itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Axis {
    /// One point, no size (Barrier).
    None,
    /// The plan's message sizes in bytes.
    Bytes,
    /// The plan's sizes in bytes, read as N elements of the element type (`params.n`).
    Elems,
}

/// Named value lists of a plan beyond message sizes (e.g. "t_delay_us").
pub type Axes = BTreeMap<String, Vec<f64>>;

/// What a benchmark builds its points from.
pub struct SweepCx<'a> {
    /// The plan's message sizes in bytes.
    pub sizes: &'a [usize],
    /// The plan's other axes.
    pub axes: &'a Axes,
    /// Processes of this run of the benchmark.
    pub q: usize,
}

impl SweepCx<'_> {
    /// The points an [`Axis`] declares.
    pub fn default_points(&self, info: &Info) -> Vec<Point> {
        match info.axis {
            Axis::None => vec![Point::bytes(0)],
            Axis::Bytes => self.sizes.iter().map(|&x| Point::bytes(x)).collect(),
            Axis::Elems => self
                .sizes
                .iter()
                .map(|&x| Point::bytes(x).with("n", (x / info.elem.size()) as u64))
                .collect(),
        }
    }

    /// The values of a named axis (empty when the plan has none).
    pub fn axis(&self, name: &str) -> &[f64] {
        self.axes.get(name).map_or(&[], Vec::as_slice)
    }
}

/// `from`, `from·k`, `from·k²`, ... up to and including `to` (MPITEST's
/// m, M, K). Needs `from ≥ 1` and `k ≥ 2`; stops before overflowing.
pub fn geometric(from: u64, to: u64, k: u64) -> Vec<u64> {
    let mut v = Vec::new();
    if from == 0 || k < 2 {
        return v;
    }
    let mut x = from;
    while x <= to {
        v.push(x);
        match x.checked_mul(k) {
            Some(n) => x = n,
            None => break,
        }
    }
    v
}

/// Powers of two from `from` to `to` (inclusive): CRESTA's m, t_delay and
/// t_calc sweeps, COMMTEST's packet counts. A `from` of 0 gives 0, 1, 2, 4, ...
pub fn powers_of_two(from: u64, to: u64) -> Vec<u64> {
    let mut v = Vec::new();
    if from == 0 {
        v.push(0);
        v.extend(geometric(1, to, 2));
    } else {
        v.extend(geometric(from, to, 2));
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::imb;
    use serde_json::json;

    #[test]
    fn geometric_is_mpitest_m_m_k() {
        assert_eq!(geometric(1, 100, 10), vec![1, 10, 100]);
        assert_eq!(geometric(1, 99, 10), vec![1, 10]);
        assert_eq!(geometric(3, 3, 2), vec![3]);
        assert_eq!(geometric(5, 4, 2), Vec::<u64>::new());
        assert_eq!(geometric(0, 4, 2), Vec::<u64>::new());
        assert_eq!(geometric(1, 4, 1), Vec::<u64>::new());
        assert_eq!(geometric(1 << 62, u64::MAX, 2), vec![1 << 62, 1 << 63]);
    }

    #[test]
    fn powers_of_two_include_zero_when_asked() {
        assert_eq!(powers_of_two(0, 8), vec![0, 1, 2, 4, 8]);
        assert_eq!(powers_of_two(2, 9), vec![2, 4, 8]);
    }

    #[test]
    fn points_carry_params() {
        let p: Vec<Point> = [8, 16]
            .iter()
            .flat_map(|&x| [json!(1), json!(2)].map(|v| Point::bytes(x).with("t_delay_us", v)))
            .collect();
        assert_eq!(p.len(), 4);
        assert_eq!(p[1].bytes, 8);
        assert_eq!(p[1].u64("t_delay_us"), Some(2));
        assert_eq!(p[1].label(), "8 bytes, t_delay_us = 2");
        assert_eq!(p[0].f64("missing"), None);
    }

    #[test]
    fn default_points_follow_the_axis() {
        let axes = Axes::new();
        let cx = SweepCx {
            sizes: &[0, 4, 40],
            axes: &axes,
            q: 2,
        };
        let barrier = imb::find("Barrier").unwrap().info();
        assert_eq!(cx.default_points(barrier), vec![Point::bytes(0)]);
        let pp = imb::find("PingPong").unwrap().info();
        assert_eq!(cx.default_points(pp).len(), 3);
        let allreduce = crate::bench::mpitest::find("ALLREDUCE").unwrap().info();
        let pts = cx.default_points(allreduce);
        assert_eq!(pts[2].u64("n"), Some(10));
        assert!(cx.axis("t_calc_us").is_empty());
    }
}
