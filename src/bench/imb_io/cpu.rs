//! IMB's CPU exploitation (IMB 2021.11, `IMB_cpu_exploit.c`), what the
//! non-blocking benchmarks overlap their file access with: a 10 × 10
//! single-precision matrix-vector product repeated a fixed number of
//! times. Calibrated once per process (about 50 MFlop of it, timed): the
//! repetitions of one exploitation are those of TARGET_CPU_SECS (10 ms;
//! 1 ms under `--check`, as IMB's CHECK build), and t_CPU is the time of
//! one exploitation, measured once after the calibration, as IMB's
//! `tCPU`. Timed with the monotonic clock, no MPI.

use std::hint::black_box;
use std::sync::Mutex;
use std::time::Instant;

const SIZE: usize = 10;
/// IMB's TARGET_CPU_SECS, and under `--check` (its CHECK build).
pub const TARGET_SECS: f64 = 0.01;
pub const CHECK_TARGET_SECS: f64 = 0.001;

/// One exploitation: its repetitions and its measured time.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Exploit {
    pub reps: usize,
    pub t_cpu_us: f64,
}

/// The calibration: the product's repetitions per second and MFlops, and
/// the exploitations measured so far by target.
struct Calibration {
    per_sec: f64,
    mflops: f64,
    measured: Vec<(u64, Exploit)>,
}

static CAL: Mutex<Option<Calibration>> = Mutex::new(None);

/// `reps` repetitions of the product (its data kept opaque to the optimiser).
#[inline(never)]
pub fn product(reps: usize) {
    let a = [[1.0f32; SIZE]; SIZE];
    let mut x = [0.0f32; SIZE];
    let y = [0.0f32; SIZE];
    for _ in 0..reps {
        let (a, y) = (black_box(&a), black_box(&y));
        for i in 0..SIZE {
            for j in 0..SIZE {
                x[i] += a[i][j] * y[j];
            }
        }
    }
    black_box(&x);
}

fn calibrated<T>(f: impl FnOnce(&mut Calibration) -> T) -> T {
    let mut g = CAL.lock().unwrap_or_else(|e| e.into_inner());
    let c = g.get_or_insert_with(|| {
        let n = 50_000_000 / (2 * SIZE * SIZE) + 1;
        let t0 = Instant::now();
        product(n);
        let s = t0.elapsed().as_secs_f64().max(1e-9);
        Calibration {
            per_sec: n as f64 / s,
            mflops: (n * 2 * SIZE * SIZE) as f64 * 1e-6 / s,
            measured: Vec::new(),
        }
    });
    f(c)
}

/// The product's undisturbed MFlops (IMB-IO's header line).
pub fn mflops() -> f64 {
    calibrated(|c| c.mflops)
}

/// The exploitation of about `target` seconds: its repetitions, and its
/// time measured once (the first time it is asked for).
pub fn exploit(target: f64) -> Exploit {
    calibrated(|c| {
        let key = target.to_bits();
        if let Some(&(_, e)) = c.measured.iter().find(|(k, _)| *k == key) {
            return e;
        }
        let reps = ((target * c.per_sec) as usize).max(1);
        let t0 = Instant::now();
        product(reps);
        let e = Exploit {
            reps,
            t_cpu_us: t0.elapsed().as_secs_f64() * 1e6,
        };
        c.measured.push((key, e));
        e
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_exploitation_is_measured_once_per_target() {
        let a = exploit(CHECK_TARGET_SECS);
        assert!(a.reps >= 1 && a.t_cpu_us > 0.0);
        assert_eq!(exploit(CHECK_TARGET_SECS), a);
        assert!(mflops() > 0.0);
    }
}
