//! What a participant does besides the collective in CRESTA's scenarios
//! (§4.2): `delay(t_delay)`, a calibrated busy-wait on the clock (scenario
//! 2), and `calc(t_calc)`, a calibrated floating-point kernel on a small
//! array that stays in the L1 cache (scenario 3), never a sleep.
//!
//! Calibration is written against any clock (`now`) and any amount of work,
//! so that it is unit-tested on a fake clock; the real ones are MPI_Wtime
//! and [`Calc`]. Both are calibrated once per process, outside every timed
//! region.

use std::hint::black_box;
use std::sync::OnceLock;

use crate::comm;

/// Timings of one calibration measurement: the shortest of this many.
const TRIES: usize = 7;

/// The shortest time of `tries` runs of `f`, on the clock `now`.
fn shortest(now: &mut impl FnMut() -> f64, tries: usize, mut f: impl FnMut()) -> f64 {
    (0..tries)
        .map(|_| {
            let t0 = now();
            f();
            now() - t0
        })
        .fold(f64::INFINITY, f64::min)
}

/// Busy-waits from `t0` (already read) until the clock reaches `t0 + target`;
/// returns the time actually waited, measured with the wait's own last read.
#[inline(always)]
pub fn busy_wait(now: &mut impl FnMut() -> f64, t0: f64, target: f64) -> f64 {
    let end = t0 + target;
    let mut t = t0;
    while t < end {
        t = now();
    }
    t - t0
}

/// The busy-wait of `delay(t_delay)`: the loop leaves on the first clock
/// read at or past the deadline, so it overshoots by up to one read; the
/// calibration measures that overshoot and aims earlier by it, so that the
/// delay achieved is t_delay on average.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DelayCal {
    /// The median overshoot of the busy-wait (seconds).
    pub overshoot: f64,
}

impl DelayCal {
    /// Busy-waits of a few µs, the median overshoot over them.
    pub fn measure(now: &mut impl FnMut() -> f64) -> DelayCal {
        const PROBE: f64 = 5e-6;
        let mut over: Vec<f64> = (0..31)
            .map(|_| {
                let t0 = now();
                busy_wait(now, t0, PROBE) - PROBE
            })
            .collect();
        over.sort_by(f64::total_cmp);
        DelayCal {
            overshoot: over[over.len() / 2].clamp(0.0, 1e-6),
        }
    }

    /// What to busy-wait for to achieve `t_delay` seconds (0 for no delay).
    pub fn target(&self, t_delay: f64) -> f64 {
        if t_delay > 0.0 {
            (t_delay - self.overshoot).max(0.0)
        } else {
            0.0
        }
    }
}

/// The time of `n` iterations of a kernel: `overhead + n · per_iter`,
/// fitted from two measurements.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CalcCal {
    /// Seconds per iteration.
    pub per_iter: f64,
    /// Seconds of a call beyond its iterations, clock reads included.
    pub overhead: f64,
}

/// One calibration run lasts at least this long (seconds).
const CALC_SPAN: f64 = 500e-6;

impl CalcCal {
    /// Doubles the iterations until one call takes `CALC_SPAN`, then fits
    /// the line through the shortest times of n/16 and n iterations.
    pub fn measure(now: &mut impl FnMut() -> f64, work: &mut impl FnMut(u64)) -> CalcCal {
        let mut n: u64 = 16;
        while n < 1 << 40 && shortest(now, 1, || work(n)) < CALC_SPAN {
            n *= 2;
        }
        let small = n / 16;
        let t_small = shortest(now, TRIES, || work(small));
        let t_big = shortest(now, TRIES, || work(n));
        let per_iter = ((t_big - t_small) / (n - small) as f64).max(1e-12);
        CalcCal {
            per_iter,
            overhead: (t_small - small as f64 * per_iter).max(0.0),
        }
    }

    /// Iterations whose call lasts `t_calc` seconds (0 for no calc).
    pub fn iterations(&self, t_calc: f64) -> u64 {
        if t_calc <= 0.0 {
            return 0;
        }
        ((t_calc - self.overhead) / self.per_iter).round().max(1.0) as u64
    }
}

