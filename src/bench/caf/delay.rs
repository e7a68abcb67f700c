//! The calibrated delay of the synchronisation benchmarks: a loop of
//! dependent floating-point operations (cafbench's `delay`), whose
//! iteration count is calibrated once per process so that it takes the
//! requested number of microseconds.

use std::collections::HashMap;
use std::hint::black_box;
use std::sync::Mutex;
use std::time::Instant;

/// A delay of a fixed amount of work.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Delay {
    iters: u64,
}

/// Calibrated iteration counts by delay (µs, as bits), once per process.
static CALIBRATED: Mutex<Option<HashMap<u64, u64>>> = Mutex::new(None);

impl Delay {
    /// No delay at all.
    pub const NONE: Delay = Delay { iters: 0 };

    /// The delay that takes `us` microseconds on this core.
    pub fn calibrated(us: f64) -> Delay {
        if us <= 0.0 {
            return Delay::NONE;
        }
        let mut cache = CALIBRATED.lock().unwrap_or_else(|e| e.into_inner());
        let map = cache.get_or_insert_with(HashMap::new);
        if let Some(&iters) = map.get(&us.to_bits()) {
            return Delay { iters };
        }
        let iters = calibrate(us * 1e-6);
        map.insert(us.to_bits(), iters);
        Delay { iters }
    }

    #[cfg(test)]
    pub fn iters(&self) -> u64 {
        self.iters
    }

    /// Spends the delay.
    #[inline(always)]
    pub fn run(&self) {
        spin(self.iters);
    }
}

#[inline(always)]
fn spin(n: u64) {
    let mut x = 1.0f64;
    for _ in 0..n {
        x = black_box(x * 0.999_999_9 + 1e-7);
    }
    black_box(x);
}

/// Seconds per iteration: the fastest of several timed runs (a run that
/// was descheduled is slower, never faster), then the count for `secs`.
fn calibrate(secs: f64) -> u64 {
    let n = 20_000u64;
    spin(n);
    let per = (0..15)
        .map(|_| {
            let t = Instant::now();
            spin(n);
            t.elapsed().as_secs_f64() / n as f64
        })
        .fold(f64::INFINITY, f64::min)
        .max(1e-12);
    ((secs / per).round() as u64).max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calibrated_delays_scale_and_are_cached() {
        assert_eq!(Delay::calibrated(0.0), Delay::NONE);
        let a = Delay::calibrated(20.0);
        let b = Delay::calibrated(40.0);
        assert!(a.iters() > 0);
        // Twice the time, about twice the work (calibrations are separate runs).
        let r = b.iters() as f64 / a.iters() as f64;
        assert!(r > 1.2 && r < 3.5, "{r}");
        assert_eq!(Delay::calibrated(20.0), a);
    }
}