/// Doubles on which `calc` works: 512 bytes, in the L1 cache of any core.
const CALC_LEN: usize = 64;

/// The floating-point kernel of `calc(t_calc)`: an update x ← a·x + b of
/// every element per iteration, which converges (no overflow, no
/// denormals) and which the compiler cannot skip.
pub struct Calc {
    a: [f64; CALC_LEN],
}

impl Default for Calc {
    fn default() -> Calc {
        let mut a = [0.0; CALC_LEN];
        for (i, v) in a.iter_mut().enumerate() {
            *v = 1.0 + i as f64 / CALC_LEN as f64;
        }
        Calc { a }
    }
}

impl Calc {
    /// `n` iterations over the array.
    #[inline(always)]
    pub fn run(&mut self, n: u64) {
        for _ in 0..n {
            for v in self.a.iter_mut() {
                *v = *v * 0.999_999 + 1e-6;
            }
            black_box(&mut self.a);
        }
    }

    /// A value that depends on every element (keeps the work observable).
    pub fn checksum(&self) -> f64 {
        self.a.iter().sum()
    }
}

/// This process's calibration on MPI_Wtime, measured on first use (outside
/// any timed region).
pub fn calibration() -> (DelayCal, CalcCal) {
    static CAL: OnceLock<(DelayCal, CalcCal)> = OnceLock::new();
    *CAL.get_or_init(|| {
        let mut now = comm::wtime;
        let delay = DelayCal::measure(&mut now);
        let mut c = Calc::default();
        let calc = CalcCal::measure(&mut now, &mut |n| c.run(n));
        black_box(c.checksum());
        (delay, calc)
    })
}

/// Values a [`Tally`] keeps for its median (the most recent ones).
const KEEP: usize = 1024;

/// Running sum, count and extremes of a duration, and the last `KEEP`
/// values for the median; `add` never allocates (the room is reserved on
/// creation), so it may run inside a timed scenario.
#[derive(Debug, Clone)]
pub struct Tally {
    pub sum: f64,
    pub n: u64,
    pub min: f64,
    pub max: f64,
    kept: Vec<f64>,
}

impl Default for Tally {
    fn default() -> Tally {
        Tally {
            sum: 0.0,
            n: 0,
            min: f64::INFINITY,
            max: 0.0,
            kept: Vec::with_capacity(KEEP),
        }
    }
}

impl Tally {
    #[inline(always)]
    pub fn add(&mut self, t: f64) {
        if self.kept.len() < KEEP {
            self.kept.push(t);
        } else {
            self.kept[self.n as usize % KEEP] = t;
        }
        self.sum += t;
        self.n += 1;
        self.min = self.min.min(t);
        self.max = self.max.max(t);
    }

    pub fn mean(&self) -> Option<f64> {
        (self.n > 0).then(|| self.sum / self.n as f64)
    }

    /// The median of the kept values: what a repetition typically achieved,
    /// whatever a descheduled one did to the mean.
    pub fn median(&self) -> Option<f64> {
        (!self.kept.is_empty()).then(|| crate::stats::summarize(&self.kept).median)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;

    /// A clock that advances only by what is declared: `read` per read.
    struct Fake {
        t: Cell<f64>,
        read: f64,
    }

    impl Fake {
        fn new(read: f64) -> Fake {
            Fake {
                t: Cell::new(100.0),
                read,
            }
        }
        fn now(&self) -> f64 {
            let t = self.t.get();
            self.t.set(t + self.read);
            t
        }
        fn advance(&self, dt: f64) {
            self.t.set(self.t.get() + dt);
        }
    }

    #[test]
    fn busy_wait_never_ends_early_and_overshoots_by_at_most_one_read() {
        let c = Fake::new(0.3e-6);
        let mut now = || c.now();
        for target in [0.0, 1e-6, 10e-6, 100e-6, 1e-3] {
            let t0 = now();
            let got = busy_wait(&mut now, t0, target);
            assert!(got >= target, "{got} < {target}");
            assert!(got < target + 0.3e-6 + 1e-12, "{got} for {target}");
        }
    }

    #[test]
    fn delay_calibration_aims_early_by_the_overshoot() {
        let read = 0.3e-6;
        let c = Fake::new(read);
        let mut now = || c.now();
        let cal = DelayCal::measure(&mut now);
        assert!(cal.overshoot > 0.0 && cal.overshoot <= read, "{cal:?}");
        for t_delay in [10e-6, 100e-6, 1000e-6] {
            let t0 = now();
            let got = busy_wait(&mut now, t0, cal.target(t_delay));
            // Within one clock read of the request, on either side.
            assert!((got - t_delay).abs() <= read, "{got} for {t_delay}");
            let ratio = got / t_delay;
            assert!((ratio - 1.0).abs() < 0.03, "{ratio}");
        }
        assert_eq!(cal.target(0.0), 0.0);
        assert_eq!(cal.target(1e-9), 0.0);
    }

    #[test]
    fn calc_calibration_recovers_rate_and_overhead() {
        // 25 ns per iteration, 400 ns per call, 40 ns per clock read.
        let c = Fake::new(40e-9);
        let mut work = |n: u64| c.advance(400e-9 + n as f64 * 25e-9);
        let cal = CalcCal::measure(&mut || c.now(), &mut work);
        assert!((cal.per_iter - 25e-9).abs() < 1e-15, "{cal:?}");
        // The call's own overhead plus one clock read.
        assert!((cal.overhead - 440e-9).abs() < 1e-12, "{cal:?}");
        for t_calc in [10e-6, 100e-6, 1000e-6] {
            let n = cal.iterations(t_calc);
            let t0 = c.now();
            work(n);
            let got = c.now() - t0;
            // Within half an iteration of the request.
            assert!(
                (got - t_calc).abs() <= 12.5e-9 + 1e-12,
                "{got} for {t_calc}"
            );
        }
        assert_eq!(cal.iterations(0.0), 0);
        assert_eq!(cal.iterations(1e-9), 1);
    }

    #[test]
    fn calc_calibration_ignores_interrupted_runs() {
        // Every third call is descheduled for 3 ms: the shortest runs are kept.
        let c = Fake::new(0.0);
        let calls = Cell::new(0u32);
        let mut work = |n: u64| {
            calls.set(calls.get() + 1);
            let extra = if calls.get() % 3 == 0 { 3e-3 } else { 0.0 };
            c.advance(100e-9 + n as f64 * 10e-9 + extra);
        };
        let cal = CalcCal::measure(&mut || c.now(), &mut work);
        assert!((cal.per_iter - 10e-9).abs() / 10e-9 < 1e-6, "{cal:?}");
        assert!((cal.overhead - 100e-9).abs() < 1e-12, "{cal:?}");
    }

    #[test]
    fn calc_is_real_work() {
        let mut c = Calc::default();
        let before = c.checksum();
        c.run(1000);
        let after = c.checksum();
        assert!(after != before && after.is_finite());
        // Converges towards 1/(1 - 0.999999) · 1e-6 = 1 without overflow.
        c.run(100_000);
        assert!(c.checksum().is_finite());
    }

    #[test]
    fn tally_keeps_mean_and_extremes() {
        let mut t = Tally::default();
        assert_eq!(t.mean(), None);
        for v in [2.0, 4.0, 9.0] {
            t.add(v);
        }
        assert_eq!((t.mean(), t.min, t.max, t.n), (Some(5.0), 2.0, 9.0, 3));
        assert_eq!(t.median(), Some(4.0));
        // One descheduled repetition moves the mean, not the median.
        let mut t = Tally::default();
        for i in 0..3000 {
            t.add(if i == 2999 { 1e3 } else { 1.0 });
        }
        assert_eq!(t.median(), Some(1.0));
        assert!(t.mean().unwrap() > 1.3);
        assert_eq!(t.kept.capacity(), KEEP);
    }
}
